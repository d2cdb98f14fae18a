//===- Plan.h - the kernel configuration chosen for a layer -----*- C++ -*-===//
//
// A Plan is what `megamoe-plan` attaches to a layer (#megamoe.plan) and what
// the runtime reads back from the manifest: launch shape, warp roles, register
// budgets, and one Variant per BLOCK_M bucket that the layer may select at run
// time from the per-call token count. Plain C++17, no MLIR/LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONFIG_PLAN_H
#define MEGAMOE_CONFIG_PLAN_H

#include "megamoe/Config/LayerConfig.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace megamoe::config {

/// How the layer is split into kernels (DESIGN.md section 2).
enum class Schedule {
  Fused,  // one persistent kernel: dispatch .. combine
  Split,  // dispatch + L1 + SwiGLU, then L2 + combine (two launches)
  Unfused, // one kernel per stage (the bitwise reference schedule)
  // The fused schedule's GEMM part as built today: dispatch and combine in
  // their own kernels around one persistent kernel for L1 + SwiGLU + L2
  // (docs/FusedSchedule.md).
  FusedGemm
};

/// Whether `s` is built as kernels per stage around the generated grouped
/// GEMM (unfused, split, fused-gemm): those plan as the unfused schedule
/// (variants, GEMM tiles, worst-case pool).
inline bool buildsStageKernels(Schedule s) { return s != Schedule::Fused; }

/// How the math warpgroups share a CTA tile (wgmma is m64 per warpgroup).
enum class MathMode {
  CooperativeM, // 2 WGs split BLOCK_M (rows 0-63, 64-127), share the B tile
  CooperativeN, // 2 WGs split BLOCK_N, share the A tile (DeepGEMM #360)
  Single        // 1 WG owns the tile, the other WG idles
};

/// setmaxnreg targets, registers per thread (multiples of 8 in [24, 256]).
struct RegisterBudget {
  int64_t producer = 0; // WG0: dispatch + TMA warps
  int64_t math = 0;     // each working math warpgroup
  int64_t idle = 0;     // the math warpgroup that idles in Single mode
};

/// The warp roles of the 384-thread SM90 kernel (DESIGN.md section 4).
struct RoleLayout {
  int64_t threads = 384;
  int64_t dispatchWarpBegin = 0, dispatchWarpEnd = 2; // [begin, end)
  int64_t tmaAWarp = 2;                               // activations + their SF
  int64_t tmaBWarp = 3;                               // weights
  int64_t mathWarpgroupBegin = 1, mathWarpgroupEnd = 3; // WG1, WG2
};

