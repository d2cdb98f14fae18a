//===- KernelPlan.h - what a kernel builder reads ---------------*- C++ -*-===//
//
// A KernelPlan is everything about one warp-specialized kernel that is a
// choice or a resource: launch shape, roles and their setmaxnreg targets,
// tiles, pipeline depth, tile order and the shared-memory regions with their
// total. lib/Config computes it from a GemmProblem (the shape and options of
// one grouped GEMM); the builders only read it, and `warpspec-plan-smem`
// checks that the IR's layout fits the plan's smemBytes. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONFIG_KERNELPLAN_H
#define MEGAMOE_CONFIG_KERNELPLAN_H

#include "megamoe/Config/Chip.h"
#include "megamoe/Config/LayerConfig.h"
#include "megamoe/Config/SmemModel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace megamoe::config {

struct Plan;
struct Variant;

/// The L1 weights' row interleave (the weight transform's kernel layout):
/// gate rows [16 q, 16 q + 8) and up rows [16 q + 8, 16 q + 16) of L1's
/// 2 x intermediate rows hold activation columns [8 q, 8 q + 8), so a
/// thread's accumulator fragment holds the gate and the up value of the
/// same activation column. Compiler, kernels and runtime read it here.
constexpr int64_t kGateUpInterleave = 8;
/// Rows and K bytes of one tile of the tiled L1 weight layout
/// (Plan::l1WeightTiles): weight rows [128 r, 128 r + 128) x K [128 k,
/// 128 k + 128) of an expert are one contiguous 16 KiB tile, tiles ordered
/// (row tile, K tile), so a B box of the grouped GEMM reads whole DRAM
/// pages instead of 128 bytes of each of 128 rows 4 KiB apart.
constexpr int64_t kWeightTileRows = 128;
constexpr int64_t kWeightTileK = 128;

/// Bytes of one column panel of the TMA-store epilogue: its SMEM output tile
/// is 128B-swizzled, so D goes out in panels of one swizzle span of columns
/// (64 BF16 or 32 F32), one TMA box each. Plan, epilogue and descriptors
/// read it here.
constexpr int64_t kOutputPanelBytes = 128;

/// K per pipeline stage of the grouped GEMM: one 128-wide scale block.
constexpr int64_t kGroupedGemmBlockK = 128;
/// The deepest pipeline the grouped GEMM is built with.
constexpr int64_t kGroupedGemmMaxStages = 8;

/// The B rows of one column block of a BLOCK_N tile (one wgmma n, one
/// accumulator per math warpgroup): BLOCK_N 256 is two column blocks of 128
/// computed one after the other ("promotion in halves": 2 x 128 promoted
/// registers do not fit beside a 128-register m64n256 scratch); 128 and 192
/// are one (a 192-column tile straddles two 128-row weight-scale blocks at
/// column 64 or 128 of the tile, BlockScaledMainloop's scale regions).
/// Compiler, plan and manifest read it here.
inline int64_t columnBlockRows(int64_t blockN) {
  return blockN == 256 ? 128 : blockN;
}
/// Column blocks per BLOCK_N tile (1, or 2 for BLOCK_N 256).
inline int64_t columnBlocks(int64_t blockN) {
  return blockN / columnBlockRows(blockN);
}
/// The BLOCK_N tiles over n columns: the last one is partial where BLOCK_N
/// does not divide n (BLOCK_N 192 at n 4096 or 7168: its B rows past the
/// expert's are the next expert's or TMA zero fill, its columns past n are
/// clipped by the TMA store, its missing second scale block is the first's).
inline int64_t nTiles(int64_t n, int64_t blockN) {
  return (n + blockN - 1) / blockN;
}
/// The 64-row blocks of a BLOCK_M tile that one math warpgroup computes (one
/// wgmma m64 and one accumulator each per K block): 1, or 2 for BLOCK_M 256,
/// whose two warpgroups of 128 rows compute their row blocks one after the
/// other as BLOCK_N 256's column blocks are (2 x 64 promoted + 64 scratch
/// registers; four warpgroups of 64 rows would need 5 x 128 threads and
/// leave 118 registers each, less than 2 x 64 accumulators). Compiler, plan
/// and manifest read it here.
inline int64_t warpgroupRowBlocks(int64_t blockM) {
  return blockM == 256 ? 2 : 1;
}
/// Whether a BLOCK_N tile's columns can straddle two 128-row weight-scale
/// blocks (BLOCK_N not a multiple of 128: 192).
inline bool straddlesScaleBlocks(int64_t blockN) { return blockN % 128 != 0; }

