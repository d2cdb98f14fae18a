//===- PlanRules.cpp - the rules a plan must keep, one table --------------===//
//
// validatePlan runs one table of rules. Each rule has a name, the schedules
// it applies to and a check that reports every way the plan breaks it; the
// table order is the order of the messages. Rules on the whole plan come
// first, then the rules on each variant (in variant order), then the rules
// that need every variant (coverage, pool).
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/KernelPlan.h"

#include "RangeCheck.h"
#include "megamoe/Config/Plan.h"

#include <algorithm>
#include <optional>

namespace megamoe::config {

using detail::cat;
using detail::kMaxStages;
using detail::kMaxTile;
using detail::outOfRange;

namespace {

/// Schedules a rule applies to (a bit set).
enum : unsigned {
  kFused = 1u << 0,
  kSplit = 1u << 1,
  kUnfused = 1u << 2,
  kFusedGemm = 1u << 3,
  /// The schedule of the persistent layer kernel (seeds/004 role layout).
  kLayerKernel = kFused,
  /// The schedules built as one kernel per stage or two, on the generated
  /// grouped GEMM and the worst-case pool: unfused, and split as built today
  /// (docs/SplitSchedule.md).
  kStageKernels = kUnfused | kSplit | kFusedGemm,
  kAnySchedule = kFused | kSplit | kUnfused | kFusedGemm,
};

unsigned bitOf(Schedule s) {
  switch (s) {
  case Schedule::Fused:
    return kFused;
  case Schedule::Split:
    return kSplit;
  case Schedule::Unfused:
    return kUnfused;
  case Schedule::FusedGemm:
    return kFusedGemm;
  }
  return 0;
}

/// Collects the messages of the rules.
struct Report {
  std::vector<std::string> errors;
  void fail(std::string message) { errors.push_back(std::move(message)); }
};

/// A rule on the plan as a whole. `check` returns false when the rules
/// after it cannot run (e.g. there is no variant to check).
struct PlanRule {
  const char *name;
  unsigned schedules;
  bool (*check)(const LayerConfig &, const Plan &, Report &);
};

/// A rule on variant `i` of the plan. `check` returns false when the rest
/// of the variant's rules cannot run (its sizes are out of range).
struct VariantRule {
  const char *name;
  unsigned schedules;
  bool (*check)(const LayerConfig &, const Plan &, size_t i, Report &);
};

std::string describe(const Variant &v) {
  return cat("variant BLOCK_M ", v.blockM, " (tokens/rank ", v.minTokens, "..",
             v.maxTokens, ")");
}

bool isRegisterTarget(int64_t r) { return r >= 24 && r <= 256 && r % 8 == 0; }

/// A variant whose sizes every layer-kernel rule can compute with.
bool hasValidTile(const Variant &v) {
  for (auto e : {outOfRange("", v.blockM, 1, kMaxTile),
                 outOfRange("", v.l1BlockN, 1, kMaxTile),
                 outOfRange("", v.l2BlockN, 1, kMaxTile),
                 outOfRange("", v.blockK, 1, kMaxTile),
                 outOfRange("", v.stages, 0, kMaxStages)})
    if (e)
      return false;
  return v.blockM == 32 || v.blockM == 64 || v.blockM == 128;
}

//===----------------------------------------------------------------------===//
// Rules on the whole plan
//===----------------------------------------------------------------------===//

const PlanRule kPlanRules[] = {
    {"chip", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, Report &r) {
       if (p.chip != c.chip)
         r.fail(cat("the plan is for ", toString(p.chip),
                    " but the layer targets ", toString(c.chip)));
       return true;
     }},
    {"sm-count", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, Report &r) {
       int64_t chipSMs = defaultNumSMs(c.chip);
       if (p.numSMs < 1 || p.numSMs > chipSMs)
         r.fail(cat("number of SMs (", p.numSMs, ") must be between 1 and the ",
                    chipSMs, " SMs of ", toString(c.chip),
                    ": the persistent grid needs every CTA resident"));
       return true;
     }},
    {"variant-schedules", kAnySchedule,
     [](const LayerConfig &, const Plan &p, Report &r) {
       // One manifest launches each variant's own kernel list, so the
       // stage-kernel schedules (unfused, split, fused-gemm) may differ per
       // variant; the fused schedule is one kernel for every token count.
       // The variant rules are those of each variant's schedule: none run
       // after a mix that cannot be built.
       bool ok = true;
       for (const Variant &v : p.variants)
         if (v.schedule && (!buildsStageKernels(*v.schedule) ||
                            !buildsStageKernels(p.schedule))) {
           r.fail(cat(describe(v), ": a schedule of its own (",
                      toString(*v.schedule),
                      ") needs the plan's and its own to be stage-kernel "
                      "schedules (unfused, split or fused-gemm); the plan's "
                      "is ",
                      toString(p.schedule)));
           ok = false;
         }
       return ok;
     }},
    {"role-layout", kLayerKernel,
     [](const LayerConfig &, const Plan &p, Report &r) {
       RoleLayout roles;
       if (p.roles.threads != roles.threads ||
           p.roles.dispatchWarpBegin != roles.dispatchWarpBegin ||
           p.roles.dispatchWarpEnd != roles.dispatchWarpEnd ||
           p.roles.tmaAWarp != roles.tmaAWarp ||
           p.roles.tmaBWarp != roles.tmaBWarp ||
           p.roles.mathWarpgroupBegin != roles.mathWarpgroupBegin ||
           p.roles.mathWarpgroupEnd != roles.mathWarpgroupEnd)
         r.fail("the role layout must be the SM90 kernel's: 384 threads, "
                "warps 0-1 dispatch, warp 2 TMA-A, warp 3 TMA-B, warpgroups "
                "1-2 math");
       return true;
     }},
    {"entry-registers", kLayerKernel,
     [](const LayerConfig &, const Plan &p, Report &r) {
       int64_t want = entryRegisters(p.chip, p.roles.threads);
       if (p.entryRegisters != want)
         r.fail(cat("entry registers (", p.entryRegisters, ") must be ", want,
                    " for ", p.roles.threads, " threads at one CTA per SM"));
       return true;
     }},
    {"stage-kernels-requant-64", kStageKernels,
     [](const LayerConfig &c, const Plan &p, Report &r) {
       // Per-64 activations reach the L2 GEMM as two A scales per K block,
       // promoted per 64 K (GemmProblem::aScaleGroups): sm_90a's lowering
       // only. (The fused GEMM kernel's ring then has slots of two scale
       // rows, the first of which its L1 tiles use: planFusedGemmKernel.)
       if (c.recipe.requantBlock == 128)
         return true;
       if (c.chip != Chip::SM90a)
         r.fail(cat("per-", c.recipe.requantBlock,
                    " requantization is built for sm_90a only (the ",
                    toString(c.chip),
                    " block-scaled MMA promotes one activation scale per "
                    "128-K block)"));
       return true;
     }},
    {"requant-block", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, Report &r) {
       if (p.requantBlock != c.recipe.requantBlock)
         r.fail(cat("the plan requantizes per ", p.requantBlock,
                    " channels but the recipe says ", c.recipe.requantBlock));
       return true;
     }},
    {"has-variants", kLayerKernel,
     [](const LayerConfig &, const Plan &p, Report &r) {
       if (!p.variants.empty())
         return true;
       r.fail("the plan has no kernel variant");
       return false;
     }},
    {"stage-kernels-variant-count", kStageKernels,
     [](const LayerConfig &, const Plan &p, Report &r) {
       // A variant's kernels are named by its BLOCK_M and whether its
       // expert's m-blocks share the weight tiles (megamoe-expand's
       // variantSuffix): at most one variant of each.
       std::vector<std::pair<int64_t, bool>> seen;
       for (const Variant &v : p.variants) {
         std::pair<int64_t, bool> key{v.blockM, v.sharesWeights()};
         if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
           r.fail(cat("the ", toString(p.schedule),
                      " schedule has at most one variant per BLOCK_M and "
                      "weight sharing (l1-cluster or l2-expert-blocks); "
                      "two have BLOCK_M ",
                      v.blockM, key.second ? " with" : " without",
                      " shared weights"));
           return false;
         }
         seen.push_back(key);
       }
       if (!p.variants.empty() && p.variants.size() <= 3)
         return true;
       r.fail(cat("the ", toString(p.schedule),
                  " schedule has one to three variants (BLOCK_M 64, 128, "
                  "128 with shared weights), got ",
                  p.variants.size()));
       return false;
     }},
};