/// One kernel variant: serves per-call token counts in [minTokens, maxTokens].
struct Variant {
  int64_t minTokens = 0, maxTokens = 0; // tokens on this rank, inclusive
  int64_t blockM = 0;                   // pool rows per tile (= pool block)
  /// Pool rows each expert's segment is padded to: blockM, or 64 with
  /// BLOCK_M 128, where an expert's last m-block is then a 64-row half
  /// block when its rows fit (docs/UnfusedSchedule.md, "Half blocks").
  int64_t expertAlign = 0;
  /// Whether the variant's L1 kernel fills its own pool rows (dispatch
  /// warps beside the TMA warps; no moe_pull): its L1 loads wait on each
  /// 64-row unit's pull arrivals (docs/SplitSchedule.md, "The pull in the
  /// L1 kernel"). Split schedule only.
  bool l1Pull = false;
  /// Whether the variant's split L1 kernel (SwiGLU, BLOCK_M 128, sm_90a)
  /// runs a tile's pair of column blocks as one BLOCK_N 256 mainloop pass
  /// (both blocks in each ring stage, A loaded once) instead of two passes
  /// (GemmProblem::swigluPairStages; docs/SplitSchedule.md).
  bool l1PairStages = false;
  /// Whether the variant's L2 GEMM (the split schedule's moe_l2_gemm, with
  /// half blocks) computes expert blocks: 256-row tiles of one expert's
  /// 64-row units, each warpgroup two row blocks, absent units skipped
  /// (config::kExpertBlockRows; docs/SplitSchedule.md, "Expert blocks"),
  /// instead of one 128-row tile per m-block, which reads the expert's
  /// weights once per m-block.
  bool l2ExpertBlocks = false;
  /// Whether the variant's L1 kernel (the split schedule's moe_l1_swiglu,
  /// BLOCK_M 128 with half blocks) runs in clusters of 2 CTAs that compute
  /// two m-blocks at the same column blocks and, where both are one
  /// expert's, share its weight tiles by TMA multicast; moe_layout then
  /// orders the block table so that an expert's m-blocks pair up
  /// (docs/SplitSchedule.md, "The L1 kernel in clusters of 2"). Without
  /// it each m-block reads its expert's weights on its own.
  bool l1Cluster = false;
  /// Units the grouped GEMMs split each tile of their last, partial wave
  /// into along K (1 = none; warpspec.tile_loop k_split), so that the SMs
  /// that wave would leave idle stream weights too. Stage kernels of the
  /// unfused and split schedules at BLOCK_M 64 only (PlanRules.cpp).
  int64_t kSplit = 1;
  /// The fused-gemm kernel's tile order (warpspec.wave_loop): 0 walks every
  /// L1 tile, then every L2 tile; W > 0 interleaves them in waves of W
  /// m-blocks, each wave's L2 tiles after the L1 tiles of the `waveLag`
  /// waves that follow it (docs/FusedSchedule.md, "Wave order").
  int64_t waveMBlocks = 0;
  int64_t waveLag = 1;
  /// The variant's own schedule where it differs from the plan's (a plan
  /// of stage-kernel schedules may mix split and fused-gemm variants:
  /// megamoe-plan schedule=auto picks per BLOCK_M, config::
  /// fastestBuiltSchedule); unset: the plan's (scheduleOf).
  std::optional<Schedule> schedule;
  int64_t l1BlockN = 0; // L1 weight rows (gate/up interleaved) per tile
  int64_t l2BlockN = 0; // L2 output channels per tile
  int64_t blockK = 0;   // K per pipeline stage
  int64_t stages = 0;   // SMEM pipeline depth
  int64_t expertsPerWave = 0;
  MathMode mathMode = MathMode::CooperativeM;
  RegisterBudget registers;
  int64_t smemBytes = 0; // dynamic shared memory of the kernel

  /// Math warpgroups that compute (2 when cooperative, 1 when single).
  int64_t activeMathWarpgroups() const;
  /// Whether an expert's last m-block may be a 64-row half block.
  bool halfBlocks() const { return expertAlign > 0 && expertAlign < blockM; }
  /// Whether an expert's m-blocks share its weight tiles (l1Cluster or
  /// l2ExpertBlocks): the plan's variant from sharedWeightsMinTokens, whose
  /// kernels are named apart from its BLOCK_M's other variant.
  bool sharesWeights() const { return l1Cluster || l2ExpertBlocks; }
  /// wgmma N of one warpgroup on the L1 and L2 GEMMs.
  int64_t l1WarpgroupN() const;
  int64_t l2WarpgroupN() const;
};

struct Plan {
  Chip chip = Chip::SM90a;
  int64_t numSMs = 0; // persistent grid: one CTA per SM
  Schedule schedule = Schedule::Fused;
  RoleLayout roles;
  int64_t entryRegisters = 0; // registers per thread at launch (.maxnreg)
  int64_t requantBlock = 128; // copied from the recipe for the kernel
  /// Token-pool capacity in rows (a ring when smaller than the worst case).
  int64_t poolTokens = 0;
  /// The L1 weights' kernel layout (what the runtime's transform_l1 writes
  /// and the L1 GEMMs' B descriptor reads): row-major [L x 2I, H] (false) or
  /// tiled, 128 x 128 contiguous tiles (config::kWeightTileRows), which a
  /// plain read kernel streamed 7% faster (bench/RESULTS.md 2026-12-03).
  bool l1WeightTiles = false;
  std::vector<Variant> variants; // ascending BLOCK_M buckets, contiguous
};

