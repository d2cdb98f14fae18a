#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECTYPES_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECTYPES_TD

include "megamoe/Dialect/WarpSpec/IR/WarpSpecDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class WarpSpec_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<WarpSpec_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def WarpSpec_TmaDescType : WarpSpec_Type<"TmaDesc", "tma_desc"> {
  let summary = "a TMA tensor-map descriptor passed as a kernel argument";
  let description = [{
    A `CUtensorMap` encoded by the host (`cuTensorMapEncodeTiled`) and passed
    as a `__grid_constant__` kernel argument. The type records what the
    kernel relies on: the element type, the box (the tile one TMA instruction
    moves, outermost dimension first, so `64x128xbf16` is 64 rows of 128
    contiguous elements) and the shared-memory swizzle in bytes
    (0 = none, 32, 64 or 128). The global shape and strides are runtime data
    of the descriptor and not part of the type.

    ```mlir
    !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
    ```

    Lowers to `!llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64,
    nvvm.grid_constant}`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$box,
                        "::mlir::Type":$elementType,
                        "unsigned":$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes one load or store of the whole box moves.
    int64_t getBoxBytes() const;
  }];
}

def WarpSpec_SmemType : WarpSpec_Type<"Smem", "smem"> {
  let summary = "a statically planned shared-memory buffer of one or more slots";
  let description = [{
    A shared-memory buffer made of `slots` equal slots, each holding one tile
    of `shape x elementType` (outermost dimension first, innermost contiguous).
    A ring buffer of a pipeline has as many slots as the pipeline has stages.
    `align` (bytes, a power of two >= 16) applies to every slot: slots are
    `alignTo(slotBytes, align)` apart. `swizzle` (0, 32, 64, 128 bytes) is
    the TMA/wgmma swizzle mode the tile is stored with; it needs
    `align >= 8 * swizzle` so that the swizzle pattern starts on an atom.

    ```mlir
    !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
    !warpspec.smem<128xf32, slots = 4, align = 128>
    ```

    The buffer's offset in the kernel's dynamic shared memory is assigned by
    the `warpspec-plan-smem` pass.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "unsigned":$slots,
                        "unsigned":$align,
                        "unsigned":$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes of one tile (without padding).
    int64_t getSlotBytes() const;
    /// Distance between two slots: the slot bytes rounded up to `align`.
    int64_t getSlotStride() const;
    /// Bytes of the whole buffer: `slots * slotStride`.
    int64_t getTotalBytes() const;
  }];
}

def WarpSpec_PipelineType : WarpSpec_Type<"Pipeline", "pipeline"> {
  let summary = "a ring of `stages` SMEM stages guarded by full/empty mbarriers";
  let description = [{
    A producer/consumer pipeline of `stages` stages. Each stage owns a `full`
    and an `empty` mbarrier (8 B each in shared memory, planned by
    `warpspec-plan-smem`). The stage index and phase bit are implicit: each
    side of each role keeps its own iteration counter (lowered to
    loop-carried registers).

    ```mlir
    !warpspec.pipeline<4>
    ```
  }];
  let parameters = (ins "unsigned":$stages);
  let assemblyFormat = "`<` $stages `>`";
  let genVerifyDecl = 1;
}

def WarpSpec_AccType : WarpSpec_Type<"Acc", "acc"> {
  let summary = "the register accumulator fragment of one warpgroup";
  let description = [{
    An `m x n` f32 accumulator tile held in the registers of one warpgroup in
    the wgmma `m64nNk*` D-fragment layout: each thread holds `n / 2` f32
    values. `m` is 64 (one wgmma M); `n` is a multiple of 8 in [8, 256]. On
    SM100 the block-scaled MMA's total has the same layout: its TMEM partial
    is loaded with `tcgen05.ld.16x256b`, which yields this fragment.

    ```mlir
    !warpspec.acc<64x128xf32>
    ```

    Lowers to `!llvm.struct<(f32, ...)>` with `n / 2` members.
  }];
  let parameters = (ins "int64_t":$m, "int64_t":$n, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def WarpSpec_AccRowsType : WarpSpec_Type<"AccRows", "acc_rows"> {
  let summary = "one value per row of an accumulator, spread as its rows are";
  let description = [{
    An `m`-element f32 vector with one value per row of an `m x n`
    accumulator (`!warpspec.acc<m x n x f32>`), held by the threads that hold
    that row of the accumulator, so that it combines with the accumulator
    element by element without data movement: a per-row scale, a router
    weight, a per-row amax. Where it lives is the lowering's choice (SM90:
    the wgmma D fragment gives each thread two rows, so two f32 per thread,
    the four threads of a row holding the same values).

    ```mlir
    !warpspec.acc_rows<64xf32>
    ```

    Lowers (SM90) to `!llvm.struct<(f32, f32)>`: the rows `r0` and `r0 + 8`
    of the thread's fragment.
  }];
  let parameters = (ins "int64_t":$m, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def WarpSpec_TmemType : WarpSpec_Type<"Tmem", "tmem"> {
  let summary = "a tensor-memory (TMEM) allocation of one CTA (SM100)";
  let description = [{
    A `lanes x columns` region of Blackwell tensor memory (128 lanes, up to
    512 32-bit columns per SM). Used for tcgen05 accumulators (f32) and for
    block-scale factors (i32 words). Columns are a power of two in [32, 512],
    as `tcgen05.alloc` requires.

    ```mlir
    !warpspec.tmem<128x256xf32>
    ```
  }];
  let parameters = (ins "int64_t":$lanes, "int64_t":$columns,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def WarpSpec_BarrierType : WarpSpec_Type<"Barrier", "barrier"> {
  let summary = "a named (bar.sync id) barrier among roles";
  let description = [{
    The handle of a hardware named barrier declared by
    `warpspec.named_barrier`.
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints used by the ops.
//===----------------------------------------------------------------------===//

def WarpSpec_GlobalPtr : Type<
    CPred<"::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self) && "
          "::llvm::cast<::mlir::LLVM::LLVMPointerType>($_self)"
          ".getAddressSpace() == 1">,
    "LLVM pointer to global memory (!llvm.ptr<1>)",
    "::mlir::LLVM::LLVMPointerType">,
  BuildableType<"::mlir::LLVM::LLVMPointerType::get($_builder.getContext(), 1)">;

def WarpSpec_SharedPtr : Type<
    CPred<"::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self) && "
          "::llvm::cast<::mlir::LLVM::LLVMPointerType>($_self)"
          ".getAddressSpace() == 3">,
    "LLVM pointer to shared memory (!llvm.ptr<3>)",
    "::mlir::LLVM::LLVMPointerType">,
  BuildableType<"::mlir::LLVM::LLVMPointerType::get($_builder.getContext(), 3)">;

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECTYPES_TD
