//===- GroupedGemm.h - the FP8 block-scaled grouped GEMM kernel -*- C++ -*-===//
//
// Builds, in the warpspec dialect, a persistent warp-specialized grouped GEMM
// for SM90 (the building block of both MoE GEMMs, and the kernel of the split
// and unfused schedules). DeepGEMM's sm90 FP8 "1D2D" m-grouped contiguous GEMM
// is the behavioural model.
//
// Data (M = M_total, the padded row count, a launch-time value):
//   A   fp8 e4m3 [M, K]           rows grouped by expert, each group padded to
//                                 BLOCK_M (padding rows are computed, ignored)
//   SFA f32 [K/128, M]            per token per 128 K, MN-major so that one
//                                 TMA box of BLOCK_M floats feeds one stage
//   B   fp8 e4m3 [E, N, K]        K-major weights, seen by TMA as [E*N, K]
//   SFB f32 [E, N/128, K/128]     128x128 block scales, read from global
//                                 (interleaved: [E, N/128, K/128, 2], below)
//   D   bf16 [M, N] (or f32)
//   block_expert i32 [M/BLOCK_M]  the expert of each row block
//   num_m_blocks                  row blocks to compute (<= M / BLOCK_M): an
//                                 i32 parameter, or a pointer to an i32 in
//                                 global memory written by an earlier kernel
//
// Options for the layer schedules (GroupedGemmConfig):
//   outType "f32"        D in FP32 (SMEM tile of 32-column 128B-swizzled
//                        panels, one TMA store per panel).
//   bScaleInterleave 8   B rows interleaved by 8 between two halves (SwiGLU
//                        gate/up, runtime/.../WeightTransform.h): each 128-row
//                        block has two scales per K block, SFB
//                        [E, N/128, K/128, 2], one 8-byte load per tile and K
//                        block; row r of a block uses scale (r / 8) % 2.
//   deviceMBlocks        num_m_blocks is read from global memory at kernel
//                        start (clamped to [0, M / BLOCK_M]).
//   staticM > 0          M is this literal: TMA shapes/strides are constants
//                        and the grid min(num_sms, tiles) (a layer module,
//                        which has no runtime symbol, can hold the kernel).
//   combineScatter       (bf16, staticM > 0; the layer's L2 GEMM) no D: each
//                        output row goes straight to its source rank's
//                        combine buffer (below), so the NVLink traffic of the
//                        combine overlaps the GEMM.
//   swiglu               (bScaleInterleave 8, staticM > 0, deviceMBlocks; the
//                        split schedule's L1 GEMM) no D: a tile is a pair of
//                        adjacent BLOCK_N column blocks, computed one after
//                        the other; its BLOCK_N activation columns
//                        silu(gate) x up x row_weight[row] (MoeMath) are
//                        requantized with one scale per row (amax / 448) and
//                        stored as e4m3 by TMA (`out`, [M, N / 2], 64 x 64
//                        boxes, 64B swizzle), the scales to
//                        out_scales[pair][row] ([N / 2 / 128, M] f32): the
//                        bytes moe_activation writes from an f32 D.
//   swigluPairStages     (swiglu, BLOCK_M 128, sm_90a) the pair is one
//                        mainloop pass: both column blocks in each stage
//                        (B as two 128-row boxes, A once per tile) and
//                        every math warpgroup computes both, promoted in
//                        halves as at BLOCK_N 256; then each block's SwiGLU.
//                        Same products, same K order: bitwise equal.
//   pullRows             (swiglu; the split schedule's L1 kernel with
//                        Variant::l1Pull) warps 0-1 are a dispatch role that
//                        copies the pool rows (PoolPull collective) in row
//                        order, each row's lane 0 releasing its 64-row unit's
//                        arrival; TMA warps 2-3 (A + A scales; B), the A
//                        warp waiting per m-block for its units' rows
//                        (docs/SplitSchedule.md, "The pull in the L1 kernel").
//
// Combine scatter: parameters pool_source i32 [M, 3] (source rank, token,
// slot of every row; rank < 0 = padding), combine bf16 [K', T, N] (this
// rank's combine region; K' = combineTopk, T = combineTokens) and
// peer_offsets i64 [R] (warpspec.peer.ptr) replace the D descriptor. After
// acc.store and the warpgroup's named barrier, the warpgroup's 128 threads
// read its 64 rows back from the swizzled SMEM tile (16 threads per row, one
// 16-byte chunk each) and store each valid row's BLOCK_N columns to rank r's
// combine[slot][token][n0 ...] with 16-byte stores; padding rows and rows
// whose (rank, token, slot) is out of range are skipped. Each math thread
// ends with fence.sc.sys so the remote stores are visible before the next
// kernel's cross-rank barrier.
//
// clusterM 2 (sm_90a; the standalone GEMM and the layer's L1 SwiGLU GEMM,
// whose stores a cluster's duplicate m-block skips): clusters of 2 CTAs compute
// m-blocks (2g, 2g + 1) at the same n-block; when both belong to one expert
// each loads one 64-row half of each 128-row B column block multicast to
// both (docs/Collectives.md, "Cluster of 2"). Same results, bitwise.
// scalePrefetch: the math warps read K block k + 1's weight scales during K
// block k (carried in registers). Same results, bitwise.
// BLOCK_N 256 (sm_90a; not with swiglu or combine-scatter; the default of
// megamoe-grouped-gemm where N allows, config::groupedGemmBlockN): each math
// warpgroup computes its 64 x 256 as two column blocks of 128 per K block
// (wgmma m64n128 into one scratch accumulator, promoted with the block's
// weight scale before the next block's wgmma reuses the registers), B comes
// as two 128-row boxes per stage, and the epilogue stores the tile in 64-
// column pieces through a [BLOCK_M, 64] SMEM tile (room for 4 stages).
//
// swapAB (sm_90a, BLOCK_M 16 or 32, BLOCK_N 128; decode sizes): each math
// warpgroup's wgmma takes its 64 weight rows as M and the tile's BLOCK_M
// rows as n, promotes by column, and stores the accumulator transposed
// (one TMA box of BLOCK_M rows x 64 columns per warpgroup). Bitwise equal
// to BLOCK_M 64 (docs/Collectives.md, "Swap-AB for decode tiles").
//
// Tiles: (m-block, n-block) pairs in groups of G (8, 4, 2 or 1) n-blocks,
// m-blocks within a group, n-blocks fastest (L2 reuse), handed out
// round-robin to a persistent grid of one CTA per SM.
//
// Roles (threads = 128 * (1 + BLOCK_M / 64)):
//   tma   warps [0, 4), 40 registers: one thread streams A, SFA and B tiles of
//         BLOCK_K = 128 through a `stages`-deep pipeline (128B swizzle).
//   mathI warps [4 + 4I, 8 + 4I), 232 registers, I < BLOCK_M / 64: rows
//         [64 I, 64 I + 64) of the tile. Per K block: wgmma e4m3 into a fresh
//         accumulator, wait, release the stage, promote into the FP32 total
//         with sa[row] * sb (CUDA cores). Epilogue: BF16 into its rows of the
//         128B-swizzled SMEM tile (64-column panels, conflict-free stores),
//         then one TMA store of 64 x 64 per panel, the panels a ring of
//         slots (a panel's writes wait only for the store that last read
//         its slot).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_KERNELS_GROUPEDGEMM_H
#define MEGAMOE_KERNELS_GROUPEDGEMM_H

