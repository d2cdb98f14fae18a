//===- GroupedGemmParams.h - the grouped GEMM's parameters and grid -*- C++ -*-===//
//
// The manifest-facing half of the grouped GEMM (include/megamoe/Kernels/
// GroupedGemm.h): which parameters a config has, their types, bindings and
// TMA specs, and the launch grid. GroupedGemm.cpp builds the roles.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_GROUPEDGEMMPARAMS_H
#define MEGAMOE_LIB_KERNELS_GROUPEDGEMMPARAMS_H

#include "megamoe/Kernels/GroupedGemm.h"
#include "megamoe/Kernels/KernelBuilder.h"

#include "mlir/IR/Builders.h"

namespace megamoe::gemm {

/// Kernel parameter names (the manifest lists them in kernelParams' order).
inline constexpr char kParamA[] = "a";          // TMA: A [M, K] fp8
inline constexpr char kParamB[] = "b";          // TMA: B [E*N, K] fp8
inline constexpr char kParamSfa[] = "a_scales"; // TMA: SFA [K/128*G, M] f32
inline constexpr char kParamD[] = "d";          // TMA: D [M, N] (no scatter)
inline constexpr char kParamSfb[] = "b_scales"; // SFB [E, N/128, K/128(, 2)]
inline constexpr char kParamBlockExpert[] = "block_expert"; // i32 [M / BLOCK_M]
inline constexpr char kParamNumMBlocks[] = "num_m_blocks";  // i32 or pointer to i32
inline constexpr char kParamPoolSource[] = "pool_source";   // i32 [M, 3] (scatter)
inline constexpr char kParamCombine[] = "combine";          // bf16 [K', T, N]
inline constexpr char kParamPeerOffsets[] = "peer_offsets"; // i64 [R]
inline constexpr char kParamRowWeight[] = "row_weight"; // f32 [M] (swiglu)
inline constexpr char kParamOut[] = "out";              // TMA: e4m3 [M, N / 2]
inline constexpr char kParamOutScales[] = "out_scales"; // f32 [N/2/rq, M]
inline constexpr char kParamArrivals[] = "arrivals";     // i32 [M / BLOCK_M]
inline constexpr char kParamBlockRow[] = "block_row"; // i32 [M / 64] (half blocks)
/// pullRows: the pool's rows and scales as pointers, the layout's tables,
/// the source ranks' inputs and the pull counters (the names of the regions
/// they are bound to, as moe_pull names them).
inline constexpr char kParamPool[] = "l1_pool";             // i8 [M, K]
inline constexpr char kParamPoolScales[] = "l1_pool_sf";    // f32 [K/sf, M]
inline constexpr char kParamSrcTokenIndex[] = "src_token_index"; // i32
inline constexpr char kParamPoolRowStart[] = "pool_row_start";   // i32
inline constexpr char kParamX[] = "x";                      // i8 [T, K]
inline constexpr char kParamXScales[] = "x_sf";             // f32 [T, K/sf]
inline constexpr char kParamTopkWeights[] = "topk_weights"; // f32 [T, topk]
inline constexpr char kParamPullArrivals[] = "pull_arrivals"; // u32 [M / 64]
inline constexpr char kParamPullWaits[] = "pull_waits";       // u32 [M / 64]
// K-split tail: the first units' partial sums and the per-(tile, warpgroup)
// arrival counts (config::GemmProblem::kSplit).
inline constexpr char kParamSplitPartials[] = "split_partials"; // f32
inline constexpr char kParamSplitCounts[] = "split_counts";     // u32
/// The fused GEMM kernel: L2's parameters carry this prefix, and the count
/// of L2 tiles that waited per m-block.
inline constexpr char kFusedL2Prefix[] = "l2_";
inline constexpr char kParamWaits[] = "l2_waits"; // i32 [M / BLOCK_M]
/// The fused GEMM kernel's ring pool: L2 tiles done per ring slot.
inline constexpr char kParamRingDone[] = "pool_ring_done"; // u32 [slots]

/// D's columns per output panel (config::kOutputPanelBytes).
inline int64_t dPanelCols(const GroupedGemmConfig &c) {
  return config::kOutputPanelBytes / c.outBytes();
}

/// Tiles per m-block: the N tiles (config::nTiles), pairs of them with
/// SwiGLU (a tile is a pair of column blocks).
inline int64_t tilesPerMBlock(const GroupedGemmConfig &c) {
  return config::nTiles(c.n, c.blockN) / (c.swiglu ? 2 : 1);
}

/// The kernel's parameters: types, names, bindings and TMA specs.
llvm::SmallVector<KernelParam> kernelParams(mlir::Builder &b,
                                            const GroupedGemmConfig &c,
                                            const GroupedGemmBinds &binds);

/// One CTA per SM, never more CTAs than tiles when the tile count is a
/// compile-time constant (static M).
llvm::SmallVector<mlir::Attribute, 3> kernelGrid(mlir::Builder &b,
                                                 const GroupedGemmConfig &c);

} // namespace megamoe::gemm

#endif // MEGAMOE_LIB_KERNELS_GROUPEDGEMMPARAMS_H
