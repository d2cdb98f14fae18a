//===- Heuristics.h - plain functions of the shape behind a Plan -*- C++
//-*-===//
//
// Each choice `makePlan` makes is one function here, so that the runtime can
// re-evaluate a choice for the actual token count (e.g. experts per wave) and
// tests can pin each one. The reason for every threshold is beside it in
// Heuristics.cpp / SharedMemory.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONFIG_HEURISTICS_H
#define MEGAMOE_CONFIG_HEURISTICS_H

#include "megamoe/Config/Plan.h"
#include "megamoe/Config/SmemModel.h"

namespace megamoe::config {

/// Tokens each local expert receives under balanced routing when every rank
/// sends `tokensPerRank` tokens: tokensPerRank * R * K / E.
double expectedTokensPerExpert(const LayerConfig &config,
                               int64_t tokensPerRank);

/// A BLOCK_M bucket: used while expected tokens/expert <= maxExpectedTokens.
struct BlockMBucket {
  double maxExpectedTokens; // +inf for the last bucket
  int64_t blockM;
  MathMode mathMode;
};

/// The buckets for an L1-output requantization block of 128 or 64 channels.
std::vector<BlockMBucket> blockMBuckets(int64_t requantBlock);

/// Largest per-rank token count whose expected tokens/expert stays within
/// `maxExpectedTokens` (T itself for an unbounded bucket).
int64_t maxTokensForExpected(const LayerConfig &config,
                             double maxExpectedTokens);

/// Default math mode for a BLOCK_M (the buckets' choice when no override).
MathMode defaultMathMode(int64_t blockM, int64_t requantBlock);

/// L1 BLOCK_N: weight rows per tile (gate/up interleaved, so N/2 outputs).
int64_t defaultL1BlockN(int64_t requantBlock);
/// L2 BLOCK_N: output channels per tile.
int64_t defaultL2BlockN(const LayerConfig &config, MathMode mode);
/// The schedule megamoe-plan's schedule=auto takes for a variant of
/// `blockM` rows: of the schedules that megamoe-expand builds, the one
/// measured fastest on the layer's chip: on sm_90a fused-gemm at BLOCK_M 64,
/// split at 128, with or without an expert's m-blocks sharing its weights
/// (Heuristics.cpp has the numbers and why fused-gemm is not planned below
/// sharedWeightsMinTokens); elsewhere the unfused reference.
Schedule fastestBuiltSchedule(const LayerConfig &config, int64_t blockM);

/// The stage-kernel schedules' (unfused, split, fused-gemm) GEMM BLOCK_N:
/// 256 where the schedule's epilogue and the chip build it (the unfused L1
/// GEMM; the unfused and split L2 GEMM) and N allows, else 128 (measured
/// reason in Heuristics.cpp). PlanRules.cpp checks the same conditions.
int64_t stageL1BlockN(const LayerConfig &config, Schedule schedule);
int64_t stageL2BlockN(const LayerConfig &config, Schedule schedule);
/// Pool rows each expert's segment is padded to in a variant of BLOCK_M
/// `blockM` (Variant::expertAlign): blockM, or 64 for a 128-row variant whose
/// experts' last m-block may be a 64-row half block.
int64_t stageExpertAlign(const LayerConfig &config, Schedule schedule,
                         int64_t blockM);
/// Whether variant `v` (its BLOCK_M and expert alignment already chosen) of
/// a plan of `schedule` pulls its own pool rows in its L1 kernel
/// (Variant::l1Pull). PlanRules.cpp checks where it is allowed.
bool stageL1Pull(const LayerConfig &config, Schedule schedule,
                 const Variant &v);
/// Whether variant `v` of a plan of `schedule` can run its L1 pairs as one
/// mainloop pass each (Variant::l1PairStages): a split L1 kernel with the
/// SwiGLU epilogue at BLOCK_M 128 on sm_90a, without a K-split. The one
/// condition PlanRules.cpp and the planner both ask.
bool l1PairStagesApply(const LayerConfig &config, Schedule schedule,
                       const Variant &v);
/// Whether it does (Variant::l1PairStages), where it applies.
bool stageL1PairStages(const LayerConfig &config, Schedule schedule,
                       const Variant &v);
/// Whether variant `v` of a plan of `schedule` can compute its L2 GEMM in
/// expert blocks (Variant::l2ExpertBlocks): the split schedule's L2 GEMM at
/// BLOCK_M 128 with half blocks (expert-align 64) on sm_90a, without a
/// K-split. The one condition PlanRules.cpp and the planner both ask.
bool l2ExpertBlocksApply(const LayerConfig &config, Schedule schedule,
                         const Variant &v);
/// Whether it does (Variant::l2ExpertBlocks), where it applies.
bool stageL2ExpertBlocks(const LayerConfig &config, Schedule schedule,
                         const Variant &v);
/// Whether variant `v` of a plan of `schedule` can run its L1 kernel in
/// clusters of 2 (Variant::l1Cluster): the split schedule's BLOCK_M 128 L1
/// kernel with half blocks on sm_90a, without a K-split or the L1 pull.
/// The plan-wide conditions (the worst-case pool, untiled L1 weights) are
/// PlanRules.cpp's "l1-cluster".
bool l1ClusterApply(const LayerConfig &config, Schedule schedule,
                    const Variant &v);
/// Whether it does (Variant::l1Cluster), where it applies.
bool stageL1Cluster(const LayerConfig &config, Schedule schedule,
                    const Variant &v);
/// Whether the plan's L1 weights are in the tiled kernel layout
/// (Plan::l1WeightTiles). PlanRules.cpp checks where it is allowed.
bool stageL1WeightTiles(const LayerConfig &config);
/// The fused-gemm kernel's wave order for variant `v` (Variant::waveMBlocks
/// and waveLag): {0, 1} for the phase order.
std::pair<int64_t, int64_t> fusedGemmWaveOrder(const LayerConfig &config,
                                               Schedule schedule,
                                               const Variant &v);
/// The K-split of variant `v`'s grouped GEMMs (Variant::kSplit): 1 = none.
int64_t stageKSplit(const LayerConfig &config, Schedule schedule,
                    const Variant &v);
/// The most tiles a K-split tail of `kSplit` units per tile splits on a grid
/// of `numSMs` CTAs: the last wave's r tiles are split only when r * kSplit
/// <= (kSplit - 1) * numSMs (warpspec.tile_loop k_split). What the layer's
/// split_partials and split_counts regions are sized for.
int64_t kSplitTiles(int64_t numSMs, int64_t kSplit);

/// SMs of the chip's reference part (H200/H100 SXM: 132; B200: 148).
int64_t defaultNumSMs(Chip chip);

/// Default setmaxnreg targets.
RegisterBudget defaultRegisters();

/// Registers per thread at launch for `threads` threads at one CTA per SM of
/// `chip`.
int64_t entryRegisters(Chip chip, int64_t threads);

/// Registers a math thread needs for a 64 x `warpgroupN` FP32 tile held twice
/// (wgmma accumulator + promoted sum) plus the estimated working set.
int64_t mathRegistersNeeded(int64_t warpgroupN);
constexpr int64_t kMathWorkingRegisters = 64;

/// The dispatch pull chunk: a token row is copied in chunks of at most 4 KiB.
int64_t pullChunkBytes(int64_t hidden);

/// Shared memory of one variant, in bytes.
struct SharedMemoryUsage {
  int64_t expertCounts = 0; // dispatch: per-expert token counts
  int64_t pullBuffers = 0;  // dispatch: one row chunk per dispatch warp
  int64_t staging = 0;      // L1 FP8 (double-buffered) / L2 BF16 store tile
  int64_t amaxExchange = 0; // cross-warpgroup row amax (CooperativeN)
  int64_t fixed = 0;        // sum of the above
  int64_t stageA = 0, stageB = 0, stageScales = 0, stageBarriers = 0;
  int64_t perStage = 0;
  int64_t otherBarriers = 0;  // dispatch pull + combine double-buffer
  int64_t combineStaging = 0; // reuses fixed + stage memory after L2
  int64_t total = 0;          // at variant.stages
  /// The regions above as laid out (layoutSmem), combine staging excepted.
  std::vector<SmemRegionPlan> regions;
};
SharedMemoryUsage sharedMemoryUsage(const LayerConfig &config,
                                    const RoleLayout &roles,
                                    const Variant &variant);

/// Most pipeline stages that fit the chip's shared memory per block (may be
/// < 2).
int64_t maxStagesThatFit(const LayerConfig &config, const RoleLayout &roles,
                         const Variant &variant);

/// N blocks per raster group of a grouped GEMM's tile order (m-blocks within
/// a group, n-blocks fastest): all N blocks (m-major) unless one expert's
/// weights crowd the L2, then 8 (or all of fewer; the last raster may be
/// narrower).
int64_t gemmRasterGroupN(int64_t n, int64_t k, int64_t blockN);

/// The grouped GEMM's tile rows when not given (megamoe-grouped-gemm's
/// block-m=0), for experts of about `rowsPerExpert` rows each (0: not
/// known): swap-AB tiles of 16 or 32 rows for decode sizes on sm_90a, else
/// BLOCK_M 128.
struct GroupedGemmRows {
  int64_t blockM = 128;
  bool swapAB = false;
};
GroupedGemmRows groupedGemmRows(Chip chip, int64_t rowsPerExpert);

/// The grouped GEMM's BLOCK_N when not given (megamoe-grouped-gemm's
/// block-n=0): 256 where it is built (sm_90a, BLOCK_M 64 or 128, no SwiGLU
/// or combine-scatter epilogue, N a multiple of 256), else 128. The layer
/// schedules set their own (Variant::l1BlockN / l2BlockN).
int64_t groupedGemmBlockN(Chip chip, int64_t blockM, int64_t n, bool swiglu,
                          bool combineScatter);
struct GemmProblem; // KernelPlan.h

/// The stage count for a K loop unrolled over the stages: `fit` (the most
/// that fit) or `fit` - 1, whichever divides `kBlocks` (at least 4), else
/// `fit` (the loop then stays rolled).
int64_t unrolledStageCount(int64_t fit, int64_t kBlocks);

/// The standalone grouped GEMM's cluster size when not given (cluster-m=0):
/// 2 for a BLOCK_M 128 x BLOCK_N 256 TMA-store GEMM on sm_90a with M given
/// at launch, else 1.
int64_t groupedGemmClusterM(const GemmProblem &problem);
/// Whether the math warps read the weight scales one K block ahead when not
/// given (scale-prefetch=-1): for the BLOCK_N 256 tile, not for 128.
bool groupedGemmScalePrefetch(const GemmProblem &problem);
/// The TMA warps when not given (tma-warps=-1; GemmProblem::tmaWarps): one
/// for the BLOCK_N 256 cluster-2 tile, else four (measured reason in
/// Heuristics.cpp).
int64_t groupedGemmTmaWarps(const GemmProblem &problem);

/// Whether a SwiGLU grouped GEMM (the split schedule's L1) of BLOCK_M rows
/// gives its two math warpgroups one column block each (KernelPlan::splitN)
/// instead of 64 rows each (measured reason in Heuristics.cpp).
bool swigluSplitColumns(int64_t blockM);

/// Whether the split schedule's variant `v` computes SwiGLU + requant in
/// its L1 GEMM's epilogue (moe_l1_swiglu) or, as the unfused schedule does,
/// in moe_activation after an L1 GEMM that stores h (measured reason in
/// Heuristics.cpp). Compiler, buffer layout and printer all ask this.
bool splitFusesActivation(const LayerConfig &c, const Variant &v);

/// Pool rows are allocated in multiples of every BLOCK_M (32, 64, 128).
constexpr int64_t kPoolAlignment = 128;

/// The unfused schedule's BLOCK_M (pool block and grouped-GEMM tile rows):
/// 64 (one math warpgroup) while an expert expects at most 64 rows
/// (T x R x K / E under balanced routing), i.e. up to
/// unfusedSmallBlockMaxTokens tokens per rank, else 128 (two warpgroups).
int64_t unfusedSmallBlockMaxTokens(const LayerConfig &config);
/// The fewest tokens per rank at which an expert's m-blocks share its
/// weight tiles by default (l1-cluster, l2-expert-blocks): below, the
/// BLOCK_M 128 range is a variant of its own without them.
int64_t sharedWeightsMinTokens(const LayerConfig &config);
int64_t unfusedBlockM(const LayerConfig &config);

/// Pool rows needed when every token of every rank may land on this rank's
/// experts (no ring): R*T*min(K, E/R) plus per-expert padding to BLOCK_M.
int64_t worstCasePoolTokens(const LayerConfig &config, int64_t maxBlockM);

/// The stage-kernel plans' pool rows: the worst case, or where every
/// variant can run a ring (fused-gemm with l1-pull and a wave order,
/// PlanRules.cpp "stage-kernels-worst-case-pool") a ring of
/// kFusedGemmRingMBlocks m-blocks of the largest BLOCK_M, if smaller.
constexpr int64_t kFusedGemmRingMBlocks = 256;
int64_t stagePoolTokens(const LayerConfig &config, const Plan &plan);

/// The default pool: a ring of two pool blocks per SM, or the worst case when
/// that is smaller.
int64_t defaultPoolTokens(const LayerConfig &config, int64_t numSMs,
                          int64_t maxBlockM);

/// Experts per scheduler wave for a call with `tokensPerRank` tokens.
int64_t expertsPerWave(const LayerConfig &config, const Variant &variant,
                       int64_t tokensPerRank, int64_t numSMs,
                       int64_t poolTokens);

} // namespace megamoe::config

#endif // MEGAMOE_CONFIG_HEURISTICS_H