/// One grouped GEMM: D[M, N] = A[M, K] x B[expert(m), N, K]^T, FP8 block
/// scaled (include/megamoe/Kernels/GroupedGemm.h says what each option does).
/// Only given values, nothing derived.
struct GemmProblem {
  Chip chip = Chip::SM90a;
  int64_t experts = 8;
  int64_t n = 4096;
  int64_t k = 7168;
  int64_t maxM = 32768; // largest launch-time M when staticM = 0
  int64_t staticM = 0;  // > 0: M is this literal
  int64_t blockM = 128;
  int64_t blockN = 128;
  int64_t stages = 0; // 0: as many as fit (at most kGroupedGemmMaxStages)
  /// 1 (the default): a stage goes back one K block after its MMA. Lag 0
  /// without the fence measured 0.99-1.18x and 0.99-1.02x of it in two
  /// passes (c2pf, 8 x 4096 rows, one H100, bench/RESULTS.md 2026-12-07):
  /// not ahead everywhere, so not the default.
  int64_t releaseLag = 1;
  /// With release lag 0: fence the async proxy before each stage release
  /// (warpspec.consumer.release without reads_retired). False (sm_90a
  /// only): the row scales, read before the MMA, are the slot's only
  /// generic reads and the release's arrive orders them, as DeepGEMM's and
  /// CUTLASS's SM90 mainloops release their stages, with no fence.
  bool releaseFence = true;
  /// Columns of the TMA-store epilogue's SMEM output tile (0: the plan's,
  /// KernelPlan::outTileColumns): a multiple of the output panel that
  /// divides BLOCK_N. The whole BLOCK_N lets a tile's pieces go out without
  /// waiting for each other's stores to read their slots, at the price of
  /// SMEM the ring would have had.
  int64_t outTileColumns = 0;
  /// Swap-AB for a few rows per expert (decode; sm_90a, block-m 16 or 32,
  /// block-n 128): each math warpgroup's MMA takes 64 weight rows as its
  /// M side and the tile's BLOCK_M activation rows as its n, so a 16-row
  /// tile does 16 rows of MMA work instead of 64 (warpspec.mma.block_scaled
  /// swap_ab); the epilogue stores the transposed accumulator.
  bool swapAB = false;
  /// Warps of warpgroup 0 that feed the ring: 4 (A, A scales, each B
  /// column block: one TMA load and one commit each) or 1 (one warp issues
  /// every load of a stage under one commit, as DeepGEMM's producer does).
  /// The other three warps of a 1-warp producer only give their registers
  /// back. Four pollers of a full ring take issue slots from the math warps
  /// of their SM sub-partitions (Nsight, bench/RESULTS.md 2026-12-07).
  /// Not with pullRows (its warpgroup holds two TMA and two dispatch warps).
  int64_t tmaWarps = 4;
  DType out = DType::BF16; // BF16 or F32
  int64_t bScaleInterleave = 0;
  bool deviceMBlocks = false;
  bool combineScatter = false;
  int64_t combineTokens = 0, combineTopk = 0, combineRanks = 0;
  /// The SwiGLU + requantization epilogue (the L1 GEMM of the split
  /// schedule, lib/Kernels/MoeL1SwiGLU.cpp): a tile is a pair of adjacent
  /// BLOCK_N column blocks (gate/up interleaved by kGateUpInterleave), whose
  /// BLOCK_N activation columns are stored as e4m3 with one scale per row.
  bool swiglu = false;
  /// With swiglu at BLOCK_M 128 (sm_90a): both column blocks of a tile's
  /// pair share each ring stage, as one BLOCK_N 256 mainloop (A and its
  /// scales loaded once per tile, each math warpgroup computing both blocks
  /// promoted in halves), instead of the pair's two mainloops one after the
  /// other, each loading A (Variant::l1PairStages).
  bool swigluPairStages = false;
  std::optional<double> swigluClamp; // the layer's clamp (LayerConfig)
  bool fastMath = false;             // the layer's fast math (LayerConfig)
  /// With swiglu: an arrival counter per m-block, released per tile and
  /// math warpgroup (the fused kernel's L2 arrival).
  bool swigluArrivals = false;
  /// Half blocks (a layer pool whose experts are padded to 64 rows,
  /// config::Variant::halfBlocks): m-block m starts at row
  /// block_row[m] & 0x7fffffff and is a 64-row half block when bit 31 is
  /// set; block_expert holds the expert of each 64-row unit (indexed by
  /// row / 64). Math warpgroup 1 stores none of a half block's rows, and
  /// with combineScatter skips its stages (docs/UnfusedSchedule.md, "Half
  /// blocks").
  bool halfBlocks = false;
  /// Expert blocks (BLOCK_M 256, combineScatter; config::kExpertBlockRows,
  /// Variant::l2ExpertBlocks): m-block m starts at row block_row[m] & (2^30
  /// - 1) and has (block_row[m] >> 30) + 1 units of 64 rows; block_expert
  /// holds the expert of each 64-row unit, and the m-block count is
  /// element kExpertBlocksInfoIndex of the num_m_blocks pointer. Math
  /// warpgroup w computes units 2w and 2w + 1 that are present: two row
  /// blocks, one, or none (it then skips its stages).
  bool expertBlocks = false;
  /// B (the weights) in the tiled layout (kWeightTileRows x kWeightTileK
  /// contiguous tiles; Plan::l1WeightTiles): a rank-4 TMA descriptor.
  bool bWeightTiles = false;
  /// The kernel fills its own A rows (the split schedule's L1 kernel with
  /// Variant::l1Pull; swiglu only): two dispatch warps copy the pool rows
  /// (the PoolPull collective) beside two TMA warps, and an m-block's A
  /// loads wait until its 64-row units are filled (the pull arrivals;
  /// docs/SplitSchedule.md, "The pull in the L1 kernel"). The layer's
  /// shapes the copy needs: top-k, ranks, tokens per rank, the input scale
  /// block and the rows per pool_block_expert entry (experts = L, k = H,
  /// staticM = the pool's rows).
  bool pullRows = false;
  int64_t pullTopk = 0, pullRanks = 0, pullTokens = 0, pullScaleBlock = 0,
          pullAlign = 0;
  /// CTAs per cluster (1 or 2: the standalone grouped GEMM, the layer's L1
  /// kernel with Variant::l1Cluster): the two CTAs of a cluster compute
  /// adjacent m-blocks at the same n-block and, when both are one expert's,
  /// each loads half of the shared weight tile, multicast to both
  /// (docs/Collectives.md, "Cluster of 2").
  int64_t clusterM = 1;
  /// Read each K block's weight scales one K block ahead (carried in
  /// registers through the K loop) instead of just before its stage wait.
  bool scalePrefetch = false;
  /// The two math warpgroups issue their MMAs in turns (warpspec.mma.
  /// block_scaled turn/pass): K block by K block (column block by column
  /// block at BLOCK_N 256) one, then the other, so one's promotion overlaps
  /// the other's MMAs. Both must compute every tile: BLOCK_M 128, no half
  /// blocks, no K-split; sm_90a. Off unless asked: 0.95-1.01x of the same
  /// kernel without turns at 8 x 4096 and 8 x 512 rows on the four benchmark
  /// (N, K), one H200, two passes (bench/RESULTS.md 2026-12-06).
  bool mmaTurns = false;
  /// Activation (A) scales per row and K block of 128: 1, or 2 when A was
  /// requantized per 64 channels (the L2 GEMM of a layer at requant-block
  /// 64). A scales are then [K / 64, M]; each K block's product is formed
  /// and promoted per 64 K (warpspec.mma.block_scaled with [2, BLOCK_M]
  /// a_scales tiles). sm_90a only.
  int64_t aScaleGroups = 1;
  /// The SwiGLU epilogue's requantization block (swiglu): 128 activation
  /// columns (one scale per row and column-block pair) or 64 (one per
  /// column block); out_scales are [N / 2 / swigluRequantBlock, M].
  int64_t swigluRequantBlock = 128;
  /// Unroll the math warps' K loop over the pipeline stages where every
  /// tile's K blocks are a multiple of them (constant stage addresses).
  bool unrollStages = true;
  /// Also unroll the BLOCK_N 256 tile's loop (K-step descriptors
  /// rematerialized): 1.06-1.18x at 8 x 4096 and 8 x 512 rows
  /// (bench/RESULTS.md, 2026-12-01, "unroll-wide on the GPU").
  bool unrollWide = true;
  /// K-split tail (warpspec.tile_loop k_split): the last, partial wave's
  /// tiles are computed as kSplit units of K / kSplit, their partial sums
  /// handed to the last unit through `split_partials` (room for
  /// kSplitTiles tiles) and counted in `split_counts`. 1 = none.
  int64_t kSplit = 1;
  int64_t kSplitTiles = 0;
  /// With kSplit > 1 in a layer: R of pool_row_start [L, R + 1], whose
  /// [l][R] is expert l's first padding row, so that a split unit hands on
  /// only its m-block's real rows (warpspec.acc.spill rows). 0: all 64.
  int64_t poolRanks = 0;