#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Kernels/KernelBuilder.h"
#include "megamoe/Kernels/Profile.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mlir {
class ModuleOp;
class OpBuilder;
class Location;
} // namespace mlir

namespace megamoe {

/// The compile-time configuration of one grouped-GEMM variant: the
/// problem of lib/Config (every field and option: config::GemmProblem; the
/// options are described in this header's comment) and what the builder asks
/// of it.
struct GroupedGemmConfig : config::GemmProblem {
  static constexpr int64_t kBlockK = config::kGroupedGemmBlockK;
  GroupedGemmConfig() = default;
  explicit GroupedGemmConfig(const config::GemmProblem &p)
      : config::GemmProblem(p) {}
  /// The kernel plan of this config: roles, registers, stages, raster
  /// group and shared memory (config::planGroupedGemmKernel).
  config::KernelPlan plan() const;
};

/// Why `config` cannot be built (each message states the rule and the
/// offending values), or nullopt when it can.
std::optional<std::string> verifyGroupedGemmConfig(const GroupedGemmConfig &c);

/// The `megamoe.bind` of each kernel parameter (docs/UnfusedSchedule.md,
/// "Parameter binding"); empty = none (the caller passes it by name).
struct GroupedGemmBinds {
  std::string a, b, aScales, d, bScales, blockExpert, numMBlocks;
  /// With halfBlocks: each m-block's first row (bit 31: a half block); with
  /// expertBlocks: each block's first row and units (bits 30-31).
  std::string blockRow;
  /// With combineScatter (instead of d).
  std::string poolSource, combine, peerOffsets;
  /// With swiglu (instead of d).
  std::string rowWeight, out, outScales, arrivals;
  /// With pullRows: the pool's rows and scales as plain pointers (the copy's
  /// targets; row_weight and pool_source are the others), the layout's
  /// tables, the source ranks' x, x_sf and topk_weights, and the pull
  /// arrival and wait counters per 64-row unit (poolSource and peerOffsets
  /// above are bound too).
  std::string pool, poolScales, srcTokenIndex, poolRowStart, x, xScales,
      topkWeights, pullArrivals, pullWaits;
  /// With pullRows: the bound of the A loads' wait (past it the waiting
  /// thread prints what it waited for and traps), and fault injection
  /// (tests): arrivals to wait for beyond those that come.
  std::optional<int64_t> pullTimeoutCycles;
  int64_t missingPullArrivals = 0;
  /// With kSplit > 1: the partial sums and arrival counts of the split
  /// tiles, and the bound of the last unit's wait.
  std::string splitPartials, splitCounts;
  std::optional<int64_t> splitTimeoutCycles;
  /// With a value: the phase profile (docs/Profile.md), the kernel's section
  /// of the buffer; a last parameter `profile` bound to "profile".
  std::optional<ProfileSection> profile;
};

/// Appends `warpspec.kernel @kernelName` at the insertion point of `b` (inside
/// a gpu.module). Parameters, in order: a, b, a_scales, d (TMA descriptors),
/// b_scales, block_expert (pointers), num_m_blocks (i32, or a pointer with
/// deviceMBlocks), each named (`megamoe.name`) and bound as `binds` says.
/// With combineScatter there is no d; pool_source, combine and peer_offsets
/// (pointers) follow num_m_blocks. With pullRows the copy's parameters
/// follow the swiglu ones (kernelParams in GroupedGemmParams.cpp).
/// With staticM = 0 its TMA row extents are the runtime symbol M (times a
/// constant); every other launch field is a constant or the SM count. The
/// config must have passed
/// verifyGroupedGemmConfig.
void buildGroupedGemmKernel(mlir::OpBuilder &b, mlir::Location loc,
                            llvm::StringRef kernelName,
                            const GroupedGemmConfig &config,
                            const GroupedGemmBinds &binds);

/// Bindings of the fused GEMM kernel (docs/FusedSchedule.md): L1's (a
/// SwiGLU config with swigluArrivals: `arrivals` is the L2 arrival counter
/// per m-block), L2's (a combineScatter config; its parameters get the
/// "l2_" prefix, block_expert and num_m_blocks are L1's), and the counter of
/// L2 tiles that waited per m-block (`waits`, zero between calls).
struct FusedKernelFrame;

/// The fused GEMM kernel's tiles interleaved in waves of m-blocks
/// (warpspec.wave_loop; config::Variant::waveMBlocks).
struct WaveOrder {
  int64_t mBlocks = 0;
  int64_t lag = 1;
};

struct FusedGemmBinds {
  GroupedGemmBinds l1, l2;
  std::string waits;
  /// The L2 arrival wait's bound: past it the waiting thread prints what it
  /// waited for and traps (warpspec.counter.wait timeout_cycles).
  std::optional<int64_t> arrivalTimeoutCycles;
  /// Fault injection (tests): arrivals to wait for beyond those that come.
  int64_t missingArrivals = 0;
  /// The phase profile's section (GroupedGemmBinds::profile; l1's and l2's
  /// are not read).
  std::optional<ProfileSection> profile;
  /// The whole layer in the kernel (FusedKernelFrame), or null: the GEMMs
  /// alone.
  const FusedKernelFrame *frame = nullptr;
  /// L1 and L2 tiles interleaved in waves; none: every L1 tile first.
  std::optional<WaveOrder> wave;
  /// A ring pool (GemmProblem::poolLayoutRows): the L2 tiles done per ring
  /// slot, which the dispatch warps wait on before a refill.
  std::string ringDone;
};

/// What the one-kernel layer (megamoe-expand one-kernel,
/// docs/FusedSchedule.md) adds around the fused GEMM kernel's roles: more
/// parameters, code every thread runs before the roles (the dispatch) and
/// code the math warpgroups run after their last tile (the combine).
struct FusedKernelFrame {
  /// Appended to the GEMMs' parameters; a name both have must have the same
  /// binding and type (one parameter).
  llvm::SmallVector<KernelParam> params;
  /// Run by all `threads` threads of every CTA before the roles split them;
  /// the GEMMs' m-block count is read after it.
  std::function<void(mlir::OpBuilder &, const BoundKernel &, int64_t threads)>
      prologue;
  /// Run by every math thread after its last tile and the fence of its
  /// scattered rows: `thread` in [0, threads) (i32), `barrier` a named
  /// barrier of all math warpgroups.
  std::function<void(mlir::OpBuilder &, const BoundKernel &,
                     mlir::Value thread, int64_t threads, mlir::Value barrier)>
      mathEpilogue;
};

/// Appends `warpspec.kernel @kernelName`: the fused GEMM kernel, one
/// persistent launch that runs every L1 tile (SwiGLU + requant epilogue,
/// releasing the m-block's arrival) and then every L2 tile (combine
/// scatter), on one ring of SMEM stages; an L2 tile's A loads wait for its
/// m-block's L1 arrivals. `l1` and `l2` share BLOCK_M, BLOCK_N, the pool and
/// the m-block count, and must each pass verifyGroupedGemmConfig.
void buildFusedGemmKernel(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::StringRef kernelName,
                          const GroupedGemmConfig &l1,
                          const GroupedGemmConfig &l2,
                          const FusedGemmBinds &binds);

/// Appends `gpu.module @grouped_gemm` with the kernel `@grouped_gemm_fp8` to
/// `module`, and the symbols its manifest needs. The config must have passed
/// verifyGroupedGemmConfig.
void buildGroupedGemm(mlir::ModuleOp module, const GroupedGemmConfig &config);

} // namespace megamoe

#endif // MEGAMOE_KERNELS_GROUPEDGEMM_H
