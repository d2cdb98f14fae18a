//===- Plan.cpp - choosing and checking a kernel plan
//----------------------===//
#include "megamoe/Config/Plan.h"
#include "megamoe/Config/Heuristics.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace megamoe::config {

namespace {

template <typename... Parts> std::string cat(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

std::string describe(const Variant &v) {
  return cat("variant BLOCK_M ", v.blockM, " (tokens/rank ", v.minTokens, "..",
             v.maxTokens, ")");
}

bool isRegisterTarget(int64_t r) { return r >= 24 && r <= 256 && r % 8 == 0; }

// Bounds that keep every size computation far from int64 overflow; real
// values are much smaller (the fit checks then say what is wrong).
constexpr int64_t kMaxTile = 4096, kMaxStages = 1024, kMaxCount = 1 << 20;

/// "what (value) must be between lo and hi", or nothing.
std::optional<std::string> outOfRange(const char *what, int64_t value,
                                      int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi)
    return std::nullopt;
  return cat(what, " (", value, ") must be between ", lo, " and ", hi);
}

/// Range errors of the sizes that feed shared-memory and layout arithmetic.
std::vector<std::string> rangeErrors(const Variant &v) {
  std::vector<std::string> errors;
  for (auto e : {outOfRange("BLOCK_M", v.blockM, 1, kMaxTile),
                 outOfRange("L1 BLOCK_N", v.l1BlockN, 1, kMaxTile),
                 outOfRange("L2 BLOCK_N", v.l2BlockN, 1, kMaxTile),
                 outOfRange("BLOCK_K", v.blockK, 1, kMaxTile),
                 outOfRange("stages", v.stages, 0, kMaxStages)})
    if (e)
      errors.push_back(*e);
  return errors;
}

} // namespace

int64_t Variant::activeMathWarpgroups() const {
  return mathMode == MathMode::Single ? 1 : 2;
}
int64_t Variant::l1WarpgroupN() const {
  return mathMode == MathMode::CooperativeN ? l1BlockN / 2 : l1BlockN;
}
int64_t Variant::l2WarpgroupN() const {
  return mathMode == MathMode::CooperativeN ? l2BlockN / 2 : l2BlockN;
}

/// The grouped-GEMM tile rules of one unfused variant, each broken one
/// reported through `fail`.
template <typename Fail>
static void checkUnfusedVariant(const Variant &v, Fail &&fail) {
  bool tileOk = (v.blockM == 128 && v.mathMode == MathMode::CooperativeM) ||
                (v.blockM == 64 && v.mathMode == MathMode::Single);
  if (!tileOk)
    fail(cat("the unfused schedule's grouped GEMMs use BLOCK_M 128 on two "
             "warpgroups (cooperative-m) or BLOCK_M 64 on one (single); got "
             "BLOCK_M ",
             v.blockM, " ", toString(v.mathMode)));
  if (v.l1BlockN != 128 || v.l2BlockN != 128 || v.blockK != 128)
    fail(cat("the unfused schedule's grouped GEMMs use BLOCK_N 128 and "
             "BLOCK_K 128 (one 128x128 weight-scale block per tile); got L1 "
             "BLOCK_N ",
             v.l1BlockN, ", L2 BLOCK_N ", v.l2BlockN, ", BLOCK_K ", v.blockK));
  if (v.stages != 0 && (v.stages < 2 || v.stages > 8))
    fail(cat("stages (", v.stages,
             ") must be 0 (as many as fit) or between 2 and 8"));
}