  /// A layer pool that is a ring (config::poolWraps; the fused GEMM
  /// kernel): its rows as moe_layout numbers them, more than the staticM
  /// rows its regions hold. M-block m covers layout rows [m BLOCK_M,
  /// (m + 1) BLOCK_M), stored at those rows mod staticM. 0: no ring.
  int64_t poolLayoutRows = 0;

  /// The largest M the kernel is launched with (staticM, or maxM).
  int64_t rowCapacity() const { return staticM > 0 ? staticM : maxM; }
  /// The rows the m-blocks may cover: the layout's rows of a ring pool,
  /// else rowCapacity().
  int64_t layoutRowCapacity() const {
    return poolLayoutRows > 0 ? poolLayoutRows : rowCapacity();
  }
  /// Whether A's rows (and SwiGLU's outputs) wrap around a ring pool.
  bool poolRing() const { return poolLayoutRows > 0; }
  /// Bytes of one D element.
  int64_t outBytes() const { return out == DType::F32 ? 4 : 2; }
};

/// The B rows one mainloop pass of a tile loads per stage (the KernelPlan's
/// BLOCK_N): BLOCK_N, or a SwiGLU pair's two column blocks with
/// swigluPairStages.
inline int64_t mainloopBlockN(const GemmProblem &p) {
  return p.swiglu && p.swigluPairStages ? 2 * p.blockN : p.blockN;
}

