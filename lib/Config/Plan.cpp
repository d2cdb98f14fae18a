//===- Plan.cpp - choosing a layer plan (its rules: PlanRules.cpp) --------===//
#include "megamoe/Config/Plan.h"
#include "megamoe/Config/Heuristics.h"

#include "RangeCheck.h"

#include <algorithm>
#include <optional>

namespace megamoe::config {

using detail::cat;
using detail::kMaxCount;
using detail::kMaxStages;
using detail::kMaxTile;
using detail::outOfRange;

int64_t Variant::activeMathWarpgroups() const {
  return mathMode == MathMode::Single ? 1 : 2;
}
int64_t Variant::l1WarpgroupN() const {
  return mathMode == MathMode::CooperativeN ? l1BlockN / 2 : l1BlockN;
}
int64_t Variant::l2WarpgroupN() const {
  return mathMode == MathMode::CooperativeN ? l2BlockN / 2 : l2BlockN;
}

// The unfused schedule (docs/UnfusedSchedule.md) runs one kernel per stage:
// its GEMMs are the generated grouped GEMM (BLOCK_M 64 on one math
// warpgroup or 128 on two, BLOCK_N 128 or 256, BLOCK_K 128), its pool has the
// worst-case size (nothing implements the ring's flow control across
// kernels) and the grouped GEMM picks its own stage count (stages 0 = as
// many as fit). Its variants (one or two BLOCK_M buckets by token count)
// record the tiles; the fused role layout does not apply. Its rules are in
// PlanRules.cpp.
static std::vector<std::string>
makeUnfusedPlan(const LayerConfig &c, const PlanOverrides &o, Plan &plan) {
  plan.roles = RoleLayout();
  plan.entryRegisters = entryRegisters(c.chip, plan.roles.threads);
  plan.requantBlock = c.recipe.requantBlock;
  // One variant per BLOCK_M a call can want: 64-row tiles for the token
  // counts where an expert expects at most 64 rows, 128 above (both
  // compiled; the runtime picks by the call's token count). An explicit
  // block-m gives one variant.
  std::vector<std::pair<int64_t, int64_t>> buckets; // (max tokens, BLOCK_M)
  int64_t small = unfusedSmallBlockMaxTokens(c);
  if (o.blockM)
    buckets = {{c.maxTokensPerRank, *o.blockM}};
  else if (c.maxTokensPerRank <= small)
    buckets = {{c.maxTokensPerRank, 64}};
  else
    buckets = {{small, 64}, {c.maxTokensPerRank, 128}};
  // Variant [minTokens, maxTokens] of `blockM` rows; `mayShare` false: an
  // expert's m-blocks do not share its weights (below
  // sharedWeightsMinTokens; the overrides then ask nothing of it).
  auto makeVariant = [&](int64_t minTokens, int64_t maxTokens, int64_t blockM,
                         bool mayShare) {
    Variant v;
    v.minTokens = minTokens;
    v.maxTokens = maxTokens;
    v.blockM = blockM;
    // schedule=auto: the schedule measured fastest at this BLOCK_M.
    Schedule schedule =
        o.schedulePerVariant ? fastestBuiltSchedule(c, blockM) : plan.schedule;
    if (schedule != plan.schedule)
      v.schedule = schedule;
    v.expertAlign =
        std::min(v.blockM,
                 o.expertAlign.value_or(stageExpertAlign(c, schedule, blockM)));
    v.mathMode = o.mathMode.value_or(v.blockM == 64 ? MathMode::Single
                                                    : MathMode::CooperativeM);
    v.l1BlockN = o.l1BlockN.value_or(stageL1BlockN(c, schedule));
    v.l2BlockN = o.l2BlockN.value_or(stageL2BlockN(c, schedule));
    v.blockK = o.blockK.value_or(128);
    v.stages = o.stages.value_or(0);
    v.expertsPerWave = c.localExperts();
    // The grouped GEMM's setmaxnreg targets (ChipLimits).
    ChipLimits limits = chipLimits(c.chip);
    v.registers = {limits.producerRegisters, limits.mathRegisters, 0};
    // Asked of the variant as chosen so far (BLOCK_M, expert alignment).
    v.l1Pull = o.l1Pull.value_or(stageL1Pull(c, schedule, v));
    // The override asks it of the variants it applies to (the split
    // schedule's BLOCK_M 128 L1 kernel, PlanRules.cpp "l1-pair-stages").
    v.l1PairStages = o.l1PairStages && l1PairStagesApply(c, schedule, v)
                         ? *o.l1PairStages
                         : stageL1PairStages(c, schedule, v);
    // The override asks it of the BLOCK_M 64 variant (the only one with a
    // K-split tail, PlanRules.cpp "k-split").
    v.kSplit =
        o.kSplit && v.blockM == 64 ? *o.kSplit : stageKSplit(c, schedule, v);
    // The override asks it of the split schedule's BLOCK_M 128 L2 GEMM with
    // half blocks (PlanRules.cpp "l2-expert-blocks").
    v.l2ExpertBlocks = o.l2ExpertBlocks && l2ExpertBlocksApply(c, schedule, v)
                           ? *o.l2ExpertBlocks
                           : mayShare && stageL2ExpertBlocks(c, schedule, v);
    // Their tiles are 256 x 128 (two row blocks per warpgroup hold what two
    // column blocks would): the variant says so, unless l2-block-n asked
    // otherwise (then the rule says no).
    if (v.l2ExpertBlocks && !o.l2BlockN)
      v.l2BlockN = 128;
    // The override asks it of the split schedule's BLOCK_M 128 L1 kernel
    // with half blocks (PlanRules.cpp "l1-cluster").
    v.l1Cluster = o.l1Cluster && l1ClusterApply(c, schedule, v)
                      ? *o.l1Cluster
                      : mayShare && stageL1Cluster(c, schedule, v);
    // The fused-gemm kernel's tile order (Heuristics.cpp says what was
    // measured; PlanRules.cpp "wave-order" where it applies).
    auto [waveMBlocks, waveLag] = fusedGemmWaveOrder(c, schedule, v);
    v.waveMBlocks = o.waveMBlocks.value_or(waveMBlocks);
    v.waveLag = o.waveLag.value_or(waveLag);
    return v;
  };
  int64_t next = 0;
  for (auto [maxTokens, blockM] : buckets) {
    // The heuristic's shared weights (l1-cluster, l2-expert-blocks) pay
    // where experts have two m-blocks or more: the range below
    // sharedWeightsMinTokens is a variant of its own without them (asked
    // for either, or where neither applies, one variant).
    int64_t from = sharedWeightsMinTokens(c);
    if (!o.l1Cluster && !o.l2ExpertBlocks && from > next && from <= maxTokens) {
      Variant shared = makeVariant(from, maxTokens, blockM, true);
      if (shared.sharesWeights()) {
        plan.variants.push_back(makeVariant(next, from - 1, blockM, false));
        plan.variants.push_back(shared);
        next = maxTokens + 1;
        continue;
      }
    }
    plan.variants.push_back(makeVariant(next, maxTokens, blockM, true));
    next = maxTokens + 1;
  }
  plan.l1WeightTiles = o.l1WeightTiles.value_or(stageL1WeightTiles(c));
  // A cluster loads half column blocks, the tiled L1 weights whole tiles:
  // the heuristic's clusters give way to tiles asked for (asked for both,
  // the rule "l1-cluster" refuses).
  if (plan.l1WeightTiles && !o.l1Cluster)
    for (Variant &v : plan.variants)
      v.l1Cluster = false;
  // The worst case, or a ring where every variant can run one; 0 asks for
  // the worst case.
  int64_t worst = worstCasePoolTokens(c, plan.variants.back().blockM);
  plan.poolTokens = o.poolTokens.value_or(stagePoolTokens(c, plan));
  if (plan.poolTokens == 0)
    plan.poolTokens = worst;
  // An override that applies to no variant is a mistake, not a no-op.
  if (o.l1Cluster.value_or(false) &&
      std::none_of(plan.variants.begin(), plan.variants.end(),
                   [](const Variant &v) { return v.l1Cluster; }))
    return {"l1-cluster=true applies to no variant of this plan: it is built "
            "for the split schedule's L1 kernel at BLOCK_M 128 with half "
            "blocks (expert-align 64) on sm_90a, without k-split or l1-pull"};
  if (o.l2ExpertBlocks.value_or(false) &&
      std::none_of(plan.variants.begin(), plan.variants.end(),
                   [](const Variant &v) { return v.l2ExpertBlocks; }))
    return {"l2-expert-blocks=true applies to no variant of this plan: it is "
            "built for the split schedule's L2 GEMM at BLOCK_M 128 with half "
            "blocks (expert-align 64) on sm_90a, without k-split, with "
            "requant-block 128"};
  if (o.l1PairStages.value_or(false) &&
      std::none_of(plan.variants.begin(), plan.variants.end(),
                   [](const Variant &v) { return v.l1PairStages; }))
    return {"l1-pair-stages=true applies to no variant of this plan: it is "
            "built for the split schedule's L1 + SwiGLU kernel at BLOCK_M "
            "128 on sm_90a (SwiGLU is fused there with fast-math only)"};
  return validatePlan(c, plan);
}

std::vector<std::string> makePlan(const LayerConfig &c, const PlanOverrides &o,
                                  Plan &plan) {
  plan = Plan();
  std::vector<std::string> errors = validate(c);
  if (!errors.empty())
    return errors;
  // sm_90a (wgmma) and sm_100a (tcgen05, docs/SM100.md) share the kernels'
  // structure; a chip without register targets has no planner.
  if (chipLimits(c.chip).mathRegisters == 0)
    return {cat("planning for ", toString(c.chip),
                " is not implemented: it has no warp-specialized kernel plan "
                "(register targets in Chip.h)")};

  // Overrides are checked for range before any size is computed from them.
  std::vector<std::string> ranges;
  auto check = [&](const char *what, const std::optional<int64_t> &value,
                   int64_t lo, int64_t hi) {
    if (value)
      if (std::optional<std::string> e = outOfRange(what, *value, lo, hi))
        ranges.push_back("override " + *e);
  };
  check("block-m", o.blockM, 1, kMaxTile);
  check("l1-block-n", o.l1BlockN, 1, kMaxTile);
  check("l2-block-n", o.l2BlockN, 1, kMaxTile);
  check("expert-align", o.expertAlign, 1, kMaxTile);
  check("k-split", o.kSplit, 1, kMaxStages);
  check("wave-m-blocks", o.waveMBlocks, 0, kMaxCount);
  check("wave-lag", o.waveLag, 0, kMaxCount);
  check("block-k", o.blockK, 1, kMaxTile);
  check("stages", o.stages, 0, kMaxStages);
  check("experts-per-wave", o.expertsPerWave, 1, kMaxCount);
  check("num-sms", o.numSMs, 1, kMaxCount);
  check("producer-registers", o.producerRegisters, 0, kMaxTile);
  check("math-registers", o.mathRegisters, 0, kMaxTile);
  check("pool-tokens", o.poolTokens, 0, int64_t(1) << 40);
  if (!ranges.empty())
    return ranges;

  plan.chip = c.chip;
  plan.numSMs = o.numSMs.value_or(defaultNumSMs(c.chip));
  // Fused by default: the one-kernel schedule is the project's goal. The
  // split schedule may win at prefill (DeepGEMM #323 lost 0.36x fused); that
  // is for measurements to decide, through the `schedule` option.
  plan.schedule = o.schedule.value_or(Schedule::Fused);
  // The split schedule as built today is the unfused schedule with the L1
  // GEMM and the activation in one kernel (docs/SplitSchedule.md): the same
  // variants, GEMM tiles and worst-case pool.
  if (buildsStageKernels(plan.schedule))
    return makeUnfusedPlan(c, o, plan);
  plan.roles = RoleLayout();
  plan.entryRegisters = entryRegisters(c.chip, plan.roles.threads);
  plan.requantBlock = c.recipe.requantBlock;

  // One variant per BLOCK_M bucket that a call with 0..T tokens can reach;
  // an explicit block-m gives a single variant for every token count.
  std::vector<BlockMBucket> buckets = blockMBuckets(c.recipe.requantBlock);
  if (o.blockM) {
    MathMode mode = defaultMathMode(*o.blockM, c.recipe.requantBlock);
    buckets = {{buckets.back().maxExpectedTokens, *o.blockM, mode}};
  }
  int64_t next = 0;
  for (size_t i = 0; i < buckets.size() && next <= c.maxTokensPerRank; ++i) {
    bool last = i + 1 == buckets.size();
    int64_t hi = last ? c.maxTokensPerRank
                      : maxTokensForExpected(c, buckets[i].maxExpectedTokens);
    if (hi < next)
      continue;
    Variant v;
    v.minTokens = next;
    v.maxTokens = hi;
    v.blockM = buckets[i].blockM;
    v.expertAlign = std::min(v.blockM, o.expertAlign.value_or(v.blockM));
    v.mathMode = o.mathMode.value_or(buckets[i].mathMode);
    v.l1BlockN = o.l1BlockN.value_or(defaultL1BlockN(c.recipe.requantBlock));
    v.l2BlockN = o.l2BlockN.value_or(defaultL2BlockN(c, v.mathMode));
    // BLOCK_K 128 = one weight-scale block per stage, so promotion happens
    // once per stage (256 halves the barrier round trips but doubles a stage).
    v.blockK = o.blockK.value_or(128);
    v.registers = defaultRegisters();
    if (o.producerRegisters)
      v.registers.producer = *o.producerRegisters;
    if (o.mathRegisters)
      v.registers.math = *o.mathRegisters;
    // Asked of the variant as chosen so far (BLOCK_M, expert alignment).
    v.l1Pull = o.l1Pull.value_or(stageL1Pull(c, plan.schedule, v));
    v.kSplit = o.kSplit.value_or(1);
    // Asked of the fused kernel, it is refused by its rule (PlanRules.cpp
    // "l1-pair-stages"), not dropped.
    v.l1PairStages = o.l1PairStages.value_or(false);
    v.l2ExpertBlocks = o.l2ExpertBlocks.value_or(false);
    v.l1Cluster = o.l1Cluster.value_or(false);
    plan.variants.push_back(v);
    next = hi + 1;
  }

  int64_t maxBlockM = 0;
  for (const Variant &v : plan.variants)
    maxBlockM = std::max(maxBlockM, v.blockM);
  plan.l1WeightTiles = o.l1WeightTiles.value_or(stageL1WeightTiles(c));
  if (o.poolTokens && *o.poolTokens == 0)
    plan.poolTokens = worstCasePoolTokens(c, maxBlockM);
  else
    plan.poolTokens =
        o.poolTokens.value_or(defaultPoolTokens(c, plan.numSMs, maxBlockM));

  for (Variant &v : plan.variants) {
    // As many stages as fit: the persistent kernel streams K blocks across
    // tiles, so depth hides TMA and NVLink latency (seeds/004 section 13.3).
    v.stages = o.stages.value_or(maxStagesThatFit(c, plan.roles, v));
    v.smemBytes = sharedMemoryUsage(c, plan.roles, v).total;
    // Evaluated at the bucket's largest token count (its heaviest load); the
    // runtime may re-evaluate expertsPerWave() for the actual count.
    v.expertsPerWave = o.expertsPerWave.value_or(
        expertsPerWave(c, v, v.maxTokens, plan.numSMs, plan.poolTokens));
  }
  return validatePlan(c, plan);
}

int64_t poolLayoutRows(const LayerConfig &c, const Plan &plan) {
  int64_t maxBlockM = 0;
  for (const Variant &v : plan.variants)
    maxBlockM = std::max(maxBlockM, v.blockM);
  if (maxBlockM <= 0)
    return plan.poolTokens;
  return std::max(plan.poolTokens, worstCasePoolTokens(c, maxBlockM));
}

bool poolWraps(const LayerConfig &c, const Plan &plan) {
  return plan.poolTokens < poolLayoutRows(c, plan);
}

std::string ringRefusal(const Plan &plan, const Variant &v,
                        int64_t poolTokens) {
  Schedule s = scheduleOf(plan, v);
  if (s != Schedule::FusedGemm || !v.l1Pull)
    return cat("it runs the ", toString(s), " schedule",
               s == Schedule::FusedGemm ? " without l1-pull" : "",
               " (a ring needs the fused-gemm schedule with l1-pull: no "
               "ring flow control between kernels)");
  if (v.halfBlocks())
    return "it has half blocks (ring slots are whole m-blocks)";
  if (v.waveMBlocks <= 0)
    return "it has no wave order (every L1 tile would run before the L2 "
           "tile that frees its slot)";
  int64_t slots = v.blockM > 0 ? poolTokens / v.blockM : 0;
  if (slots < (v.waveLag + 1) * v.waveMBlocks)
    return cat("its ring of ", slots,
               " m-blocks is below (wave-lag + 1) x wave-m-blocks = ",
               (v.waveLag + 1) * v.waveMBlocks,
               " (an L1 tile would wait for an L2 tile after it)");
  return "";
}

const Variant *selectVariant(const Plan &plan, int64_t numTokens) {
  for (const Variant &v : plan.variants)
    if (numTokens >= v.minTokens && numTokens <= v.maxTokens)
      return &v;
  return nullptr;
}

bool anyVariantRuns(const Plan &plan, Schedule s) {
  for (const Variant &v : plan.variants)
    if (scheduleOf(plan, v) == s)
      return true;
  return false;
}

const char *toString(Schedule schedule) {
  switch (schedule) {
  case Schedule::Fused:
    return "fused";
  case Schedule::Split:
    return "split";
  case Schedule::Unfused:
    return "unfused";
  case Schedule::FusedGemm:
    return "fused-gemm";
  }
  return "?";
}

const char *toString(MathMode mode) {
  switch (mode) {
  case MathMode::CooperativeM:
    return "cooperative-m";
  case MathMode::CooperativeN:
    return "cooperative-n";
  case MathMode::Single:
    return "single";
  }
  return "?";
}

std::optional<Schedule> parseSchedule(std::string_view text) {
  for (Schedule s : {Schedule::Fused, Schedule::Split, Schedule::Unfused,
                     Schedule::FusedGemm})
    if (text == toString(s))
      return s;
  return std::nullopt;
}

std::optional<MathMode> parseMathMode(std::string_view text) {
  for (MathMode m :
       {MathMode::CooperativeM, MathMode::CooperativeN, MathMode::Single})
    if (text == toString(m))
      return m;
  return std::nullopt;
}

} // namespace megamoe::config