/// The unfused schedule (docs/UnfusedSchedule.md) runs one kernel per stage:
/// its GEMMs are the generated grouped GEMM (BLOCK_M 64 on one math
/// warpgroup or 128 on two, BLOCK_N 128, BLOCK_K 128), its pool has the
/// worst-case size (nothing implements the ring's flow control across
/// kernels) and the grouped GEMM picks its own stage count (stages 0 = as
/// many as fit). Its variants (one or two BLOCK_M buckets by token count)
/// record the tiles; the fused role layout does not apply.
static std::vector<std::string> validateUnfusedPlan(const LayerConfig &c,
                                                    const Plan &p) {
  std::vector<std::string> errors;
  auto fail = [&](std::string message) {
    errors.push_back(std::move(message));
  };
  if (p.chip != Chip::SM90a)
    fail(cat("the unfused schedule is built for sm_90a only, not ",
             toString(p.chip)));
  if (c.recipe.requantBlock != 128)
    fail(cat("the unfused schedule requantizes per 128 channels only (its L2 "
             "grouped GEMM promotes one activation scale per 128-K block); "
             "the recipe asks for ",
             c.recipe.requantBlock));
  if (p.requantBlock != c.recipe.requantBlock)
    fail(cat("the plan requantizes per ", p.requantBlock,
             " channels but the recipe says ", c.recipe.requantBlock));
  int64_t chipSMs = defaultNumSMs(c.chip);
  if (p.numSMs < 1 || p.numSMs > chipSMs)
    fail(cat("number of SMs (", p.numSMs, ") must be between 1 and the ",
             chipSMs, " SMs of ", toString(c.chip)));
  if (p.variants.empty() || p.variants.size() > 2) {
    fail(cat("the unfused schedule has one or two variants (BLOCK_M 64 and/or "
             "128), got ",
             p.variants.size()));
    return errors;
  }
  int64_t expectNext = 0, maxBlockM = 0;
  for (const Variant &v : p.variants) {
    if (v.minTokens != expectNext || v.maxTokens < v.minTokens ||
        v.maxTokens > c.maxTokensPerRank)
      fail(cat("the unfused variants must cover 0..", c.maxTokensPerRank,
               " tokens per rank in ascending, contiguous ranges; one covers ",
               v.minTokens, "..", v.maxTokens));
    expectNext = v.maxTokens + 1;
    maxBlockM = std::max(maxBlockM, v.blockM);
    checkUnfusedVariant(v, fail);
  }
  if (expectNext != c.maxTokensPerRank + 1)
    fail(cat("the unfused variants end at ", expectNext - 1,
             " tokens per rank, not T = ", c.maxTokensPerRank));
  int64_t worst = worstCasePoolTokens(c, maxBlockM);
  if (p.poolTokens != worst)
    fail(cat("the unfused schedule needs the worst-case pool of ", worst,
             " rows (no ring flow control between its kernels); got ",
             p.poolTokens));
  return errors;
}

static std::vector<std::string>
makeUnfusedPlan(const LayerConfig &c, const PlanOverrides &o, Plan &plan) {
  plan.roles = RoleLayout();
  plan.entryRegisters = entryRegisters(plan.roles.threads);
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
  int64_t next = 0;
  for (auto [maxTokens, blockM] : buckets) {
    Variant v;
    v.minTokens = next;
    v.maxTokens = maxTokens;
    v.blockM = blockM;
    v.mathMode = o.mathMode.value_or(v.blockM == 64 ? MathMode::Single
                                                    : MathMode::CooperativeM);
    v.l1BlockN = o.l1BlockN.value_or(128);
    v.l2BlockN = o.l2BlockN.value_or(128);
    v.blockK = o.blockK.value_or(128);
    v.stages = o.stages.value_or(0);
    v.expertsPerWave = c.localExperts();
    v.registers = {GroupedGemmRegisters::kProducer, GroupedGemmRegisters::kMath,
                   0};
    plan.variants.push_back(v);
    next = maxTokens + 1;
  }
  int64_t worst = worstCasePoolTokens(c, plan.variants.back().blockM);
  plan.poolTokens = o.poolTokens.value_or(worst);
  if (plan.poolTokens == 0)
    plan.poolTokens = worst;
  return validatePlan(c, plan);
}

std::vector<std::string> makePlan(const LayerConfig &c, const PlanOverrides &o,
                                  Plan &plan) {
  plan = Plan();
  std::vector<std::string> errors = validate(c);
  if (!errors.empty())
    return errors;
  if (c.chip != Chip::SM90a)
    return {cat("planning for ", toString(c.chip),
                " is not implemented: only sm_90a kernels (wgmma, 384 "
                "threads) have a planner")};

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
  if (plan.schedule == Schedule::Unfused)
    return makeUnfusedPlan(c, o, plan);
  plan.roles = RoleLayout();
  plan.entryRegisters = entryRegisters(plan.roles.threads);
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
    plan.variants.push_back(v);
    next = hi + 1;
  }

  int64_t maxBlockM = 0;
  for (const Variant &v : plan.variants)
    maxBlockM = std::max(maxBlockM, v.blockM);
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