//===----------------------------------------------------------------------===//
// Rules on each variant
//===----------------------------------------------------------------------===//

const VariantRule kVariantRules[] = {
    {"token-range", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       // Variant i starts right after the previous one (the first at 0).
       int64_t expect =
           i == 0
               ? 0
               : std::min(p.variants[i - 1].maxTokens, c.maxTokensPerRank) + 1;
       if (v.minTokens != expect || v.maxTokens < v.minTokens ||
           v.maxTokens > c.maxTokensPerRank)
         r.fail(cat(
             describe(v), ": token ranges must be contiguous from 0 to T = ",
             c.maxTokensPerRank, " (expected to start at ", expect, ")"));
       return true;
     }},
    {"value-ranges", kLayerKernel,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       bool ok = true;
       for (auto e : {outOfRange("BLOCK_M", v.blockM, 1, kMaxTile),
                      outOfRange("L1 BLOCK_N", v.l1BlockN, 1, kMaxTile),
                      outOfRange("L2 BLOCK_N", v.l2BlockN, 1, kMaxTile),
                      outOfRange("BLOCK_K", v.blockK, 1, kMaxTile),
                      outOfRange("stages", v.stages, 0, kMaxStages)})
         if (e) {
           r.fail(cat(describe(v), ": ", *e));
           ok = false;
         }
       return ok;
     }},
    {"block-m", kLayerKernel,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.blockM == 32 || v.blockM == 64 || v.blockM == 128)
         return true;
       r.fail(cat(describe(v), ": BLOCK_M must be 32, 64 or 128 (wgmma is "
                               "m64 per warpgroup)"));
       return false;
     }},
    {"math-mode", kLayerKernel,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.mathMode == MathMode::CooperativeM && v.blockM != 128)
         r.fail(cat(describe(v),
                    ": cooperative-m splits 128 rows between two warpgroups; "
                    "BLOCK_M ",
                    v.blockM, " needs cooperative-n or single"));
       if (v.mathMode != MathMode::CooperativeM && v.blockM == 128)
         r.fail(cat(describe(v),
                    ": BLOCK_M 128 needs both warpgroups on rows "
                    "(cooperative-m); ",
                    toString(v.mathMode), " covers 64 rows"));
       return true;
     }},
    {"block-k", kLayerKernel,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.blockK != 128 && v.blockK != 256)
         r.fail(cat(describe(v), ": BLOCK_K (", v.blockK,
                    ") must be 128 or 256, whole 128-wide weight-scale "
                    "blocks"));
       return true;
     }},
    {"l1-block-n", kLayerKernel,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       int64_t group = 2 * c.recipe.requantBlock;
       if (v.l1BlockN <= 0 || v.l1BlockN % group != 0 ||
           (2 * c.intermediate) % v.l1BlockN != 0)
         r.fail(cat(describe(v), ": L1 BLOCK_N (", v.l1BlockN,
                    ") must be a multiple of ", group, " (whole per-",
                    c.recipe.requantBlock,
                    " requantization groups of gate/up-interleaved rows) "
                    "that divides 2 x intermediate (",
                    2 * c.intermediate, ")"));
       return true;
     }},
    {"l2-block-n", kLayerKernel,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.l2BlockN <= 0 || v.l2BlockN % 64 != 0 ||
           c.hidden % v.l2BlockN != 0)
         r.fail(cat(describe(v), ": L2 BLOCK_N (", v.l2BlockN,
                    ") must be a multiple of 64 that divides hidden (",
                    c.hidden, ")"));
       return true;
     }},
    {"wgmma-n", kLayerKernel,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       for (int64_t n : {v.l1WarpgroupN(), v.l2WarpgroupN()})
         if (n > 256 || n % 8 != 0)
           r.fail(cat(describe(v), ": a warpgroup's wgmma N (", n,
                      ") must be a multiple of 8 up to 256"));
       return true;
     }},
    {"register-targets", kLayerKernel,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       const RegisterBudget &b = v.registers;
       if (!isRegisterTarget(b.producer) || !isRegisterTarget(b.math) ||
           !isRegisterTarget(b.idle))
         r.fail(cat(describe(v), ": register targets (producer ", b.producer,
                    ", math ", b.math, ", idle ", b.idle,
                    ") must be multiples of 8 in [24, 256] (setmaxnreg)"));
       return true;
     }},
    {"math-registers", kLayerKernel,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       int64_t wgN = std::max(v.l1WarpgroupN(), v.l2WarpgroupN());
       int64_t need = mathRegistersNeeded(wgN);
       if (v.registers.math < need)
         r.fail(cat(describe(v), ": a math thread holds a 64x", wgN,
                    " FP32 tile twice (accumulator + promotion) = ", wgN,
                    " registers plus ~", kMathWorkingRegisters,
                    " working registers = ", need, ", over the math budget of ",
                    v.registers.math,
                    "; narrow BLOCK_N, use two warpgroups on N "
                    "(cooperative-n), or raise math-registers"));
       return true;
     }},
    {"register-budget", kLayerKernel,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       const RegisterBudget &b = v.registers;
       int64_t active = v.activeMathWarpgroups();
       // Summed only when every target is in range ("register-targets"
       // reports the others): a plan read back from IR may carry any int64.
       if (!isRegisterTarget(b.producer) || !isRegisterTarget(b.math) ||
           !isRegisterTarget(b.idle))
         return true;
       int64_t sum =
           128 * (b.producer + active * b.math + (2 - active) * b.idle);
       int64_t limit = chipLimits(p.chip).registersPerSM;
       if (sum > limit)
         r.fail(cat(describe(v), ": registers 128 x (", b.producer, " + ",
                    active, " x ", b.math,
                    (active == 1 ? cat(" + ", b.idle) : std::string()),
                    ") = ", sum, " exceed the ", limit, " of an SM"));
       return true;
     }},
    {"min-stages", kLayerKernel,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.stages >= 2)
         return true;
       SharedMemoryUsage u = sharedMemoryUsage(c, p.roles, v);
       r.fail(cat(describe(v), ": ", v.stages,
                  " pipeline stage(s); at least 2 are needed to overlap TMA "
                  "with wgmma (a stage is ",
                  u.perStage, " B, the fixed regions ", u.fixed, " B)"));
       return true;
     }},
    {"smem-fit", kLayerKernel,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       SharedMemoryUsage u = sharedMemoryUsage(c, p.roles, v);
       int64_t limit = chipLimits(p.chip).smemPerBlock;
       if (u.total > limit)
         r.fail(cat(describe(v), ": ", v.stages, " stages need ", u.total,
                    " B of shared memory (fixed ", u.fixed, " + ", v.stages,
                    " x ", u.perStage, " per stage + barriers); the limit is ",
                    limit, " B (at most ", maxStagesThatFit(c, p.roles, v),
                    " stages fit)"));
       else if (v.smemBytes != u.total)
         r.fail(cat(describe(v), ": smem bytes (", v.smemBytes,
                    ") disagree with the layout of its tiles and stages (",
                    u.total, ")"));
       return true;
     }},
    {"combine-staging", kLayerKernel,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       // The combine reduce runs after the last tile and reuses the dispatch
       // and GEMM shared memory.
       SharedMemoryUsage u = sharedMemoryUsage(c, p.roles, v);
       int64_t reusable = u.fixed + v.stages * (u.stageA + u.stageB);
       if (u.combineStaging > reusable)
         r.fail(cat(describe(v), ": the combine staging (", u.combineStaging,
                    " B) must fit in the shared memory it reuses (", reusable,
                    " B)"));
       return true;
     }},
    {"experts-per-wave", kLayerKernel,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.expertsPerWave < 1 || v.expertsPerWave > c.localExperts())
         r.fail(cat(describe(v), ": experts per wave (", v.expertsPerWave,
                    ") must be between 1 and the ", c.localExperts(),
                    " experts of a rank"));
       return true;
     }},
    // The unfused and split schedules' GEMMs are the generated grouped GEMM.
    {"stage-kernels-gemm-tile", kStageKernels,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       bool ok = (v.blockM == 128 && v.mathMode == MathMode::CooperativeM) ||
                 (v.blockM == 64 && v.mathMode == MathMode::Single);
       if (!ok)
         r.fail(cat("the ", toString(scheduleOf(p, v)),
                    " schedule's grouped GEMMs use BLOCK_M 128 on "
                    "two warpgroups (cooperative-m) or BLOCK_M 64 on one "
                    "(single); got BLOCK_M ",
                    v.blockM, " ", toString(v.mathMode)));
       if (v.blockK != 128)
         r.fail(cat("the ", toString(scheduleOf(p, v)),
                    " schedule's grouped GEMMs use BLOCK_K 128 (one "
                    "128x128 weight-scale block per K step); got ",
                    v.blockK));
       // BLOCK_N 256 is two 128-column blocks per warpgroup (sm_90a, the
       // TMA-store and combine-scatter epilogues); the SwiGLU epilogue
       // (split, fused-gemm L1) and the fused GEMM kernel's shared ring
       // take 128.
       bool l1Wide = scheduleOf(p, v) == Schedule::Unfused &&
                     c.chip == Chip::SM90a && (2 * c.intermediate) % 256 == 0;
       bool l2Wide = scheduleOf(p, v) != Schedule::FusedGemm &&
                     c.chip == Chip::SM90a && c.hidden % 256 == 0;
       if (!(v.l1BlockN == 128 || (v.l1BlockN == 256 && l1Wide)) ||
           !(v.l2BlockN == 128 || (v.l2BlockN == 256 && l2Wide)))
         r.fail(cat("the ", toString(scheduleOf(p, v)),
                    " schedule's grouped GEMMs use BLOCK_N 128, or 256 on "
                    "sm_90a for the unfused L1 GEMM and the unfused / split "
                    "L2 GEMM (N a multiple of 256); got L1 BLOCK_N ",
                    v.l1BlockN, ", L2 BLOCK_N ", v.l2BlockN));
       return true;
     }},
    {"expert-align", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       // Half blocks are built and run (bitwise against the unfused
       // reference, bench/RESULTS.md 2026-12-02) for the split schedule's
       // grouped GEMMs on sm_90a. The unfused schedule is the reference
       // they are checked against, and the fused GEMM kernel's L2 arrivals
       // count both warpgroups of every L1 tile.
       bool halves = scheduleOf(p, v) == Schedule::Split &&
                     c.chip == Chip::SM90a && v.blockM == 128;
       if (v.expertAlign != v.blockM &&
           !(halves && v.expertAlign == kHalfBlockRows))
         r.fail(cat(describe(v), ": expert-align (", v.expertAlign,
                    ") must be BLOCK_M, or 64 with BLOCK_M 128 in the split "
                    "schedule on sm_90a (64-row half blocks)"));
       return true;
     }},
    {"l1-pair-stages", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.l1PairStages && !l1PairStagesApply(c, scheduleOf(p, v), v))
         r.fail(
             cat(describe(v),
                 ": l1-pair-stages is built for the split "
                 "schedule's L1 + SwiGLU kernel at BLOCK_M 128 and L1 "
                 "BLOCK_N 128 on sm_90a, without k-split (where SwiGLU "
                 "is fused: BLOCK_M 128 needs fast-math); this variant is ",
                 toString(scheduleOf(p, v)), ", BLOCK_M ", v.blockM,
                 ", L1 BLOCK_N ", v.l1BlockN, ", k-split ", v.kSplit, ", ",
                 toString(c.chip),
                 splitFusesActivation(c, v) ? "" : ", activation not fused"));
       return true;
     }},
    {"l2-expert-blocks", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.l2ExpertBlocks && v.l2BlockN != 128)
         r.fail(cat(describe(v),
                    ": l2-expert-blocks needs L2 BLOCK_N 128 (a 256-row tile "
                    "of 256 columns does not fit a warpgroup's registers), "
                    "got ",
                    v.l2BlockN));
       if (v.l2ExpertBlocks && !l2ExpertBlocksApply(c, scheduleOf(p, v), v))
         r.fail(cat(describe(v),
                    ": l2-expert-blocks is built for the split schedule's L2 "
                    "GEMM at BLOCK_M 128 with half blocks (expert-align 64) "
                    "on sm_90a, without k-split, with requant-block 128 (its "
                    "blocks are the half-block layout's 64-row units); this "
                    "variant is ",
                    toString(scheduleOf(p, v)), ", BLOCK_M ", v.blockM,
                    ", expert-align ", v.expertAlign, ", k-split ", v.kSplit,
                    ", requant-block ", c.recipe.requantBlock, ", ",
                    toString(c.chip)));
       return true;
     }},
    {"l1-cluster", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (!v.l1Cluster)
         return true;
       if (!l1ClusterApply(c, scheduleOf(p, v), v))
         r.fail(cat(describe(v),
                    ": l1-cluster is built for the split schedule's L1 kernel "
                    "at BLOCK_M 128 with half blocks (expert-align 64) on "
                    "sm_90a, without k-split or l1-pull (the layout pairs an "
                    "expert's m-blocks in the half-block table); this "
                    "variant is ",
                    toString(scheduleOf(p, v)), ", BLOCK_M ", v.blockM,
                    ", expert-align ", v.expertAlign, ", k-split ", v.kSplit,
                    v.l1Pull ? ", l1-pull" : "", ", ", toString(c.chip)));
       // A B box of a cluster is half a column block: the tiled weights'
       // box is a whole 128 x 128 tile.
       else if (p.l1WeightTiles)
         r.fail(cat(describe(v),
                    ": l1-cluster loads half column blocks, which the tiled "
                    "L1 weights (l1-weight-tiles) do not have"));
       return true;
     }},
    {"l1-pull", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (!v.l1Pull)
         return true;
       // The pull inside the L1 kernel is built for the kernels whose L1
       // epilogue is SwiGLU + requant on sm_90a: the split schedule's
       // moe_l1_swiglu and the fused-gemm schedule's moe_fused_gemm, whose
       // dispatch warps sit beside the TMA warps (docs/SplitSchedule.md,
       // "The pull in the L1 kernel"; docs/FusedSchedule.md); the other L1
       // kernels load a pool that moe_pull has filled.
       std::string why;
       Schedule s = scheduleOf(p, v);
       if (s != Schedule::Split && s != Schedule::FusedGemm)
         why = cat("the ", toString(s),
                   " schedule has no such L1 "
                   "kernel (split and fused-gemm only)");
       else if (c.chip != Chip::SM90a)
         why = cat("it is not built for ", toString(c.chip), " (sm_90a only)");
       else if (s == Schedule::Split && !splitFusesActivation(c, v))
         why = "this variant's L1 kernel stores h for moe_activation "
               "(splitFusesActivation: BLOCK_M 64, or fast-math)";
       if (!why.empty())
         r.fail(cat(describe(v), ": l1-pull: ", why,
                    "; the pull inside the L1 kernel is built for the split "
                    "schedule's moe_l1_swiglu and the fused-gemm schedule's "
                    "moe_fused_gemm on sm_90a"));
       return true;
     }},
    {"l1-weight-tiles", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (!p.l1WeightTiles)
         return true;
       // One B box = one 128 x 128 tile (or, in a cluster of 2, half of
       // one): a column block of 128 weight rows and a K block of 128.
       if (c.chip != Chip::SM90a)
         r.fail(cat("l1-weight-tiles: the tiled L1 weights are built for "
                    "sm_90a only (not ", toString(c.chip), ")"));
       else if (v.blockK != kWeightTileK ||
                columnBlockRows(v.l1BlockN) != kWeightTileRows)
         r.fail(cat(describe(v), ": l1-weight-tiles needs BLOCK_K ",
                    kWeightTileK, " and L1 column blocks of ", kWeightTileRows,
                    " rows (BLOCK_N 128 or 256); the variant has BLOCK_K ",
                    v.blockK, ", L1 BLOCK_N ", v.l1BlockN));
       return true;
     }},
    {"k-split", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.kSplit == 1)
         return true;
       // Built for the stage kernels' grouped GEMMs with one computing
       // warpgroup per column block (BLOCK_M 64: single, or split columns)
       // on sm_90a; both schedules compared bitwise split the same tiles.
       // Each unit's K blocks are a whole number of K blocks of both GEMMs.
       std::string why;
       if (v.kSplit < 1 || v.kSplit > 4 || (v.kSplit & (v.kSplit - 1)))
         why = cat("it must be 1, 2 or 4, got ", v.kSplit);
       else if (scheduleOf(p, v) != Schedule::Unfused &&
                scheduleOf(p, v) != Schedule::Split)
         why = cat("the ", toString(scheduleOf(p, v)),
                   " schedule has no K-split tail (unfused and split only)");
       else if (c.chip != Chip::SM90a)
         why = cat("it is not built for ", toString(c.chip), " (sm_90a only)");
       else if (v.blockM != 64)
         why = cat("BLOCK_M is ", v.blockM, " (BLOCK_M 64 only: one warpgroup "
                   "per column block)");
       else if ((c.hidden / 128) % v.kSplit || (c.intermediate / 128) % v.kSplit)
         why = cat("the K blocks of L1 (", c.hidden / 128, ") and L2 (",
                   c.intermediate / 128, ") must be multiples of it");
       if (!why.empty())
         r.fail(cat(describe(v), ": k-split: ", why));
       return true;
     }},
    {"wave-order", kAnySchedule,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.waveMBlocks == 0 && v.waveLag == 1)
         return true;
       // The fused GEMM kernel's two phases in one warpspec.wave_loop: no
       // K-split tail (its dispatch warps, l1-pull, walk pool rows, not
       // tiles).
       std::string why;
       if (v.waveMBlocks == 0)
         why = cat("wave-lag ", v.waveLag, " needs wave-m-blocks > 0");
       else if (v.waveMBlocks < 0 || v.waveLag < 0)
         why = cat("wave-m-blocks ", v.waveMBlocks, " and wave-lag ", v.waveLag,
                   " must not be negative");
       else if (scheduleOf(p, v) != Schedule::FusedGemm)
         why = cat("the ", toString(scheduleOf(p, v)),
                   " schedule runs L1 and L2 in separate kernels (fused-gemm "
                   "only)");
       else if (v.kSplit != 1)
         why = "it has no K-split tail";
       if (!why.empty())
         r.fail(cat(describe(v), ": wave order: ", why));
       return true;
     }},
    {"stage-kernels-gemm-stages", kStageKernels,
     [](const LayerConfig &, const Plan &p, size_t i, Report &r) {
       const Variant &v = p.variants[i];
       if (v.stages != 0 && (v.stages < 2 || v.stages > 8))
         r.fail(cat("stages (", v.stages,
                    ") must be 0 (as many as fit) or between 2 and 8"));
       return true;
     }},
};

