//===- Passes.td - kernel builder passes -------------------*- tablegen -*-===//
//
// Passes that build whole kernels in the warpspec dialect from a handful of
// shape parameters.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_KERNELS_PASSES
#define MEGAMOE_KERNELS_PASSES

include "mlir/Pass/PassBase.td"

def MegaMoEGroupedGemm : Pass<"megamoe-grouped-gemm", "::mlir::ModuleOp"> {
  let summary = "Add the FP8 block-scaled grouped GEMM kernel (warpspec; lowered for SM90 or SM100) to the module";
  let description = [{
    Appends a `gpu.module @grouped_gemm` holding `warpspec.kernel
    @grouped_gemm_fp8`: a persistent, warp-specialized grouped GEMM over
    experts in the contiguous layout (each expert's rows padded to BLOCK_M):

      D[r, :] = sum_kb (A[r, kb] @ B[e(r), :, kb]^T) * sa[kb, r] * sb[e(r), :/128, kb]

    with FP8 e4m3 operands, per-token per-128-K FP32 activation scales (stored
    MN-major, `[K/128, M]`), 128x128 FP32 weight block scales, FP32
    accumulation promoted per 128-K block on CUDA cores, and a BF16 output.
    The layouts and roles are documented in `include/megamoe/Kernels/GroupedGemm.h`.

    `block-m=128` builds the cooperative variant (two math warpgroups, 64 rows
    each); `block-m=64` the single-warpgroup variant for decode sizes. The
    module then goes through `megamoe-to-cubin`. Invalid shapes (N or K not a
    multiple of 128, a stage count that does not fit shared memory, ...) are
    errors that name the rule.

    The layer schedules use the options `out-type=f32` (FP32 D, for the
    SwiGLU that follows), `b-scale-interleave=8` (gate/up-interleaved L1
    weights), `device-m-blocks` (the row-block count is computed on the GPU
    by an earlier kernel), `static-m` (the pool size is a compile-time
    constant) and `combine-scatter` (the L2 GEMM of the unfused schedule: no
    D, every output row goes from the epilogue to its source rank's combine
    buffer over NVLink, overlapping the GEMM).
  }];
  let options = [
    Option<"experts", "experts", "int64_t", "8", "Number of experts E">,
    Option<"n", "n", "int64_t", "4096", "Output columns N (multiple of BLOCK_N)">,
    Option<"k", "k", "int64_t", "7168", "Reduction size K (multiple of 128)">,
    Option<"maxM", "max-m", "int64_t", "32768",
           "Largest padded row count M_total the kernel is launched with">,
    Option<"blockM", "block-m", "int64_t", "128",
           "Rows per tile: 128 (two math warpgroups), 64 (one), 256, 16 or "
           "32 (swap-ab), or 0 for the plan's choice by rows-per-expert">,
    Option<"rowsPerExpert", "rows-per-expert", "int64_t", "0",
           "With block-m=0: the expected rows per expert (0: unknown), for "
           "config::groupedGemmRows (swap-AB tiles at decode sizes)">,
    Option<"blockN", "block-n", "int64_t", "0",
           "Columns per tile: 128, 192 (sm_90a; one m64n192 MMA straddling "
           "two weight-scale blocks, TMA-store epilogue only, N a multiple "
           "of 128, the last tile partial where 192 does not divide it) or 256 (sm_90a; two column blocks of 128 per math "
           "warpgroup, not with swiglu or combine-scatter); 0: the plan's "
           "choice (config::groupedGemmBlockN)">,
    Option<"stages", "stages", "int64_t", "0",
           "Pipeline stages (0: as many as fit in shared memory, at most 8)">,
    Option<"clusterM", "cluster-m", "int64_t", "0",
           "CTAs per cluster: 1, or 2 (two adjacent m-blocks of one expert "
           "share the weight tile, each CTA loading half of it with TMA "
           "multicast); 0: the plan's choice (config::groupedGemmClusterM)">,
    Option<"scalePrefetch", "scale-prefetch", "int64_t", "-1",
           "1: math warps read the next K block's weight scales during the "
           "current one (registers carried through the K loop); 0: each K "
           "block's before its wait; -1: the plan's choice "
           "(config::groupedGemmScalePrefetch)">,
    Option<"mmaTurns", "mma-turns", "bool", "false",
           "The two math warpgroups issue their MMAs in turns (named "
           "barriers), so one's promotion overlaps the other's MMAs "
           "(BLOCK_M 128, sm_90a)">,
    Option<"unrollStages", "unroll-stages", "bool", "true",
           "Unroll the math warps' K loop over the pipeline stages when the "
           "K blocks are a multiple of them (constant stage addresses)">,
    Option<"unrollWide", "unroll-wide", "bool", "true",
           "With unroll-stages, also unroll the BLOCK_N 256 tile's K loop "
           "(its K-step descriptors rematerialized in the loop)">,
    Option<"releaseLag", "release-lag", "int64_t", "1",
           "K blocks a math role keeps a stage after its MMA retired (0 or 1)">,
    Option<"releaseFence", "release-fence", "bool", "true",
           "With release-lag 0, fence the async proxy before each stage "
           "release (false: sm_90a, no fence; KernelPlan::releaseFence)">,
    Option<"outTileColumns", "out-tile-columns", "int64_t", "0",
           "Columns of the TMA-store epilogue's SMEM output tile (0: the "
           "plan's; GemmProblem::outTileColumns)">,
    Option<"swapAB", "swap-ab", "bool", "false",
           "Swap-AB for few rows per expert (sm_90a, block-m 16 or 32, "
           "block-n 128): the weights are the MMA's M side "
           "(GemmProblem::swapAB)">,
    Option<"tmaWarps", "tma-warps", "int64_t", "-1",
           "Warps that feed the ring: 4 (one TMA load and commit per "
           "operand) or 1 (every load of a stage under one commit; "
           "GemmProblem::tmaWarps); -1: the plan's choice "
           "(config::groupedGemmTmaWarps)">,
    Option<"chip", "chip", "std::string", [{"sm_90a"}], "Target chip (sm_90a, sm_100a)">,
    Option<"outType", "out-type", "std::string", [{"bf16"}],
           "Element type of D: bf16 or f32">,
    Option<"bScaleInterleave", "b-scale-interleave", "int64_t", "0",
           "0: one weight scale per 128x128 block; 8: B rows interleaved by 8 "
           "between two scale blocks (SwiGLU gate/up), b_scales [E, N/128, "
           "K/128, 2]">,
    Option<"deviceMBlocks", "device-m-blocks", "bool", "false",
           "num_m_blocks is a pointer to an i32 in global memory (written by "
           "an earlier kernel), read at kernel start">,
    Option<"staticM", "static-m", "int64_t", "0",
           "0: M is given at launch; > 0: M is this literal (TMA shapes and "
           "grid without symbols; max-m is then ignored)">,
    Option<"combineScatter", "combine-scatter", "bool", "false",
           "No D: each output row is stored to its source rank's combine "
           "buffer (pool_source, combine, peer_offsets parameters; bf16 and "
           "static-m only)">,
    Option<"combineTokens", "combine-tokens", "int64_t", "0",
           "With combine-scatter: T, tokens per rank of the combine buffer "
           "[topk, T, n]">,
    Option<"combineTopk", "combine-topk", "int64_t", "0",
           "With combine-scatter: slots per token of the combine buffer">,
    Option<"combineRanks", "combine-ranks", "int64_t", "0",
           "With combine-scatter: ranks (entries of peer_offsets)">,
    Option<"swiglu", "swiglu", "bool", "false",
           "No D: the SwiGLU + per-128 requantization epilogue (tiles of two "
           "column blocks; row_weight, out, out_scales parameters; "
           "b-scale-interleave 8, static-m and device-m-blocks only)">,
    Option<"swigluPairStages", "swiglu-pair-stages", "bool", "false",
           "With swiglu at block-m 128 (sm_90a): both column blocks of a "
           "tile's pair in each ring stage, one BLOCK_N 256 pass computed "
           "by every math warpgroup (A loaded once per tile), instead of "
           "the pair's two mainloops one after the other">,
    Option<"swigluArrivals", "swiglu-arrivals", "bool", "false",
           "With swiglu: an arrivals counter per m-block, released by each "
           "math warpgroup after its tile's stores completed">,
    Option<"halfBlocks", "half-blocks", "bool", "false",
           "m-blocks start at block_row[m] (bit 31: a 64-row half block, "
           "whose rows math warpgroup 0 stores; with combine-scatter "
           "warpgroup 1 skips its stages); block_expert per 64-row unit. "
           "BLOCK_M 128, static-m and device-m-blocks only">,
    Option<"aScaleGroups", "a-scale-groups", "int64_t", "1",
           "A scales per row and K block of 128: 1, or 2 for an A "
           "requantized per 64 channels (a_scales [K / 64, M]; each K "
           "block promoted per 64 K; sm_90a)">,
    Option<"swigluRequantBlock", "swiglu-requant-block", "int64_t", "128",
           "With swiglu: activation columns per scale, 128 (one per "
           "column-block pair) or 64 (one per column block)">,
  ];
  let dependentDialects = [
    "::mlir::warpspec::WarpSpecDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::math::MathDialect"
  ];
}

#endif // MEGAMOE_KERNELS_PASSES
