#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECGLOBALTYPES_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECGLOBALTYPES_TD

// Typed pointers into global memory: the type, the constraints the counter
// and symmetric-memory ops use, and the kinds of atomic read-modify-write.
// The ops are in WarpSpecGlobalOps.td.

include "megamoe/Dialect/WarpSpec/IR/WarpSpecTypes.td"
include "mlir/IR/EnumAttr.td"

def WarpSpec_GlobalType : WarpSpec_Type<"Global", "global"> {
  let summary = "a typed pointer into global memory";
  let description = [{
    The address of an element of type `elementType` in global memory (the
    CUDA `T __restrict__ *` of a kernel parameter, without the restrict).
    The element type is an integer or float whose width is a whole number of
    bytes, or a 1-D vector of them (`vector<4xi32>` for 16-byte accesses).
    The type carries no shape or bounds: kernels index region buffers whose
    sizes are runtime data or checked by the builder against the buffer
    layout (see Rationale.md, "Typed global pointers").

    ```mlir
    !warpspec.global<f32>
    !warpspec.global<vector<4xi32>>
    ```

    Lowers to `!llvm.ptr<1>`; `warpspec.global.cast` changes the element
    type without emitting code.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes of one element (vector elements: all lanes).
    int64_t getElementBytes() const;
  }];
}

/// True for !warpspec.global<elementType> (any element type when null).
class WarpSpec_GlobalOf<string elementPred, string what>
    : Type<And<[CPred<"::llvm::isa<::mlir::warpspec::GlobalType>($_self)">,
                CPred<elementPred>]>,
           "!warpspec.global<" # what # ">", "::mlir::warpspec::GlobalType">;

def WarpSpec_GlobalI32 : WarpSpec_GlobalOf<
    "::llvm::cast<::mlir::warpspec::GlobalType>($_self).getElementType()"
    ".isInteger(32)", "i32">;
def WarpSpec_GlobalI64 : WarpSpec_GlobalOf<
    "::llvm::cast<::mlir::warpspec::GlobalType>($_self).getElementType()"
    ".isInteger(64)", "i64">;

// Global pointers the counter and symmetric-memory ops accept: a typed
// pointer, or an untyped !llvm.ptr<1> (kept for builders not yet on typed
// pointers).
def WarpSpec_AnyGlobalPtr : AnyTypeOf<[WarpSpec_GlobalPtr, WarpSpec_GlobalType],
    "!warpspec.global<T> or !llvm.ptr<1>">;
def WarpSpec_CounterPtr : AnyTypeOf<[WarpSpec_GlobalPtr, WarpSpec_GlobalI32],
    "!warpspec.global<i32> or !llvm.ptr<1>">;
def WarpSpec_OffsetTablePtr : AnyTypeOf<[WarpSpec_GlobalPtr, WarpSpec_GlobalI64],
    "!warpspec.global<i64> or !llvm.ptr<1>">;

def WarpSpec_AtomicAdd : I32EnumAttrCase<"add", 0>;
def WarpSpec_AtomicMax : I32EnumAttrCase<"max", 1>;
def WarpSpec_AtomicMin : I32EnumAttrCase<"min", 2>;
def WarpSpec_AtomicUMax : I32EnumAttrCase<"umax", 3>;
def WarpSpec_AtomicUMin : I32EnumAttrCase<"umin", 4>;
def WarpSpec_AtomicAnd : I32EnumAttrCase<"and_", 5, "and">;
def WarpSpec_AtomicOr : I32EnumAttrCase<"or_", 6, "or">;
def WarpSpec_AtomicXor : I32EnumAttrCase<"xor_", 7, "xor">;
def WarpSpec_AtomicExch : I32EnumAttrCase<"exch", 8>;
def WarpSpec_AtomicFAdd : I32EnumAttrCase<"fadd", 9>;
def WarpSpec_AtomicKindAttr : I32EnumAttr<"AtomicKind",
    "the operation of a relaxed atomic read-modify-write on global memory: "
    "add, max/min (signed), umax/umin (unsigned), and, or, xor, exch "
    "(integers) or fadd (floats)",
    [WarpSpec_AtomicAdd, WarpSpec_AtomicMax, WarpSpec_AtomicMin,
     WarpSpec_AtomicUMax, WarpSpec_AtomicUMin, WarpSpec_AtomicAnd,
     WarpSpec_AtomicOr, WarpSpec_AtomicXor, WarpSpec_AtomicExch,
     WarpSpec_AtomicFAdd]> {
  let cppNamespace = "::mlir::warpspec";
}

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECGLOBALTYPES_TD