//===----------------------------------------------------------------------===//
// Rules on all variants together
//===----------------------------------------------------------------------===//

const PlanRule kCoverageRules[] = {
    {"token-coverage", kAnySchedule,
     [](const LayerConfig &c, const Plan &p, Report &r) {
       int64_t end = std::min(p.variants.back().maxTokens, c.maxTokensPerRank);
       if (end != c.maxTokensPerRank)
         r.fail(cat("the variants must cover 0..", c.maxTokensPerRank,
                    " tokens per rank; they end at ", end));
       return true;
     }},
    {"pool-ring", kLayerKernel,
     [](const LayerConfig &c, const Plan &p, Report &r) {
       // Without a valid variant there is no BLOCK_M to size the pool by.
       int64_t maxBlockM = 0;
       for (const Variant &v : p.variants)
         if (hasValidTile(v))
           maxBlockM = std::max(maxBlockM, v.blockM);
       int64_t worst = worstCasePoolTokens(c, maxBlockM);
       if (maxBlockM > 0 &&
           (p.poolTokens < maxBlockM || p.poolTokens % kPoolAlignment != 0 ||
            p.poolTokens > worst))
         r.fail(cat(
             "pool tokens (", p.poolTokens, ") must be a positive multiple of ",
             kPoolAlignment, " holding at least one ", maxBlockM,
             "-row pool block and at most the worst case (", worst, ")"));
       return true;
     }},
    {"stage-kernels-worst-case-pool", kStageKernels,
     [](const LayerConfig &c, const Plan &p, Report &r) {
       // As pool-ring: only valid tiles size the pool (a variant rule
       // reports the others; an absurd BLOCK_M would overflow the count).
       int64_t maxBlockM = 0;
       for (const Variant &v : p.variants)
         if (hasValidTile(v))
           maxBlockM = std::max(maxBlockM, v.blockM);
       if (maxBlockM == 0)
         return true;
       int64_t worst = worstCasePoolTokens(c, maxBlockM);
       if (p.poolTokens == worst)
         return true;
       // A ring: every variant must be able to run it (ringRefusal;
       // docs/FusedSchedule.md, "The dispatch warps and the pool ring").
       if (p.poolTokens > worst || p.poolTokens <= 0 ||
           p.poolTokens % kPoolAlignment != 0) {
         r.fail(cat("pool tokens (", p.poolTokens,
                    ") must be a positive multiple of ", kPoolAlignment,
                    " and at most the worst case (", worst, ")"));
         return true;
       }
       for (const Variant &v : p.variants) {
         std::string why = ringRefusal(p, v, p.poolTokens);
         if (!why.empty())
           r.fail(cat("a pool of ", p.poolTokens,
                      " rows, below the worst case of ", worst, ", is a ring; ",
                      describe(v), " cannot run it: ", why));
       }
       return true;
     }},
};

} // namespace