/// The names of warpgroup 0's roles: the TMA warps that feed the ring, and
/// the dispatch warps of a kernel that pulls its rows (pullRows).
inline constexpr char kTmaRole[] = "tma";
/// Alignment of a dispatch warp's SMEM row slot (pullRows; bulk copies need
/// 16 bytes).
inline constexpr int64_t kPullRowAlignment = 128;
inline constexpr char kDispatchRole[] = "dispatch";
/// The warps of warpgroup 0 beside a 1-warp TMA role (GemmProblem::
/// tmaWarps): a role of their own, with no work, only so that they run the
/// warpgroup's setmaxnreg with it.
inline constexpr char kIdleRole[] = "idle";

/// A warp role: warps [warpBegin, warpEnd) with a setmaxnreg target.
struct RolePlan {
  std::string name;
  int64_t warpBegin = 0, warpEnd = 0;
  int64_t registers = 0;
  bool mma = false; // issues the MMAs (a math warpgroup)
};

struct KernelPlan {
  Chip chip = Chip::SM90a;
  int64_t threads = 0;
  int64_t entryRegisters = 0; // .maxnreg at launch
  std::vector<RolePlan> roles;
  int64_t blockM = 0, blockN = 0, blockK = 0;
  int64_t stages = 0;
  int64_t releaseLag = 0;
  bool releaseFence = true; // GemmProblem::releaseFence
  int64_t rasterGroupN = 0;         // N blocks per raster group (L2 reuse)
  /// The math warpgroups split the tile's columns instead of its rows: each
  /// computes all BLOCK_M (= 64) rows of its own BLOCK_N column block of a
  /// swiglu pair, so a 64-row tile has two warpgroups (twice the warps for
  /// the epilogue's math, which is latency-bound on one).
  bool splitN = false;
  /// 64-row blocks per math warpgroup (warpgroupRowBlocks: 2 at BLOCK_M
  /// 256). The output tile keeps 64 rows per warpgroup: each row block goes
  /// through them in turn.
  int64_t rowBlocks = 1;
  /// GemmProblem::swapAB: math warpgroup i computes weight rows [64 i, 64 i
  /// + 64) of the tile (BLOCK_N = 64 x math warpgroups) for all its BLOCK_M
  /// activation rows.
  bool swapAB = false;
  int64_t clusterM = 1; // CTAs per cluster (GemmProblem::clusterM)
  bool bWeightTiles = false; // GemmProblem::bWeightTiles
  bool scalePrefetch = false; // GemmProblem::scalePrefetch
  bool mmaTurns = false;      // GemmProblem::mmaTurns
  int64_t aScaleGroups = 1;   // GemmProblem::aScaleGroups
  bool unrollStages = true;   // GemmProblem::unrollStages
  bool unrollWide = true;     // GemmProblem::unrollWide
  int64_t kSplit = 1;         // GemmProblem::kSplit
  int64_t kSplitTiles = 0;    // GemmProblem::kSplitTiles
  /// Columns of the epilogue's SMEM output tile: one column block (128), or
  /// half of one for a BLOCK_N 256 combine scatter; a tile's columns go
  /// through it in turn (the TMA-store epilogue panel by panel,
  /// EpilogueTile::allocatePanels).
  int64_t outTileColumns = 128;
  std::vector<SmemRegionPlan> smem; // laid out by layoutSmem
  int64_t smemBytes = 0;            // their total