std::vector<std::string> validatePlan(const LayerConfig &c, const Plan &p) {
  std::vector<std::string> errors = validate(c);
  if (!errors.empty())
    return errors;
  if (p.schedule == Schedule::Unfused)
    return validateUnfusedPlan(c, p);
  auto fail = [&](std::string message) {
    errors.push_back(std::move(message));
  };

  if (p.chip != c.chip)
    fail(cat("the plan is for ", toString(p.chip), " but the layer targets ",
             toString(c.chip)));
  int64_t chipSMs = defaultNumSMs(c.chip);
  if (p.numSMs < 1 || p.numSMs > chipSMs)
    fail(cat("number of SMs (", p.numSMs, ") must be between 1 and the ",
             chipSMs, " SMs of ", toString(c.chip),
             ": the persistent grid needs every CTA resident"));
  RoleLayout roles;
  if (p.roles.threads != roles.threads ||
      p.roles.dispatchWarpBegin != roles.dispatchWarpBegin ||
      p.roles.dispatchWarpEnd != roles.dispatchWarpEnd ||
      p.roles.tmaAWarp != roles.tmaAWarp ||
      p.roles.tmaBWarp != roles.tmaBWarp ||
      p.roles.mathWarpgroupBegin != roles.mathWarpgroupBegin ||
      p.roles.mathWarpgroupEnd != roles.mathWarpgroupEnd)
    fail("the role layout must be the SM90 kernel's: 384 threads, warps 0-1 "
         "dispatch, warp 2 TMA-A, warp 3 TMA-B, warpgroups 1-2 math");
  if (p.entryRegisters != entryRegisters(p.roles.threads))
    fail(cat("entry registers (", p.entryRegisters, ") must be ",
             entryRegisters(p.roles.threads), " for ", p.roles.threads,
             " threads at one CTA per SM"));
  if (p.requantBlock != c.recipe.requantBlock)
    fail(cat("the plan requantizes per ", p.requantBlock,
             " channels but the recipe says ", c.recipe.requantBlock));

  if (p.variants.empty()) {
    fail("the plan has no kernel variant");
    return errors;
  }
  int64_t maxBlockM = 0;
  int64_t expectNext = 0;
  for (const Variant &v : p.variants) {
    std::string who = describe(v);
    if (v.minTokens != expectNext || v.maxTokens < v.minTokens ||
        v.maxTokens > c.maxTokensPerRank)
      fail(cat(who, ": token ranges must be contiguous from 0 to T = ",
               c.maxTokensPerRank, " (expected to start at ", expectNext, ")"));
    expectNext = std::min(v.maxTokens, c.maxTokensPerRank) + 1;
    std::vector<std::string> ranges = rangeErrors(v);
    for (const std::string &e : ranges)
      fail(cat(who, ": ", e));
    if (!ranges.empty())
      continue;

    if (v.blockM != 32 && v.blockM != 64 && v.blockM != 128) {
      fail(cat(who, ": BLOCK_M must be 32, 64 or 128 (wgmma is m64 per "
                    "warpgroup)"));
      continue;
    }
    maxBlockM = std::max(maxBlockM, v.blockM);
    if (v.mathMode == MathMode::CooperativeM && v.blockM != 128)
      fail(cat(who,
               ": cooperative-m splits 128 rows between two warpgroups; "
               "BLOCK_M ",
               v.blockM, " needs cooperative-n or single"));
    if (v.mathMode != MathMode::CooperativeM && v.blockM == 128)
      fail(cat(who,
               ": BLOCK_M 128 needs both warpgroups on rows "
               "(cooperative-m); ",
               toString(v.mathMode), " covers 64 rows"));
    if (v.blockK != 128 && v.blockK != 256)
      fail(cat(who, ": BLOCK_K (", v.blockK,
               ") must be 128 or 256, whole 128-wide weight-scale blocks"));

    int64_t group = 2 * c.recipe.requantBlock;
    if (v.l1BlockN <= 0 || v.l1BlockN % group != 0 ||
        (2 * c.intermediate) % v.l1BlockN != 0)
      fail(cat(who, ": L1 BLOCK_N (", v.l1BlockN, ") must be a multiple of ",
               group, " (whole per-", c.recipe.requantBlock,
               " requantization groups of gate/up-interleaved rows) that "
               "divides 2 x intermediate (",
               2 * c.intermediate, ")"));
    if (v.l2BlockN <= 0 || v.l2BlockN % 64 != 0 || c.hidden % v.l2BlockN != 0)
      fail(cat(who, ": L2 BLOCK_N (", v.l2BlockN,
               ") must be a multiple of 64 that divides hidden (", c.hidden,
               ")"));
    for (int64_t n : {v.l1WarpgroupN(), v.l2WarpgroupN()})
      if (n > 256 || n % 8 != 0)
        fail(cat(who, ": a warpgroup's wgmma N (", n,
                 ") must be a multiple of 8 up to 256"));

    const RegisterBudget &r = v.registers;
    if (!isRegisterTarget(r.producer) || !isRegisterTarget(r.math) ||
        !isRegisterTarget(r.idle))
      fail(cat(who, ": register targets (producer ", r.producer, ", math ",
               r.math, ", idle ", r.idle,
               ") must be multiples of 8 in [24, 256] (setmaxnreg)"));
    int64_t wgN = std::max(v.l1WarpgroupN(), v.l2WarpgroupN());
    int64_t need = mathRegistersNeeded(wgN);
    if (r.math < need)
      fail(cat(who, ": a math thread holds a 64x", wgN,
               " FP32 tile twice (accumulator + promotion) = ", wgN,
               " registers plus ~", kMathWorkingRegisters,
               " working registers = ", need, ", over the math budget of ",
               r.math,
               "; narrow BLOCK_N, use two warpgroups on N (cooperative-n), "
               "or raise math-registers"));
    int64_t active = v.activeMathWarpgroups();
    // (Summed only when every target is in range: a plan read back from IR
    // may carry any int64.)
    bool targetsOk = isRegisterTarget(r.producer) &&
                     isRegisterTarget(r.math) && isRegisterTarget(r.idle);
    int64_t sum =
        targetsOk ? 128 * (r.producer + active * r.math + (2 - active) * r.idle)
                  : 0;
    if (sum > kRegistersPerSM)
      fail(cat(who, ": registers 128 x (", r.producer, " + ", active, " x ",
               r.math, (active == 1 ? cat(" + ", r.idle) : std::string()),
               ") = ", sum, " exceed the ", kRegistersPerSM, " of an SM"));

    SharedMemoryUsage u = sharedMemoryUsage(c, p.roles, v);
    if (v.stages < 2)
      fail(cat(who, ": ", v.stages,
               " pipeline stage(s); at least 2 are needed to overlap TMA "
               "with wgmma (a stage is ",
               u.perStage, " B, the fixed regions ", u.fixed, " B)"));
    if (u.total > kMaxSharedMemoryPerBlock)
      fail(cat(who, ": ", v.stages, " stages need ", u.total,
               " B of shared memory (fixed ", u.fixed, " + ", v.stages, " x ",
               u.perStage, " per stage + barriers); the limit is ",
               kMaxSharedMemoryPerBlock, " B (at most ",
               maxStagesThatFit(c, p.roles, v), " stages fit)"));
    else if (v.smemBytes != u.total)
      fail(cat(who, ": smem bytes (", v.smemBytes,
               ") disagree with the layout of its tiles and stages (", u.total,
               ")"));
    // The combine reduce runs after the last tile and reuses the dispatch
    // and GEMM shared memory.
    int64_t reusable = u.fixed + v.stages * (u.stageA + u.stageB);
    if (u.combineStaging > reusable)
      fail(cat(who, ": the combine staging (", u.combineStaging,
               " B) must fit in the shared memory it reuses (", reusable,
               " B)"));
    if (v.expertsPerWave < 1 || v.expertsPerWave > c.localExperts())
      fail(cat(who, ": experts per wave (", v.expertsPerWave,
               ") must be between 1 and the ", c.localExperts(),
               " experts of a rank"));
  }
  if (expectNext != c.maxTokensPerRank + 1)
    fail(cat("the variants must cover 0..", c.maxTokensPerRank,
             " tokens per rank; they end at ", expectNext - 1));

  // (Without a valid variant there is no BLOCK_M to size the pool by.)
  int64_t worst = worstCasePoolTokens(c, maxBlockM);
  if (maxBlockM > 0 &&
      (p.poolTokens < maxBlockM || p.poolTokens % kPoolAlignment != 0 ||
       p.poolTokens > worst))
    fail(cat("pool tokens (", p.poolTokens, ") must be a positive multiple of ",
             kPoolAlignment, " holding at least one ", maxBlockM,
             "-row pool block and at most the worst case (", worst, ")"));
  return errors;
}

const Variant *selectVariant(const Plan &plan, int64_t numTokens) {
  for (const Variant &v : plan.variants)
    if (numTokens >= v.minTokens && numTokens <= v.maxTokens)
      return &v;
  return nullptr;
}

const char *toString(Schedule schedule) {
  switch (schedule) {
  case Schedule::Fused:
    return "fused";
  case Schedule::Split:
    return "split";
  case Schedule::Unfused:
    return "unfused";
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
  for (Schedule s : {Schedule::Fused, Schedule::Split, Schedule::Unfused})
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