/// The schedule variant `v` of `plan` runs: its own, or the plan's.
inline Schedule scheduleOf(const Plan &plan, const Variant &v) {
  return v.schedule.value_or(plan.schedule);
}
/// Whether some variant of `plan` runs schedule `s`.
bool anyVariantRuns(const Plan &plan, Schedule s);

/// The pool's rows as moe_layout numbers them: the worst case for the
/// plan's largest BLOCK_M (the extent of the block tables and of the
/// layout's overflow check). The pool's data regions hold plan.poolTokens
/// rows; where that is fewer (poolWraps) layout row r is stored at row
/// r mod poolTokens and the fused GEMM kernel's dispatch warps wait before
/// they refill a ring slot (docs/FusedSchedule.md, "The dispatch warps and
/// the pool ring").
int64_t poolLayoutRows(const LayerConfig &config, const Plan &plan);
/// Whether the pool is a ring: plan.poolTokens below poolLayoutRows.
bool poolWraps(const LayerConfig &config, const Plan &plan);
/// Why variant `v` of `plan` cannot run a ring pool of `poolTokens` rows,
/// or empty: a ring needs the fused-gemm kernel with l1-pull (its dispatch
/// warps wait for a slot's last L2 tile before refilling it), whole
/// m-blocks, and a wave order with at least (lag + 1) x wave-m-blocks
/// m-blocks of ring, so that those L2 tiles come before the L1 tiles that
/// need the refill. The planner (stagePoolTokens) and the plan rule ask it.
std::string ringRefusal(const Plan &plan, const Variant &v, int64_t poolTokens);

/// Typed overrides of every chosen value (the megamoe-plan pass options).
/// An unset field keeps the heuristic; a set one applies to every variant.
struct PlanOverrides {
  std::optional<int64_t> blockM; // one variant for all token counts
  std::optional<int64_t> l1BlockN, l2BlockN, blockK, stages, expertsPerWave;
  std::optional<int64_t> expertAlign;
  std::optional<bool> l1Pull;
  std::optional<bool> l1PairStages;
  std::optional<bool> l2ExpertBlocks;
  std::optional<bool> l1Cluster;
  std::optional<bool> l1WeightTiles;
  std::optional<int64_t> kSplit;
  std::optional<int64_t> waveMBlocks, waveLag;
  std::optional<int64_t> numSMs;
  std::optional<Schedule> schedule;
  /// schedule=auto: each BLOCK_M variant takes the schedule measured
  /// fastest for it (config::fastestBuiltSchedule), `schedule` being the
  /// plan's (that of its largest BLOCK_M).
  bool schedulePerVariant = false;
  std::optional<MathMode> mathMode;
  std::optional<int64_t> producerRegisters, mathRegisters;
  /// Pool rows; 0 = the full worst-case pool (no ring).
  std::optional<int64_t> poolTokens;
};

/// Chooses a plan for `config` (which must be valid) with `overrides` applied.
/// Returns every reason the result cannot work (an override that does not fit
/// SMEM or registers, an unsupported chip); `plan` is filled either way.
std::vector<std::string> makePlan(const LayerConfig &config,
                                  const PlanOverrides &overrides, Plan &plan);

/// Every rule `plan` breaks for `config` (fit, alignment, bucket coverage),
/// from the one rule table of PlanRules.cpp.
std::vector<std::string> validatePlan(const LayerConfig &config,
                                      const Plan &plan);

/// The names of the rules validatePlan checks for `schedule`, in order.
std::vector<std::string> planRuleNames(Schedule schedule);

/// The variant a call with `numTokens` tokens on this rank runs; nullptr when
/// no variant covers numTokens (more than T, or a plan without variants).
const Variant *selectVariant(const Plan &plan, int64_t numTokens);

const char *toString(Schedule schedule);
const char *toString(MathMode mode);
std::optional<Schedule> parseSchedule(std::string_view text);
std::optional<MathMode> parseMathMode(std::string_view text);

} // namespace megamoe::config

#endif // MEGAMOE_CONFIG_PLAN_H