std::vector<std::string> validatePlan(const LayerConfig &c, const Plan &p) {
  std::vector<std::string> errors = validate(c);
  if (!errors.empty())
    return errors;
  unsigned schedule = bitOf(p.schedule);
  Report report;
  auto runPlanRules = [&](const auto &rules) {
    for (const PlanRule &rule : rules)
      if ((rule.schedules & schedule) && !rule.check(c, p, report))
        return false;
    return true;
  };
  if (!runPlanRules(kPlanRules))
    return report.errors;
  // Each variant by the rules of the schedule it runs (Variant::schedule).
  for (size_t i = 0; i < p.variants.size(); ++i)
    for (const VariantRule &rule : kVariantRules)
      if ((rule.schedules & bitOf(scheduleOf(p, p.variants[i]))) &&
          !rule.check(c, p, i, report))
        break;
  runPlanRules(kCoverageRules);
  return report.errors;
}

std::vector<std::string> planRuleNames(Schedule schedule) {
  std::vector<std::string> names;
  unsigned bit = bitOf(schedule);
  for (const PlanRule &r : kPlanRules)
    if (r.schedules & bit)
      names.push_back(r.name);
  for (const VariantRule &r : kVariantRules)
    if (r.schedules & bit)
      names.push_back(r.name);
  for (const PlanRule &r : kCoverageRules)
    if (r.schedules & bit)
      names.push_back(r.name);
  return names;
}

} // namespace megamoe::config
