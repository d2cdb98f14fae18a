#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECGLOBALOPS_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECGLOBALOPS_TD

// Typed global memory: element addresses, loads, stores, reinterpretation and
// relaxed atomics on !warpspec.global<T> (WarpSpecGlobalTypes.td). Lowered by
// lib/Conversion/WarpSpecToNVVM/LowerGlobalMemory.cpp.

include "megamoe/Dialect/WarpSpec/IR/WarpSpecGlobalTypes.td"

def WarpSpec_GlobalIndex : AnyTypeOf<[I32, I64], "i32 or i64 element index">;

def WarpSpec_GlobalOffsetOp : WarpSpec_Op<"global.offset", [
    Pure, AllTypesMatch<["base", "result"]>]> {
  let summary = "address of element `index` of a typed global pointer";
  let description = [{
    Per thread: `base + index * sizeof(T)` for `base : !warpspec.global<T>`.
    An `i32` index is zero-extended (element indices are non-negative; a
    count above 2^31 elements still addresses forward); an `i64` index is
    used as is (signed). No memory access and no bounds check.

    ```mlir
    %row = warpspec.global.offset %x[%i] : !warpspec.global<bf16>, i64
    ```

    Lowers to `llvm.getelementptr %base[%index] : T`.
  }];
  let arguments = (ins WarpSpec_GlobalType:$base, WarpSpec_GlobalIndex:$index);
  let results = (outs WarpSpec_GlobalType:$result);
  let assemblyFormat = [{
    $base `[` $index `]` attr-dict `:` qualified(type($base)) `,` type($index)
  }];
}