  /// Bytes of one pipeline stage (the per-stage regions' slots).
  int64_t stageBytes() const;
  /// Bytes outside the pipeline ring.
  int64_t fixedBytes() const;
  /// Math warpgroups (roles with mma).
  int64_t mathWarpgroups() const;
  /// The role that feeds the mainloop's ring ("tma"), the dispatch role
  /// of a kernel that pulls its rows and the idle warps beside a 1-warp TMA
  /// role (null without).
  const RolePlan &producerRole() const;
  const RolePlan *dispatchRole() const;
  const RolePlan *idleRole() const;
  /// The role named `name`, or null.
  const RolePlan *findRole(const std::string &name) const;
  /// TMEM columns the MMA warpgroups' per-K-block partials take on a chip
  /// with tensor memory (sm_100a: one 64 x BLOCK_N f32 partial per MMA
  /// warpgroup, docs/SM100.md); 0 on a chip without TMEM.
  int64_t tmemColumns() const;
  /// Whether the tile can run its math warps' K loop unrolled over the
  /// stages at all: sm_90a, unrollStages, and one column block per
  /// warpgroup (two only with unrollWide).
  bool unrollEligible() const;
  /// Whether it does for a GEMM of inner size `k` (and a second one of
  /// `otherK` on the same ring, 0 if none): eligible, and every tile of both
  /// consumes a multiple of the stages, so each starts at stage 0. The
  /// mainloop builder and the manifest's UNROLL_STAGES symbol ask it.
  bool unrollsStages(int64_t k, int64_t otherK = 0) const;
};

/// The plan of the grouped GEMM `problem` (whose shape must have passed
/// verifyGroupedGemmConfig): role "tma" (warps 0-3) and one "math<i>"
/// warpgroup per 64 x warpgroupRowBlocks rows (128 threads each), the most
/// stages that fit when problem.stages is 0, the L2 raster group of
/// gemmRasterGroupN.
KernelPlan planGroupedGemmKernel(const GemmProblem &problem);

/// The plan of the fused GEMM kernel (docs/FusedSchedule.md): the SwiGLU
/// GEMM `l1`'s roles and ring, whose stages also carry the tiles of `l2`
/// (same BLOCK_M, BLOCK_N and BLOCK_K), plus l2's output tile; the most
/// stages that fit both epilogues.
KernelPlan planFusedGemmKernel(const GemmProblem &l1, const GemmProblem &l2);

/// Every resource rule `plan` breaks on its chip (shared memory, stages,
/// register targets and budget), each as a sentence; empty when it fits.
std::vector<std::string> validateKernelPlan(const KernelPlan &plan);

/// The two grouped GEMMs of a layer.
enum class LayerGemm { L1, L2 };

/// The grouped GEMM of `gemm` for `variant` of `plan`
/// (docs/UnfusedSchedule.md): L1 has N = 2 x intermediate (gate/up rows
/// interleaved by 8, two weight scales per 128-row block), K = hidden and F32
/// out; L2 has N = hidden, K = intermediate and scatters its BF16 rows to the
/// source ranks' combine buffers. Both tile by the variant, take M = the pool's
/// rows (static) and read their m-block count from device memory.
GemmProblem layerGemmProblem(const LayerConfig &config, const Plan &plan,
                             const Variant &variant, LayerGemm gemm);

} // namespace megamoe::config

#endif // MEGAMOE_CONFIG_KERNELPLAN_H
