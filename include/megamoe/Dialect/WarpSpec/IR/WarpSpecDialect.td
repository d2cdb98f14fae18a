#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECDIALECT_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECDIALECT_TD

include "mlir/IR/OpBase.td"

def WarpSpec_Dialect : Dialect {
  let name = "warpspec";
  let cppNamespace = "::mlir::warpspec";
  let summary = "Warp-specialized persistent kernels: warp roles, SMEM pipelines, arrival counters, symmetric memory and tile MMA.";
  let description = [{
    The `warpspec` dialect describes a warp-specialized persistent GPU kernel
    the way hand-written Hopper/Blackwell kernels (DeepGEMM, CUTLASS) are
    structured: a `warpspec.kernel` whose body declares shared-memory buffers,
    multi-stage pipelines and named barriers, then splits into `warpspec.role`
    regions bound to warp ranges with register budgets. Roles communicate
    through pipelines (full/empty mbarrier rings whose stage index and phase
    are implicit), named barriers, and global arrival counters. Tile MMA ops
    take SMEM buffers and value-semantics accumulators.

    The dialect is generic: it knows nothing about Mixture-of-Experts.
    Execution granularity of every op (thread, warp, warpgroup) and its memory
    ordering are stated in its description and in
    `include/megamoe/Dialect/WarpSpec/Rationale.md`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Adds the types (defined in WarpSpecTypes.cpp, beside their storage).
    void registerTypes();
    /// Name of the attribute the SMEM plan sets on buffers and pipelines.
    static constexpr ::llvm::StringLiteral kOffsetAttrName = "offset";
  }];
}

class WarpSpec_Op<string mnemonic, list<Trait> traits = []>
    : Op<WarpSpec_Dialect, mnemonic, traits>;

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECDIALECT_TD