def WarpSpec_GlobalLoadOp : WarpSpec_Op<"global.load", [
    TypesMatchWith<"result type is the pointer's element type", "ptr",
                   "result",
                   "::llvm::cast<::mlir::warpspec::GlobalType>($_self)"
                   ".getElementType()">]> {
  let summary = "load one element through a typed global pointer";
  let description = [{
    Per thread: a plain (weak, not volatile) load of the element at `ptr`.
    `align` (bytes, a power of two) is what the caller guarantees about the
    address; without it the element type's natural alignment is assumed. A
    `vector<4xi32>` element with `align 16` is one 16-byte access
    (`ld.global.v4.b32`). No ordering with other threads: pair it with a
    counter acquire, a barrier or a fence.

    ```mlir
    %v = warpspec.global.load %p align 16 : !warpspec.global<vector<4xi32>>
    ```

    Lowers to `llvm.load`; an element type LLVM lacks (fp8, vectors of
    fp8) is loaded as the integer type of its width and `arith.bitcast`.
  }];
  let arguments = (ins WarpSpec_GlobalType:$ptr,
                       OptionalAttr<I64Attr>:$alignment);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr (`align` $alignment^)? attr-dict `:` qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

def WarpSpec_GlobalStoreOp : WarpSpec_Op<"global.store", [
    TypesMatchWith<"value type is the pointer's element type", "ptr",
                   "value",
                   "::llvm::cast<::mlir::warpspec::GlobalType>($_self)"
                   ".getElementType()">]> {
  let summary = "store one element through a typed global pointer";
  let description = [{
    Per thread: a plain (weak) store of `value` to the element at `ptr`;
    `align` as for `warpspec.global.load`. Visible to other threads (or, for
    a peer rank's symmetric memory, other GPUs) only after a release
    (`warpspec.counter.add`, `warpspec.fence`, a barrier).

    ```mlir
    warpspec.global.store %v, %p align 4 : !warpspec.global<i32>
    ```

    Lowers to `llvm.store` (fp8 values through an `arith.bitcast` to the
    integer type of their width).
  }];
  let arguments = (ins AnyType:$value, WarpSpec_GlobalType:$ptr,
                       OptionalAttr<I64Attr>:$alignment);
  let assemblyFormat = [{
    $value `,` $ptr (`align` $alignment^)? attr-dict `:` qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

def WarpSpec_GlobalCastOp : WarpSpec_Op<"global.cast", [Pure]> {
  let summary = "reinterpret a global pointer with another element type";
  let description = [{
    The same address seen as a pointer to another element type (a byte
    pointer as `f32`, an `i32` array as `vector<4xi32>` chunks), or between a
    typed pointer and an untyped `!llvm.ptr<1>` for code that still uses
    the latter. Emits no code (LLVM pointers are opaque); the alignment a
    later access claims is the caller's to guarantee.

    ```mlir
    %chunks = warpspec.global.cast %x : !warpspec.global<bf16> to !warpspec.global<vector<4xi32>>
    ```
  }];
  let arguments = (ins WarpSpec_AnyGlobalPtr:$source);
  let results = (outs WarpSpec_AnyGlobalPtr:$result);
  let assemblyFormat = [{
    $source attr-dict `:` qualified(type($source)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def WarpSpec_GlobalAtomicOp : WarpSpec_Op<"global.atomic", [
    TypesMatchWith<"value type is the pointer's element type", "ptr",
                   "value",
                   "::llvm::cast<::mlir::warpspec::GlobalType>($_self)"
                   ".getElementType()">,
    TypesMatchWith<"result type is the pointer's element type", "ptr",
                   "result",
                   "::llvm::cast<::mlir::warpspec::GlobalType>($_self)"
                   ".getElementType()">]> {
  let summary = "relaxed atomic read-modify-write of one global element";
  let description = [{
    Per thread: atomically replaces the element at `ptr` by
    `old <kind> value` and returns `old`. Relaxed: the update is atomic with
    respect to the other atomics on that address and the returned values of
    concurrent updates are distinct states of the element, but it orders
    no other memory access (use `warpspec.counter.add` for a release, or a
    `warpspec.fence`). `add`, `max`, `min`, `umax`, `umin`, `and`, `or`,
    `xor` and `exch` take `i32` or `i64` elements; `fadd` takes `f32`.

    ```mlir
    %pos = warpspec.global.atomic add %count, %one : !warpspec.global<i32>
    ```

    Lowers to `llvm.atomicrmw <kind> %ptr, %value monotonic` (no syncscope).
  }];
  let arguments = (ins WarpSpec_AtomicKindAttr:$kind, WarpSpec_GlobalType:$ptr,
                       AnyType:$value);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind $ptr `,` $value attr-dict `:` qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

def WarpSpec_GlobalPrefetchOp : WarpSpec_Op<"global.prefetch"> {
  let summary = "ask the L2 cache to fetch a global byte range";
  let description = [{
    Per thread: a hint that the `bytes` bytes (i32) starting at `ptr` will
    be read soon, so the memory system fetches them into the L2 cache now.
    Nothing is returned and nothing waits for it: the issuing thread goes
    on (and may exit) at once, and a range the cache cannot hold is simply
    read again later. The address must be 16-byte aligned and `bytes` a
    multiple of 16 (a constant `bytes` is checked here; otherwise both are
    the caller's to guarantee).

    Used to stream weights that a later kernel reads while the memory bus
    would otherwise idle (docs/Collectives.md, "Weight prefetch").

    ```mlir
    warpspec.global.prefetch %row, %bytes : !warpspec.global<i8>
    ```

    Lowers to `nvvm.cp.async.bulk.prefetch` (`cp.async.bulk.prefetch.L2`,
    sm_90 and later).
  }];
  let arguments = (ins WarpSpec_GlobalType:$ptr, I32:$bytes);
  let assemblyFormat = [{
    $ptr `,` $bytes attr-dict `:` qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

def WarpSpec_FenceOp : WarpSpec_Op<"fence"> {
  let summary = "sequentially consistent memory fence at a scope";
  let description = [{
    Per thread: `fence.sc.<scope>`. The executing thread's memory accesses
    before the fence (including stores into a peer rank's symmetric memory)
    are ordered before its accesses after it for every observer in `scope`
    (`gpu`: this GPU; `sys`: also the peer GPUs and the host). Costly at
    `sys` scope: guard it so that only threads that stored something fence.

    ```mlir
    warpspec.fence scope sys
    ```

    Lowers to `llvm.fence seq_cst` (`sys`) or `llvm.fence syncscope("device")
    seq_cst` (`gpu`).
  }];
  let arguments = (ins WarpSpec_ScopeAttr:$scope);
  let assemblyFormat = "`scope` $scope attr-dict";
}

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECGLOBALOPS_TD
