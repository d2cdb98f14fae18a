//===- PlanTest.cpp - makePlan, overrides and their errors
//-----------------===//
#include "Shapes.h"

#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Config/Plan.h"
#include "megamoe/Config/Print.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

using namespace megamoe::config;
using namespace megamoe::config::testing;

namespace {

Plan planOk(const LayerConfig &c, const PlanOverrides &o = {}) {
  Plan p;
  std::vector<std::string> errors = makePlan(c, o, p);
  for (const std::string &e : errors)
    ADD_FAILURE() << e;
  return p;
}

std::string planError(const LayerConfig &c, const PlanOverrides &o) {
  Plan p;
  std::vector<std::string> errors = makePlan(c, o, p);
  EXPECT_FALSE(errors.empty());
  std::string all;
  for (const std::string &e : errors)
    all += e + "\n";
  return all;
}

TEST(Plan, EveryAnchorShapeHasAValidPlan) {
  for (int64_t requant : {128, 64})
    for (int64_t R : {1, 2, 8})
      for (int64_t T : {1, 8, 64, 512, 8192}) {
        for (LayerConfig c :
             {v4Flash(R, T), v4Pro(R, T), mimo(R, T),
              shape(7168, 2048, 48, 6, R, T), shape(7168, 3072, 48, 6, R, T)}) {
          c.recipe.requantBlock = requant;
          Plan p = planOk(c);
          EXPECT_TRUE(validatePlan(c, p).empty());
          EXPECT_EQ(p.variants.front().minTokens, 0);
          EXPECT_EQ(p.variants.back().maxTokens, T);
          for (const Variant &v : p.variants) {
            EXPECT_LE(v.smemBytes, chipLimits(Chip::SM90a).smemPerBlock);
            EXPECT_GE(v.stages, 2);
          }
        }
      }
}

TEST(Plan, V4FlashDecode) {
  Plan p = planOk(v4Flash(8, 8));
  EXPECT_EQ(p.numSMs, 132);
  EXPECT_EQ(p.schedule, Schedule::Fused);
  EXPECT_EQ(p.entryRegisters, 168);
  ASSERT_EQ(p.variants.size(), 1u); // 8 tokens: 1.5 tokens/expert
  const Variant &v = p.variants[0];
  EXPECT_EQ(v.blockM, 32);
  EXPECT_EQ(v.l1BlockN, 256);
  EXPECT_EQ(v.mathMode, MathMode::CooperativeN);
  EXPECT_EQ(v.stages, 5);
  EXPECT_EQ(v.expertsPerWave, 24);
  EXPECT_EQ(p.poolTokens, 1408); // the worst case: no ring needed
}

TEST(Plan, V4FlashVariantsAt512And8192) {
  Plan p = planOk(v4Flash(8, 512));
  ASSERT_EQ(p.variants.size(), 2u);
  EXPECT_EQ(p.variants[0].maxTokens, 88);
  EXPECT_EQ(p.variants[1].minTokens, 89);
  EXPECT_EQ(p.variants[1].blockM, 64);
  EXPECT_EQ(p.variants[1].stages, 4);
  Plan big = planOk(v4Flash(8, 8192));
  EXPECT_EQ(big.variants[1].expertsPerWave, 1);
  EXPECT_EQ(big.poolTokens, 2 * 132 * 64); // a ring
  EXPECT_EQ(selectVariant(big, 0), &big.variants[0]);
  EXPECT_EQ(selectVariant(big, 88), &big.variants[0]);
  EXPECT_EQ(selectVariant(big, 89), &big.variants[1]);
  EXPECT_EQ(selectVariant(big, 8192), &big.variants[1]);
  EXPECT_EQ(selectVariant(big, 8193), nullptr); // over T
  EXPECT_EQ(selectVariant(Plan(), 1), nullptr);
}

TEST(Plan, Requant64UsesTheDesignDocBuckets) {
  LayerConfig c = v4Flash(8, 8192);
  c.recipe.requantBlock = 64;
  Plan p = planOk(c);
  ASSERT_EQ(p.variants.size(), 3u);
  EXPECT_EQ(p.variants[2].blockM, 128);
  EXPECT_EQ(p.variants[2].mathMode, MathMode::CooperativeM);
  EXPECT_EQ(p.variants[2].stages, 5);
  EXPECT_EQ(p.variants[1].mathMode, MathMode::Single);
  EXPECT_EQ(p.requantBlock, 64);
}

TEST(Plan, OverridesApplyToEveryVariant) {
  PlanOverrides o;
  o.stages = 3;
  o.numSMs = 130;
  o.schedule = Schedule::Fused;
  o.expertsPerWave = 2;
  Plan p = planOk(v4Flash(8, 8192), o);
  EXPECT_EQ(p.numSMs, 130);
  EXPECT_EQ(p.schedule, Schedule::Fused);
  for (const Variant &v : p.variants) {
    EXPECT_EQ(v.stages, 3);
    EXPECT_EQ(v.expertsPerWave, 2);
  }
}

// The split schedule as built today plans as the unfused one
// (docs/SplitSchedule.md): BLOCK_M 64 / 128 variants, the worst-case pool,
// and no h in the buffer layout when every variant fuses the activation
// (fast-math); without fast-math the BLOCK_M 128 variant stores h
// (splitFusesActivation).
TEST(Plan, SplitPlansLikeUnfusedWithoutH) {
  LayerConfig fm = v4Flash(1, 8192);
  fm.fastMath = true;
  PlanOverrides o;
  o.schedule = Schedule::Split;
  // One BLOCK_M 128 variant as unfused (no shared-weights variant).
  o.l1Cluster = false;
  o.l2ExpertBlocks = false;
  Plan split = planOk(fm, o);
  Plan splitExact = planOk(v4Flash(1, 8192), o);
  o.schedule = Schedule::Unfused;
  Plan unfused = planOk(fm, o);
  EXPECT_EQ(split.schedule, Schedule::Split);
  ASSERT_EQ(split.variants.size(), unfused.variants.size());
  for (size_t i = 0; i < split.variants.size(); ++i)
    EXPECT_EQ(split.variants[i].blockM, unfused.variants[i].blockM);
  EXPECT_EQ(split.poolTokens, unfused.poolTokens);
  BufferLayout ls = computeBufferLayout(fm, split);
  BufferLayout lu = computeBufferLayout(fm, unfused);
  BufferLayout lx = computeBufferLayout(v4Flash(1, 8192), splitExact);
  auto has = [](const BufferLayout &l, const char *name) {
    for (const auto &r : l.regions)
      if (r.name == name)
        return true;
    return false;
  };
  EXPECT_TRUE(has(lu, "l1_out"));
  EXPECT_FALSE(has(ls, "l1_out"));
  EXPECT_TRUE(has(ls, "l2_pool"));
  // The split schedule's BLOCK_M 128 variant has half blocks (experts
  // padded to 64 rows), the unfused one whole blocks: only the split layout
  // has each m-block's first row.
  EXPECT_TRUE(split.variants.back().halfBlocks());
  EXPECT_FALSE(unfused.variants.back().halfBlocks());
  EXPECT_TRUE(has(ls, "pool_block_row"));
  EXPECT_FALSE(has(lu, "pool_block_row"));
  auto span = [](const BufferLayout &l, const char *name) -> int64_t {
    for (size_t i = 0; i + 1 < l.regions.size(); ++i)
      if (l.regions[i].name == name)
        return l.regions[i + 1].offset - l.regions[i].offset;
    return 0;
  };
  // h is P x 2I f32 (a multiple of the region alignment), the block rows
  // and the expert blocks P / 64 i32 each: the only differences.
  EXPECT_EQ(lu.totalBytes - ls.totalBytes,
            split.poolTokens * 2 * 2048 * 4 - span(ls, "pool_block_row") -
                span(ls, "pool_expert_block"));
  EXPECT_GE(span(ls, "pool_block_row"), split.poolTokens / 64 * 4);
  ASSERT_EQ(splitExact.variants.size(), 2u);
  EXPECT_TRUE(splitFusesActivation(v4Flash(1, 8192), splitExact.variants[0]));
  EXPECT_FALSE(splitFusesActivation(v4Flash(1, 8192), splitExact.variants[1]));
  EXPECT_TRUE(has(lx, "l1_out"));
  EXPECT_EQ(lx.totalBytes, lu.totalBytes + span(lx, "pool_block_row") +
                               span(lx, "pool_expert_block"));
}

// The fused-gemm schedule plans as the unfused one, without h, with the
// fused GEMM kernel's two counters per m-block in the workspace
// (docs/FusedSchedule.md).
TEST(Plan, FusedGemmPlansLikeUnfusedWithArrivalCounters) {
  PlanOverrides o;
  o.schedule = Schedule::FusedGemm;
  Plan fused = planOk(v4Flash(1, 8192), o);
  o.schedule = Schedule::Unfused;
  Plan unfused = planOk(v4Flash(1, 8192), o);
  ASSERT_EQ(fused.variants.size(), unfused.variants.size());
  EXPECT_EQ(fused.poolTokens, unfused.poolTokens);
  BufferLayout l = computeBufferLayout(v4Flash(1, 8192), fused);
  const Region *arrivals = l.find("l2_arrivals");
  const Region *waits = l.find("l2_waits");
  ASSERT_TRUE(arrivals && waits);
  EXPECT_EQ(arrivals->shape, std::vector<int64_t>{fused.poolTokens / kMinBlockM});
  EXPECT_LE(waits->offset + waits->bytes, l.workspaceBytes);
  EXPECT_EQ(l.find("l1_out"), nullptr);
  EXPECT_EQ(parseSchedule("fused-gemm"), Schedule::FusedGemm);
}

TEST(Plan, BlockMOverrideGivesOneVariant) {
  PlanOverrides o;
  o.blockM = 64;
  Plan p = planOk(v4Flash(8, 8192), o);
  ASSERT_EQ(p.variants.size(), 1u);
  EXPECT_EQ(p.variants[0].minTokens, 0);
  EXPECT_EQ(p.variants[0].maxTokens, 8192);
}

TEST(Plan, PoolOverride) {
  PlanOverrides o;
  o.poolTokens = 0; // the full worst case
  EXPECT_EQ(planOk(v4Pro(8, 8192), o).poolTokens, 396288);
  o.poolTokens = 100; // not a multiple of 128
  EXPECT_NE(planError(v4Pro(8, 8192), o).find("pool tokens (100)"),
            std::string::npos);
}

TEST(Plan, TooManyStagesIsAnError) {
  PlanOverrides o;
  o.stages = 9;
  std::string e = planError(v4Pro(8, 8192), o);
  EXPECT_NE(e.find("the limit is 232448 B"), std::string::npos) << e;
  EXPECT_NE(e.find("at most 4 stages fit"), std::string::npos) << e;
}

TEST(Plan, OneStageIsAnError) {
  PlanOverrides o;
  o.stages = 1;
  EXPECT_NE(planError(v4Pro(8, 8192), o).find("at least 2"), std::string::npos);
}

TEST(Plan, WideWarpgroupTileDoesNotFitRegisters) {
  // BLOCK_M 128 with per-128 requantization: 64x256 per warpgroup.
  PlanOverrides o;
  o.blockM = 128;
  std::string e = planError(v4Flash(8, 8192), o);
  EXPECT_NE(e.find("= 320, over the math budget of 224"), std::string::npos)
      << e;
}

TEST(Plan, RegisterSumOverTheSMIsAnError) {
  LayerConfig c = v4Flash(8, 8192);
  c.recipe.requantBlock = 64;
  PlanOverrides o;
  o.mathRegisters = 256;
  std::string e = planError(c, o);
  EXPECT_NE(e.find("exceed the 65536"), std::string::npos) << e;
  o.mathRegisters = 100; // not a multiple of 8
  EXPECT_NE(planError(c, o).find("multiples of 8"), std::string::npos);
  o.mathRegisters = 232; // 48*128 + 232*256 = 65,536 fits exactly
  planOk(c, o);
}

TEST(Plan, BadTileOverrides) {
  PlanOverrides o;
  o.l1BlockN = 128; // splits a per-128 group
  EXPECT_NE(planError(v4Flash(8, 8), o).find("L1 BLOCK_N (128)"),
            std::string::npos);
  o = {};
  o.blockK = 64;
  EXPECT_NE(planError(v4Flash(8, 8), o).find("BLOCK_K (64)"),
            std::string::npos);
  o = {};
  o.blockM = 48;
  EXPECT_NE(planError(v4Flash(8, 8), o).find("32, 64 or 128"),
            std::string::npos);
  o = {};
  o.mathMode = MathMode::CooperativeM; // needs 128 rows
  EXPECT_NE(planError(v4Flash(8, 8), o).find("cooperative-m splits 128 rows"),
            std::string::npos);
  o = {};
  o.expertsPerWave = 33; // 32 local experts at EP8
  EXPECT_NE(planError(v4Flash(8, 8), o).find("experts per wave (33)"),
            std::string::npos);
}

TEST(Plan, HugeOverridesAreRangeErrors) {
  PlanOverrides o;
  o.stages = int64_t(1) << 62;
  o.blockK = int64_t(1) << 40;
  std::string e = planError(v4Pro(8, 8192), o);
  EXPECT_NE(e.find("override stages (4611686018427387904) must be between 0 "
                   "and 1024"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("override block-k"), std::string::npos) << e;
}

TEST(Plan, HugeValuesInAPlanAreRangeErrors) {
  LayerConfig c = v4Flash(8, 8);
  Plan p = planOk(c);
  p.variants[0].stages = int64_t(1) << 62;
  p.variants[0].blockM = int64_t(1) << 62;
  std::vector<std::string> errors = validatePlan(c, p);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("BLOCK_M (4611686018427387904) must be between 1 "
                           "and 4096"),
            std::string::npos)
      << errors[0];
}

TEST(Plan, PoolLargerThanTheWorstCaseIsAnError) {
  PlanOverrides o;
  o.poolTokens = 1 << 20;
  EXPECT_NE(planError(v4Flash(8, 8), o).find("at most the worst case (1408)"),
            std::string::npos);
}

TEST(Plan, TooManySMsIsAnError) {
  PlanOverrides o;
  o.numSMs = 200;
  EXPECT_NE(planError(v4Flash(8, 8), o).find("every CTA resident"),
            std::string::npos);
}

TEST(Plan, Sm100IsPlannedLikeSm90) {
  for (Schedule s : {Schedule::Fused, Schedule::Unfused}) {
    LayerConfig c = v4Flash(8, 8);
    c.chip = Chip::SM100a;
    PlanOverrides o;
    o.schedule = s;
    Plan p = planOk(c, o);
    EXPECT_EQ(p.chip, Chip::SM100a);
    EXPECT_EQ(p.numSMs, 148);
    EXPECT_EQ(p.roles.threads, planOk(v4Flash(8, 8), o).roles.threads);
  }
}

// l1-pull: off by default (not measured yet), an override sets every
// variant, and the rule allows it only where the L1 kernel is built: the
// split schedule's moe_l1_swiglu on sm_90a. Its workspace holds the pull
// arrivals and waits, one of each per 64-row unit.
TEST(Plan, L1PullOverrideAndItsRule) {
  LayerConfig c = v4Flash(1, 8192);
  c.fastMath = true;
  PlanOverrides o;
  o.schedule = Schedule::Split;
  Plan heuristic = planOk(c, o);
  for (const Variant &v : heuristic.variants)
    EXPECT_FALSE(v.l1Pull);
  BufferLayout lh = computeBufferLayout(c, heuristic);
  EXPECT_FALSE(lh.find("pull_arrivals"));
  EXPECT_FALSE(lh.find("pull_waits"));

  o.l1Pull = true;
  o.l2ExpertBlocks = false; // one BLOCK_M 128 variant
  Plan pulled = planOk(c, o);
  ASSERT_EQ(pulled.variants.size(), 2u);
  for (const Variant &v : pulled.variants) {
    EXPECT_TRUE(v.l1Pull);
    EXPECT_TRUE(splitFusesActivation(c, v));
  }
  BufferLayout lp = computeBufferLayout(c, pulled);
  for (const char *name : {"pull_arrivals", "pull_waits"}) {
    const Region *r = lp.find(name);
    ASSERT_TRUE(r) << name;
    EXPECT_EQ(r->element, "u32");
    EXPECT_EQ(r->shape, std::vector<int64_t>{pulled.poolTokens / 64});
    // Zero between calls: in the workspace.
    EXPECT_LT(r->offset, lp.workspaceBytes) << name;
  }
  o.l1Pull = false;
  for (const Variant &v : planOk(c, o).variants)
    EXPECT_FALSE(v.l1Pull);

  // Not the unfused schedule (fused-gemm: PlanTest FusedGemmPlan.L1PullRing).
  o.l1Pull = true;
  o.schedule = Schedule::Unfused;
  EXPECT_NE(planError(c, o).find(
                ": l1-pull: the unfused schedule has no such L1 kernel (split "
                "and fused-gemm only); the pull inside the L1 kernel is built "
                "for the split schedule's moe_l1_swiglu and the fused-gemm "
                "schedule's moe_fused_gemm on sm_90a"),
            std::string::npos);
  // A split variant whose L1 kernel stores h for moe_activation: without
  // fast-math the BLOCK_M 128 one (the BLOCK_M 64 one fuses).
  o.schedule = Schedule::Split;
  LayerConfig exact = v4Flash(1, 8192);
  Plan p;
  std::vector<std::string> e = makePlan(exact, o, p);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "variant BLOCK_M 128 (tokens/rank 2731..8192): l1-pull: "
                  "this variant's L1 kernel stores h for moe_activation "
                  "(splitFusesActivation: BLOCK_M 64, or fast-math); the "
                  "pull inside the L1 kernel is built for the split "
                  "schedule's moe_l1_swiglu and the fused-gemm schedule's "
                  "moe_fused_gemm on sm_90a");
  // sm_100a.
  LayerConfig sm100 = c;
  sm100.chip = Chip::SM100a;
  EXPECT_NE(planError(sm100, o).find(
                ": l1-pull: it is not built for sm_100a (sm_90a only)"),
            std::string::npos);
}

TEST(Plan, InvalidLayerIsReportedNotPlanned) {
  EXPECT_NE(planError(shape(4000, 2048, 256, 6, 8, 8), {}).find("H = 4000"),
            std::string::npos);
}

TEST(Plan, EdgeTokensOne) {
  Plan p = planOk(v4Pro(8, 1));
  ASSERT_EQ(p.variants.size(), 1u);
  EXPECT_EQ(p.variants[0].maxTokens, 1);
}

TEST(Plan, PrintsTextAndJson) {
  LayerConfig c = v4Flash(8, 512);
  Plan p = planOk(c);
  std::string text = planToText(c, p);
  EXPECT_NE(text.find("variant tokens 89..512: BLOCK_M=64"), std::string::npos)
      << text;
  std::string json = planToJson(c, p);
  EXPECT_NE(json.find("\"block_m\": 64"), std::string::npos);
  EXPECT_NE(json.find("\"buffer_layout\""), std::string::npos);
  EXPECT_EQ(formatBytes(1048576), "1,048,576 B (1.00 MiB)");
}

} // namespace

namespace {

TEST(PlanJson, RoundTrips) {
  for (LayerConfig c : {v4Flash(8, 512), v4Pro(2, 8192), mimo(8, 1)}) {
    c.clamp = 10.0;
    c.fastMath = true;
    Plan p = planOk(c);
    LayerConfig c2;
    Plan p2;
    std::vector<std::string> errors = planFromJson(planToJson(c, p), c2, p2);
    EXPECT_TRUE(errors.empty()) << errors.front();
    EXPECT_TRUE(validatePlan(c2, p2).empty());
    // Same text, same layout: nothing was lost.
    EXPECT_EQ(planToJson(c2, p2), planToJson(c, p));
    EXPECT_EQ(c2.clamp, c.clamp);
  }
}

// The split plan's half blocks survive the JSON, and a plan written before
// expert_align existed reads as whole blocks (segments of BLOCK_M rows).
TEST(PlanJson, ExpertAlignRoundTripsAndDefaultsToBlockM) {
  PlanOverrides o;
  o.schedule = Schedule::Split;
  o.l1Cluster = false;
  o.l2ExpertBlocks = false;
  LayerConfig c = v4Flash(1, 8192);
  Plan p = planOk(c, o);
  ASSERT_EQ(p.variants.size(), 2u);
  EXPECT_FALSE(p.variants[0].halfBlocks()); // BLOCK_M 64
  EXPECT_TRUE(p.variants[1].halfBlocks());
  EXPECT_EQ(p.variants[1].expertAlign, 64);
  std::string json = planToJson(c, p);
  LayerConfig c2;
  Plan p2;
  ASSERT_TRUE(planFromJson(json, c2, p2).empty());
  EXPECT_EQ(p2.variants[1].expertAlign, 64);
  EXPECT_EQ(planToJson(c2, p2), json);
  std::string old =
      std::regex_replace(json, std::regex(R"("expert_align": [0-9]+,\s*)"), "");
  ASSERT_EQ(old.find("expert_align"), std::string::npos);
  Plan p3;
  ASSERT_TRUE(planFromJson(old, c2, p3).empty());
  for (const Variant &v : p3.variants)
    EXPECT_EQ(v.expertAlign, v.blockM);
}

// The fused-gemm kernel's wave order survives the JSON, and a plan written
// before it existed reads as the phase order (every L1 tile first).
TEST(PlanJson, WaveOrderRoundTripsAndDefaultsToPhaseOrder) {
  PlanOverrides o;
  o.schedule = Schedule::FusedGemm;
  o.waveMBlocks = 8;
  o.waveLag = 0;
  LayerConfig c = v4Flash(1, 8192);
  Plan p = planOk(c, o);
  for (const Variant &v : p.variants) {
    EXPECT_EQ(v.waveMBlocks, 8);
    EXPECT_EQ(v.waveLag, 0);
  }
  std::string json = planToJson(c, p);
  LayerConfig c2;
  Plan p2;
  ASSERT_TRUE(planFromJson(json, c2, p2).empty());
  EXPECT_EQ(planToJson(c2, p2), json);
  std::string old = std::regex_replace(
      json, std::regex(R"re("wave_(m_blocks|lag)": [0-9]+,\s*)re"), "");
  ASSERT_EQ(old.find("wave_"), std::string::npos);
  Plan p3;
  ASSERT_TRUE(planFromJson(old, c2, p3).empty());
  for (const Variant &v : p3.variants) {
    EXPECT_EQ(v.waveMBlocks, 0);
    EXPECT_EQ(v.waveLag, 1);
  }
}

// l1_pull survives the JSON, and a plan written before it existed reads as
// moe_pull filling the pool.
TEST(PlanJson, L1PullRoundTripsAndDefaultsToFalse) {
  PlanOverrides o;
  o.schedule = Schedule::Split;
  o.l1Pull = true;
  o.l2ExpertBlocks = false;
  LayerConfig c = v4Flash(1, 8192);
  c.fastMath = true;
  Plan p = planOk(c, o);
  ASSERT_EQ(p.variants.size(), 2u);
  std::string json = planToJson(c, p);
  EXPECT_NE(json.find("\"l1_pull\": true"), std::string::npos);
  LayerConfig c2;
  Plan p2;
  ASSERT_TRUE(planFromJson(json, c2, p2).empty());
  for (const Variant &v : p2.variants)
    EXPECT_TRUE(v.l1Pull);
  EXPECT_TRUE(validatePlan(c2, p2).empty());
  EXPECT_EQ(planToJson(c2, p2), json);
  std::string old = std::regex_replace(
      json, std::regex(R"("l1_pull": (true|false),\s*)"), "");
  ASSERT_EQ(old.find("l1_pull"), std::string::npos);
  Plan p3;
  ASSERT_TRUE(planFromJson(old, c2, p3).empty());
  for (const Variant &v : p3.variants)
    EXPECT_FALSE(v.l1Pull);
  std::string bad = std::regex_replace(
      json, std::regex(R"("l1_pull": true)"), R"("l1_pull": 1)");
  std::vector<std::string> e = planFromJson(bad, c2, p3);
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e[0], "plan.variants[0].l1_pull must be true or false");
}

TEST(PlanJson, ReportsProblemsWithoutThrowing) {
  LayerConfig c;
  Plan p;
  EXPECT_EQ(planFromJson("{not json", c, p),
            std::vector<std::string>{"not valid JSON"});
  std::vector<std::string> e = planFromJson(
      R"({"config": {"hidden": "big"}, "plan": {"variants": 3}})", c, p);
  auto has = [&](const std::string &needle) {
    for (const std::string &s : e)
      if (s.find(needle) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(has("config.hidden must be an integer"));
  EXPECT_TRUE(has("config.intermediate is missing"));
  EXPECT_TRUE(has("plan.variants must be an array"));
  e = planFromJson(R"({"config": [], "plan": {"chip": "sm_80"}})", c, p);
  EXPECT_TRUE(has("config must be a JSON object"));
  EXPECT_TRUE(has("plan.chip: unknown value \"sm_80\""));
}

} // namespace

namespace {

PlanOverrides unfused() {
  PlanOverrides o;
  o.schedule = Schedule::Unfused;
  return o;
}

TEST(UnfusedPlan, OneGemmVariantAndTheWorstCasePool) {
  // V4-Flash, EP2, 128 tokens/rank: 6 expected rows per local expert, so
  // 64-row tiles (one warpgroup); pool = 2 x 128 x 6 slots + 128 x 63
  // padding rows = 9,600.
  Plan p = planOk(v4Flash(2, 128), unfused());
  EXPECT_EQ(p.schedule, Schedule::Unfused);
  ASSERT_EQ(p.variants.size(), 1u);
  const Variant &v = p.variants[0];
  EXPECT_EQ(v.minTokens, 0);
  EXPECT_EQ(v.maxTokens, 128);
  EXPECT_EQ(v.blockM, 64);
  EXPECT_EQ(v.mathMode, MathMode::Single);
  // 128 x 256 weight tiles on sm_90a (config::stageL1BlockN, stageL2BlockN).
  EXPECT_EQ(v.l1BlockN, 256);
  EXPECT_EQ(v.l2BlockN, 256);
  EXPECT_EQ(p.poolTokens, 2 * 128 * 6 + 128 * 63);
  EXPECT_TRUE(validatePlan(v4Flash(2, 128), p).empty());
}

TEST(UnfusedPlan, FastestBuiltSchedule) {
  // megamoe-plan schedule=auto on sm_90a: fused-gemm (wave order) for a
  // BLOCK_M 64 variant, split for a BLOCK_M 128 one; the unfused reference
  // on a chip without measurements.
  LayerConfig c = v4Flash(1, 8192);
  EXPECT_EQ(fastestBuiltSchedule(c, 64), Schedule::FusedGemm);
  EXPECT_EQ(fastestBuiltSchedule(c, 128), Schedule::Split);
  c.chip = Chip::SM100a;
  EXPECT_EQ(fastestBuiltSchedule(c, 64), Schedule::Unfused);
  EXPECT_EQ(fastestBuiltSchedule(c, 128), Schedule::Unfused);
}

// schedule=auto plans each variant with its own schedule: for 8192 tokens
// the BLOCK_M 64 variant runs fused-gemm with the wave order and the BLOCK_M
// 128 one split (the plan's); its tiles are each schedule's (the fused GEMM
// kernel's shared ring: L2 BLOCK_N 128; split's L2: 256), and the buffer
// layout holds both schedules' regions. A plan for fewer tokens has only
// the fused-gemm variant, which is then the plan's schedule.
TEST(UnfusedPlan, SchedulePerVariant) {
  LayerConfig c = v4Flash(1, 8192);
  PlanOverrides o;
  o.schedule = Schedule::Split;
  o.schedulePerVariant = true;
  Plan p = planOk(c, o);
  // BLOCK_M 64 (fused-gemm), BLOCK_M 128 below sharedWeightsMinTokens and
  // from there (split, the second with shared weights).
  ASSERT_EQ(p.variants.size(), 3u);
  EXPECT_EQ(p.variants[1].maxTokens + 1, sharedWeightsMinTokens(c));
  EXPECT_EQ(p.variants[2].minTokens, sharedWeightsMinTokens(c));
  EXPECT_EQ(p.schedule, Schedule::Split);
  ASSERT_TRUE(p.variants[0].schedule.has_value());
  EXPECT_EQ(*p.variants[0].schedule, Schedule::FusedGemm);
  EXPECT_EQ(scheduleOf(p, p.variants[0]), Schedule::FusedGemm);
  EXPECT_GT(p.variants[0].waveMBlocks, 0);
  EXPECT_EQ(p.variants[0].l2BlockN, 128);
  EXPECT_FALSE(p.variants[1].schedule.has_value());
  EXPECT_EQ(scheduleOf(p, p.variants[1]), Schedule::Split);
  EXPECT_EQ(p.variants[1].waveMBlocks, 0);
  EXPECT_FALSE(p.variants[1].l2ExpertBlocks || p.variants[1].l1Cluster);
  EXPECT_EQ(p.variants[1].l2BlockN, 256);
  // The last one's L2 GEMM in expert blocks: 256 x 128 tiles
  // (stageL2ExpertBlocks), its L1 in clusters of 2.
  EXPECT_EQ(scheduleOf(p, p.variants[2]), Schedule::Split);
  EXPECT_TRUE(p.variants[2].l2ExpertBlocks && p.variants[2].l1Cluster);
  EXPECT_EQ(p.variants[2].l2BlockN, 128);
  EXPECT_TRUE(anyVariantRuns(p, Schedule::FusedGemm));
  EXPECT_TRUE(anyVariantRuns(p, Schedule::Split));
  BufferLayout layout = computeBufferLayout(c, p);
  EXPECT_TRUE(layout.find("l2_arrivals"));
  EXPECT_TRUE(layout.find("l2_waits"));
  // The plan round-trips through JSON with the variant's schedule.
  Plan back;
  LayerConfig backConfig;
  std::vector<std::string> errors =
      planFromJson(planToJson(c, p, 0), backConfig, back);
  ASSERT_TRUE(errors.empty()) << errors[0];
  ASSERT_TRUE(back.variants[0].schedule.has_value());
  EXPECT_EQ(*back.variants[0].schedule, Schedule::FusedGemm);
  EXPECT_FALSE(back.variants[1].schedule.has_value());
  // An unknown variant schedule in JSON is an error, not the plan's.
  std::string json = planToJson(c, p, 0);
  size_t at = json.find("\"fused-gemm\"");
  ASSERT_NE(at, std::string::npos);
  json.replace(at, std::string("\"fused-gemm\"").size(), "\"pipelined\"");
  errors = planFromJson(json, backConfig, back);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("schedule: unknown value \"pipelined\""),
            std::string::npos)
      << errors[0];
  // Without schedulePerVariant every variant runs the plan's schedule.
  o.schedulePerVariant = false;
  Plan plain = planOk(c, o);
  for (const Variant &v : plain.variants)
    EXPECT_FALSE(v.schedule.has_value());
  EXPECT_FALSE(computeBufferLayout(c, plain).find("l2_arrivals"));
  // A variant schedule of its own needs stage-kernel schedules.
  Plan bad = p;
  bad.variants[0].schedule = Schedule::Fused;
  std::vector<std::string> e = validatePlan(c, bad);
  // The variant rules (of a schedule that cannot be mixed) do not run.
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("a schedule of its own (fused)"), std::string::npos)
      << e[0];
  // The variant rules are the variant's schedule's: a wave order on the
  // split variant is refused, on the fused-gemm one allowed.
  Plan wave = p;
  wave.variants[1].waveMBlocks = 4;
  e = validatePlan(c, wave);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("runs L1 and L2 in separate kernels"), std::string::npos)
      << e[0];
}

TEST(UnfusedPlan, BlockNBySchedule) {
  // BLOCK_N 256 where the schedule's epilogue builds it on sm_90a: the
  // unfused L1 and L2, the split L2 (its L1 is the SwiGLU GEMM), not the
  // fused-gemm kernel (one ring of 128-column tiles) nor on sm_100a; an
  // override wins.
  struct Case {
    Schedule schedule;
    Chip chip;
    int64_t l1, l2;
  };
  const Case cases[] = {{Schedule::Unfused, Chip::SM90a, 256, 256},
                        {Schedule::Split, Chip::SM90a, 128, 256},
                        {Schedule::FusedGemm, Chip::SM90a, 128, 128},
                        {Schedule::Unfused, Chip::SM100a, 128, 128}};
  for (const Case &k : cases) {
    LayerConfig c = v4Flash(1, 8192);
    c.chip = k.chip;
    PlanOverrides o;
    o.schedule = k.schedule;
    Plan p = planOk(c, o);
    SCOPED_TRACE(toString(k.schedule));
    for (const Variant &v : p.variants) {
      EXPECT_EQ(v.l1BlockN, k.l1);
      // The split L2 GEMM in expert blocks has 256 x 128 tiles.
      EXPECT_EQ(v.l2BlockN, v.l2ExpertBlocks ? 128 : k.l2);
    }
  }
  PlanOverrides o = unfused();
  o.l1BlockN = 128;
  o.l2BlockN = 128;
  for (const Variant &v : planOk(v4Flash(1, 8192), o).variants)
    EXPECT_EQ(v.l1BlockN + v.l2BlockN, 256);
}

TEST(UnfusedPlan, BlockMFollowsTheExpectedRowsPerExpert) {
  // 64-row tiles while an expert expects <= 64 rows (T x R x K / E):
  // V4-Flash EP2 up to 64 x 256 / 12 = 1365 tokens/rank.
  EXPECT_EQ(unfusedSmallBlockMaxTokens(v4Flash(2, 8)), 1365);
  EXPECT_EQ(unfusedBlockM(v4Flash(2, 8)), 64);
  EXPECT_EQ(unfusedBlockM(v4Flash(2, 1365)), 64);
  EXPECT_EQ(unfusedBlockM(v4Flash(2, 1366)), 128);
  // A layer for 8192 tokens keeps both: calls up to 1365 tokens take the
  // 64-row variant, larger ones the 128-row one; the pool is sized for 128.
  Plan p = planOk(v4Flash(2, 8192), unfused());
  ASSERT_EQ(p.variants.size(), 2u);
  EXPECT_EQ(p.variants[0].minTokens, 0);
  EXPECT_EQ(p.variants[0].maxTokens, 1365);
  EXPECT_EQ(p.variants[0].blockM, 64);
  EXPECT_EQ(p.variants[0].mathMode, MathMode::Single);
  EXPECT_EQ(p.variants[1].minTokens, 1366);
  EXPECT_EQ(p.variants[1].maxTokens, 8192);
  EXPECT_EQ(p.variants[1].blockM, 128);
  EXPECT_EQ(p.variants[1].mathMode, MathMode::CooperativeM);
  EXPECT_EQ(p.poolTokens, 2 * 8192 * 6 + 128 * 127);
  EXPECT_EQ(selectVariant(p, 8)->blockM, 64);
  EXPECT_EQ(selectVariant(p, 8192)->blockM, 128);
  // block-m pins one variant.
  PlanOverrides o = unfused();
  o.blockM = 128;
  Plan one = planOk(v4Flash(2, 8192), o);
  ASSERT_EQ(one.variants.size(), 1u);
  EXPECT_EQ(one.variants[0].maxTokens, 8192);
}

TEST(UnfusedPlan, RejectsWhatItsKernelsCannotRun) {
  // Per-64 requantization plans on sm_90a (PlanRulesTest covers where it
  // does not).
  LayerConfig c = v4Flash(2, 128);
  c.recipe.requantBlock = 64;
  EXPECT_EQ(planOk(c, unfused()).requantBlock, 64);
  PlanOverrides o = unfused();
  o.blockM = 32;
  EXPECT_NE(planError(v4Flash(2, 128), o).find("BLOCK_M 128 on two"),
            std::string::npos);
  o = unfused();
  o.blockM = 64;
  o.mathMode = MathMode::CooperativeM;
  EXPECT_NE(planError(v4Flash(2, 128), o).find("BLOCK_M 64 on one (single)"),
            std::string::npos);
  o = unfused();
  o.poolTokens = 1024;
  EXPECT_NE(planError(v4Flash(2, 128), o)
                .find("is a ring; variant BLOCK_M 64 (tokens/rank 0..128) "
                      "cannot run it: it runs the unfused schedule"),
            std::string::npos);
  o = unfused();
  o.stages = 1;
  EXPECT_NE(planError(v4Flash(2, 128), o).find("stages (1)"),
            std::string::npos);
}

} // namespace

// k-split: off by default (stageKSplit), the override sets the BLOCK_M 64
// variant only (the BLOCK_M 128 one keeps 1), the workspace holds 2 counters
// per split tile and the partials one slot per unit of each; the rule
// refuses it where it is not built.
TEST(Plan, KSplitOverrideAndItsRule) {
  LayerConfig c = v4Flash(1, 8192);
  c.fastMath = true;
  PlanOverrides o;
  o.schedule = Schedule::Split;
  Plan heuristic = planOk(c, o);
  for (const Variant &v : heuristic.variants)
    EXPECT_EQ(v.kSplit, 1);
  EXPECT_FALSE(computeBufferLayout(c, heuristic).find("split_partials"));

  o.kSplit = 4;
  o.l1Cluster = false;
  o.l2ExpertBlocks = false;
  Plan split = planOk(c, o);
  ASSERT_EQ(split.variants.size(), 2u);
  EXPECT_EQ(split.variants[0].blockM, 64);
  EXPECT_EQ(split.variants[0].kSplit, 4);
  EXPECT_EQ(split.variants[1].kSplit, 1);
  EXPECT_EQ(kSplitTiles(132, 4), 99);
  EXPECT_EQ(kSplitTiles(132, 2), 66);
  EXPECT_EQ(kSplitTiles(132, 1), 0);
  BufferLayout l = computeBufferLayout(c, split);
  const Region *counts = l.find("split_counts");
  const Region *partials = l.find("split_partials");
  ASSERT_TRUE(counts);
  ASSERT_TRUE(partials);
  EXPECT_EQ(counts->shape, std::vector<int64_t>{2 * 99});
  EXPECT_LT(counts->offset, l.workspaceBytes);
  // A SwiGLU pair of two 128-column blocks, 64 rows: 64 x 256 floats.
  EXPECT_EQ(partials->shape, (std::vector<int64_t>{99 * 4, 64 * 256}));
  EXPECT_GE(partials->offset, l.workspaceBytes);

  for (Schedule s : {Schedule::FusedGemm})
    EXPECT_NE(planError(c, [&] { PlanOverrides x = o; x.schedule = s; return x; }())
                  .find("k-split: the fused-gemm schedule has no K-split tail"),
              std::string::npos);
  // The override is asked of the BLOCK_M 64 variant: a pinned BLOCK_M 128
  // keeps 1, and a BLOCK_M 128 variant with a K-split breaks the rule.
  o.blockM = 128;
  EXPECT_EQ(planOk(c, o).variants[0].kSplit, 1);
  o.blockM.reset();
  Plan bad = split;
  bad.variants[1].kSplit = 4;
  std::vector<std::string> errors = validatePlan(c, bad);
  ASSERT_FALSE(errors.empty());
  // (l1-cluster's and l2-expert-blocks' rules refuse it too.)
  EXPECT_TRUE(std::any_of(errors.begin(), errors.end(), [](const std::string &e) {
    return e.find("k-split: BLOCK_M is 128") != std::string::npos;
  })) << errors[0];
  o.kSplit = 3;
  EXPECT_NE(planError(c, o).find("k-split: it must be 1, 2 or 4, got 3"),
            std::string::npos);
}

// k_split survives the JSON (the runtime derives the layout's split regions
// from it), and a plan written before it existed splits no tile.
TEST(PlanJson, KSplitRoundTripsAndDefaultsToOne) {
  PlanOverrides o;
  o.schedule = Schedule::Split;
  o.kSplit = 4;
  LayerConfig c = v4Flash(1, 8192);
  Plan p = planOk(c, o);
  std::string json = planToJson(c, p);
  EXPECT_NE(json.find("\"k_split\": 4"), std::string::npos);
  LayerConfig c2;
  Plan p2;
  ASSERT_TRUE(planFromJson(json, c2, p2).empty());
  EXPECT_EQ(p2.variants[0].kSplit, 4);
  EXPECT_EQ(p2.variants[1].kSplit, 1);
  EXPECT_EQ(planToJson(c2, p2), json);
  std::string old =
      std::regex_replace(json, std::regex(R"("k_split": [0-9]+,\s*)"), "");
  ASSERT_EQ(old.find("k_split"), std::string::npos);
  Plan p3;
  ASSERT_TRUE(planFromJson(old, c2, p3).empty());
  for (const Variant &v : p3.variants)
    EXPECT_EQ(v.kSplit, 1);
}

// l1-pair-stages: the override reaches the split schedule's BLOCK_M 128
// variant (its L1 kernel fuses SwiGLU only with fast-math), round-trips
// through JSON, gives the L1 GEMM problem one BLOCK_N 256 pass (a second B
// tile per stage), and is refused where no variant can take it.
TEST(UnfusedPlan, L1PairStages) {
  LayerConfig c = v4Pro(1, 8192);
  c.fastMath = true;
  PlanOverrides o;
  o.schedule = Schedule::Split;
  o.l1PairStages = true;
  o.l1Cluster = false;
  o.l2ExpertBlocks = false;
  Plan p = planOk(c, o);
  ASSERT_EQ(p.variants.size(), 2u);
  EXPECT_EQ(p.variants[0].blockM, 64);
  EXPECT_FALSE(p.variants[0].l1PairStages); // BLOCK_M 64 splits the pair
  EXPECT_EQ(p.variants[1].blockM, 128);
  EXPECT_TRUE(p.variants[1].l1PairStages);
  GemmProblem g = layerGemmProblem(c, p, p.variants[1], LayerGemm::L1);
  EXPECT_TRUE(g.swiglu && g.swigluPairStages);
  EXPECT_EQ(g.blockN, 128);
  EXPECT_EQ(mainloopBlockN(g), 256);
  KernelPlan k = planGroupedGemmKernel(g);
  EXPECT_EQ(k.blockN, 256);
  EXPECT_EQ(k.mathWarpgroups(), 2);
  auto has = [&](const char *name) {
    return std::any_of(k.smem.begin(), k.smem.end(),
                       [&](const SmemRegionPlan &r) { return r.name == name; });
  };
  EXPECT_TRUE(has("b_tiles1"));
  // Without pair stages the same problem loads one B block per stage.
  g.swigluPairStages = false;
  KernelPlan two = planGroupedGemmKernel(g);
  EXPECT_EQ(two.blockN, 128);
  EXPECT_FALSE(std::any_of(
      two.smem.begin(), two.smem.end(),
      [](const SmemRegionPlan &r) { return r.name == "b_tiles1"; }));
  EXPECT_GT(two.stages, k.stages); // a stage holds half the B bytes
  // JSON round trip.
  Plan back;
  LayerConfig backConfig;
  std::vector<std::string> errors =
      planFromJson(planToJson(c, p, 0), backConfig, back);
  ASSERT_TRUE(errors.empty()) << errors[0];
  EXPECT_FALSE(back.variants[0].l1PairStages);
  EXPECT_TRUE(back.variants[1].l1PairStages);
  // The rule: not on the BLOCK_M 64 variant.
  Plan bad = p;
  bad.variants[0].l1PairStages = true;
  std::vector<std::string> e = validatePlan(c, bad);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("l1-pair-stages is built for the split schedule's L1 "
                      "+ SwiGLU kernel at BLOCK_M 128"),
            std::string::npos)
      << e[0];
  // The override where no variant can take it: an error, not a no-op.
  c.fastMath = false; // BLOCK_M 128 then runs L1 and the activation apart
  e = makePlan(c, o, bad);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("l1-pair-stages=true applies to no variant"),
            std::string::npos)
      << e[0];
  o.schedule = Schedule::Unfused;
  c.fastMath = true;
  e = makePlan(c, o, bad);
  ASSERT_EQ(e.size(), 1u);
  // By default: on for V4-Pro's BLOCK_M 128 variant (measured 0.85-0.88
  // of the time at 8192 tokens), off for V4-Flash (level to 5% slower).
  PlanOverrides none;
  none.schedule = Schedule::Split;
  Plan pro = planOk(c, none);
  EXPECT_FALSE(pro.variants[0].l1PairStages);
  EXPECT_TRUE(pro.variants[1].l1PairStages);
  LayerConfig flash = v4Flash(1, 8192);
  flash.fastMath = true;
  for (const Variant &v : planOk(flash, none).variants)
    EXPECT_FALSE(v.l1PairStages);
  // schedule=auto: the BLOCK_M 128 variant where an expert's m-blocks
  // share its weights is split (with l1-cluster and l2-expert-blocks 0.847
  // of split's time at V4-Pro 8192 tokens, where fused-gemm's wave order
  // was 0.951: fastestBuiltSchedule), V4-Pro's with its pair stages; the
  // one below it (4097..7167 tokens) split too (a fused-gemm BLOCK_M 128
  // variant beside the shared one gave a wrong y: not planned).
  none.schedulePerVariant = true;
  Plan autoPro = planOk(c, none);
  ASSERT_EQ(autoPro.variants.size(), 3u);
  EXPECT_EQ(scheduleOf(autoPro, autoPro.variants[1]), Schedule::Split);
  EXPECT_EQ(autoPro.variants[1].waveMBlocks, 0);
  EXPECT_TRUE(autoPro.variants[1].l1PairStages);
  EXPECT_FALSE(autoPro.variants[1].l1Cluster);
  EXPECT_EQ(scheduleOf(autoPro, autoPro.variants[2]), Schedule::Split);
  EXPECT_TRUE(autoPro.variants[2].l1PairStages);
  EXPECT_TRUE(autoPro.variants[2].l1Cluster);
  EXPECT_EQ(autoPro.variants[2].waveMBlocks, 0);
  Plan autoFlash = planOk(flash, none);
  EXPECT_EQ(scheduleOf(autoFlash, autoFlash.variants[1]), Schedule::Split);
  EXPECT_EQ(scheduleOf(autoFlash, autoFlash.variants[2]), Schedule::Split);
  c.fastMath = false;
  Plan exactPro = planOk(c, none);
  EXPECT_EQ(scheduleOf(exactPro, exactPro.variants[1]), Schedule::Split);
  EXPECT_EQ(scheduleOf(exactPro, exactPro.variants[2]), Schedule::Split);
}

// The fused-gemm schedule with l1-pull: its dispatch warps fill the pool,
// every variant has a wave order, and the planner's pool is a ring of
// kFusedGemmRingMBlocks m-blocks (stagePoolTokens): V4-Pro at EP8 and 8192
// tokens per rank in at most 1.2 GiB. The block tables and counters keep
// the layout's (worst-case) rows; the data regions hold the ring's; the
// slots' counter sits in the workspace. pool-tokens=0 asks for the worst
// case; a ring the wave order cannot run is refused.
TEST(FusedGemmPlan, L1PullRing) {
  LayerConfig c = v4Pro(8, 8192);
  c.fastMath = true;
  PlanOverrides o;
  o.schedule = Schedule::FusedGemm;
  o.l1Pull = true;
  Plan p = planOk(c, o);
  ASSERT_EQ(p.variants.size(), 2u);
  for (const Variant &v : p.variants) {
    EXPECT_TRUE(v.l1Pull);
    EXPECT_EQ(v.waveMBlocks, 4);
    EXPECT_EQ(v.waveLag, 1);
  }
  int64_t worst = worstCasePoolTokens(c, 128);
  EXPECT_EQ(p.poolTokens, kFusedGemmRingMBlocks * 128);
  EXPECT_EQ(poolLayoutRows(c, p), worst);
  EXPECT_TRUE(poolWraps(c, p));
  BufferLayout b = computeBufferLayout(c, p);
  EXPECT_LE(b.totalBytes, int64_t(1288490188)) << "1.2 GiB: " << b.totalBytes;
  const Region *done = b.find("pool_ring_done");
  ASSERT_TRUE(done);
  EXPECT_EQ(done->shape, std::vector<int64_t>{p.poolTokens / kMinBlockM});
  EXPECT_LT(done->offset, b.workspaceBytes);
  EXPECT_EQ(b.find("l1_pool")->shape,
            (std::vector<int64_t>{p.poolTokens, c.hidden}));
  EXPECT_EQ(b.find("pool_block_expert")->shape,
            std::vector<int64_t>{worst / 64});
  EXPECT_EQ(b.find("pull_arrivals")->shape, std::vector<int64_t>{worst / 64});
  // The GEMM problems: the pool's data rows and the layout's.
  GemmProblem g = layerGemmProblem(c, p, p.variants[1], LayerGemm::L1);
  EXPECT_TRUE(g.pullRows && g.poolRing());
  EXPECT_EQ(g.staticM, p.poolTokens);
  EXPECT_EQ(g.layoutRowCapacity(), worst);
  // The worst case on request: no ring, no ring counter.
  o.poolTokens = 0;
  Plan w = planOk(c, o);
  EXPECT_EQ(w.poolTokens, worst);
  EXPECT_FALSE(poolWraps(c, w));
  EXPECT_FALSE(computeBufferLayout(c, w).find("pool_ring_done"));
  EXPECT_EQ(layerGemmProblem(c, w, w.variants[1], LayerGemm::L1).poolLayoutRows,
            0);
  // Without l1-pull the planner keeps the worst case, and refuses a ring.
  o = PlanOverrides();
  o.schedule = Schedule::FusedGemm;
  EXPECT_EQ(planOk(c, o).poolTokens, worst);
  o.poolTokens = 32768;
  EXPECT_NE(planError(c, o).find("it runs the fused-gemm schedule without "
                                 "l1-pull"),
            std::string::npos);
  // A ring below (lag + 1) x wave m-blocks.
  o.l1Pull = true;
  o.waveMBlocks = 8;
  o.poolTokens = 1024; // 8 m-blocks of 128
  EXPECT_NE(planError(c, o).find("its ring of 8 m-blocks is below (wave-lag + "
                                 "1) x wave-m-blocks = 16"),
            std::string::npos);
}

// l2-expert-blocks: the override reaches the split schedule's BLOCK_M 128
// variant (half blocks), round-trips through JSON, gives the L2 GEMM
// problem 256 x 128 expert-block tiles and the buffer its table, and is
// refused where no variant can take it.
// The split L1 kernel in clusters of 2 (Variant::l1Cluster): on by default
// where it applies (the split schedule's BLOCK_M 128 variant with half
// blocks on sm_90a, without k-split or l1-pull), its L1 GEMM problem with
// clusterM 2 and its L2 GEMM without; JSON round trip; the rules.
TEST(UnfusedPlan, L1Cluster) {
  LayerConfig c = v4Pro(1, 8192);
  c.fastMath = true;
  PlanOverrides o;
  o.schedule = Schedule::Split;
  Plan p = planOk(c, o);
  // BLOCK_M 64, BLOCK_M 128 below 112 expected rows per expert (7168
  // tokens: sharedWeightsMinTokens) without, from there with.
  ASSERT_EQ(p.variants.size(), 3u);
  EXPECT_FALSE(p.variants[0].l1Cluster); // BLOCK_M 64: no half blocks
  EXPECT_FALSE(p.variants[1].l1Cluster);
  EXPECT_EQ(sharedWeightsMinTokens(c), 7168);
  EXPECT_EQ(p.variants[1].minTokens, 4097);
  EXPECT_EQ(p.variants[1].maxTokens, 7167);
  EXPECT_EQ(p.variants[2].minTokens, 7168);
  EXPECT_TRUE(p.variants[2].l1Cluster && p.variants[2].l2ExpertBlocks);
  EXPECT_EQ(sharedWeightsMinTokens(v4Flash(1, 8192)), 4779);
  // Asked for, one BLOCK_M 128 variant takes it whole.
  o.l1Cluster = true;
  Plan asked = planOk(c, o);
  ASSERT_EQ(asked.variants.size(), 2u);
  EXPECT_TRUE(asked.variants[1].l1Cluster);
  o.l1Cluster.reset();
  p = asked;
  GemmProblem l1 = layerGemmProblem(c, p, p.variants[1], LayerGemm::L1);
  EXPECT_EQ(l1.clusterM, 2);
  EXPECT_TRUE(l1.swiglu && l1.halfBlocks && l1.swigluPairStages);
  EXPECT_EQ(planGroupedGemmKernel(l1).clusterM, 2);
  EXPECT_EQ(layerGemmProblem(c, p, p.variants[1], LayerGemm::L2).clusterM, 1);
  EXPECT_EQ(layerGemmProblem(c, p, p.variants[0], LayerGemm::L1).clusterM, 1);
  // JSON round trip; an older plan has none.
  Plan back;
  LayerConfig backConfig;
  std::vector<std::string> errors =
      planFromJson(planToJson(c, p, 0), backConfig, back);
  ASSERT_TRUE(errors.empty()) << errors[0];
  EXPECT_FALSE(back.variants[0].l1Cluster);
  EXPECT_TRUE(back.variants[1].l1Cluster);
  // false turns it off; the unfused and fused-gemm schedules never have it.
  o.l1Cluster = false;
  for (const Variant &v : planOk(c, o).variants)
    EXPECT_FALSE(v.l1Cluster);
  o.l1Cluster.reset();
  for (Schedule s : {Schedule::Unfused, Schedule::FusedGemm}) {
    o.schedule = s;
    for (const Variant &v : planOk(c, o).variants)
      EXPECT_FALSE(v.l1Cluster) << toString(s);
    o.l1Cluster = true;
    std::vector<std::string> e;
    Plan none;
    e = makePlan(c, o, none);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_NE(e[0].find("l1-cluster=true applies to no variant"),
              std::string::npos)
        << e[0];
    o.l1Cluster.reset();
  }
  o.schedule = Schedule::Split;
  // With l1-pull it does not apply; with the tiled L1 weights the
  // heuristic gives way, and asked for with them the rule refuses.
  o.l1Pull = true;
  for (const Variant &v : planOk(c, o).variants)
    EXPECT_FALSE(v.l1Cluster);
  o.l1Pull.reset();
  o.l1WeightTiles = true;
  for (const Variant &v : planOk(c, o).variants)
    EXPECT_FALSE(v.l1Cluster);
  Plan bad = p;
  bad.l1WeightTiles = true;
  std::vector<std::string> e = validatePlan(c, bad);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("l1-cluster loads half column blocks"), std::string::npos)
      << e[0];
  // Not on the BLOCK_M 64 variant.
  bad = p;
  bad.variants[0].l1Cluster = true;
  e = validatePlan(c, bad);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("l1-cluster is built for the split schedule's L1 "
                      "kernel at BLOCK_M 128 with half blocks"),
            std::string::npos)
      << e[0];
}

TEST(UnfusedPlan, L2ExpertBlocks) {
  LayerConfig c = v4Pro(1, 8192);
  PlanOverrides o;
  o.schedule = Schedule::Split;
  o.l2ExpertBlocks = false;
  Plan off = planOk(c, o);
  o.l2ExpertBlocks = true;
  Plan p = planOk(c, o);
  ASSERT_EQ(p.variants.size(), 2u);
  EXPECT_FALSE(p.variants[0].l2ExpertBlocks); // BLOCK_M 64: no half blocks
  EXPECT_TRUE(p.variants[1].l2ExpertBlocks);
  EXPECT_EQ(p.variants[1].expertAlign, kHalfBlockRows);
  GemmProblem l2 = layerGemmProblem(c, p, p.variants[1], LayerGemm::L2);
  EXPECT_TRUE(l2.expertBlocks && l2.combineScatter);
  EXPECT_FALSE(l2.halfBlocks);
  EXPECT_EQ(l2.blockM, kExpertBlockRows);
  EXPECT_EQ(l2.blockN, 128);
  EXPECT_EQ(p.variants[1].l2BlockN, 128); // the plan says what runs
  EXPECT_EQ(off.variants[1].l2BlockN, 256);
  KernelPlan k = planGroupedGemmKernel(l2);
  EXPECT_EQ(k.rowBlocks, 2);
  EXPECT_EQ(k.mathWarpgroups(), 2);
  EXPECT_TRUE(validateKernelPlan(k).empty());
  // The L1 GEMM keeps the 128-row half-block m-blocks.
  GemmProblem l1 = layerGemmProblem(c, p, p.variants[1], LayerGemm::L1);
  EXPECT_EQ(l1.blockM, 128);
  EXPECT_TRUE(l1.halfBlocks && !l1.expertBlocks);
  // The table: one entry per 64-row unit of the layout, only when asked.
  BufferLayout with = computeBufferLayout(c, p);
  BufferLayout without = computeBufferLayout(c, off);
  const Region *table = with.find("pool_expert_block");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->shape, std::vector<int64_t>{poolLayoutRows(c, p) / 64});
  EXPECT_EQ(without.find("pool_expert_block"), nullptr);
  // JSON round trip; an older plan has none.
  Plan back;
  LayerConfig backConfig;
  std::vector<std::string> errors =
      planFromJson(planToJson(c, p, 0), backConfig, back);
  ASSERT_TRUE(errors.empty()) << errors[0];
  EXPECT_FALSE(back.variants[0].l2ExpertBlocks);
  EXPECT_TRUE(back.variants[1].l2ExpertBlocks);
  // The rule: not on the BLOCK_M 64 variant.
  Plan bad = p;
  bad.variants[0].l2ExpertBlocks = true;
  bad.variants[0].l2BlockN = 128; // only the BLOCK_M 64 rule fails
  std::vector<std::string> e = validatePlan(c, bad);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("l2-expert-blocks is built for the split schedule's "
                      "L2 GEMM at BLOCK_M 128 with half blocks"),
            std::string::npos)
      << e[0];
  // Not with 256-column L2 tiles.
  bad = p;
  bad.variants[1].l2BlockN = 256;
  e = validatePlan(c, bad);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("l2-expert-blocks needs L2 BLOCK_N 128"),
            std::string::npos)
      << e[0];
  // The override where no variant can take it: an error, not a no-op.
  for (Schedule s : {Schedule::Unfused, Schedule::FusedGemm}) {
    o.schedule = s;
    e = makePlan(c, o, bad);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_NE(e[0].find("l2-expert-blocks=true applies to no variant"),
              std::string::npos)
        << e[0];
  }
  o.schedule = Schedule::Split;
  c.recipe.requantBlock = 64; // two A scales per K block: not built
  e = makePlan(c, o, bad);
  ASSERT_EQ(e.size(), 1u);
  // On by default where it applies (stageL2ExpertBlocks); false turns it
  // off.
  c.recipe.requantBlock = 128;
  for (const Variant &v : off.variants)
    EXPECT_FALSE(v.l2ExpertBlocks);
  o.l2ExpertBlocks.reset();
  Plan byDefault = planOk(c, o);
  ASSERT_EQ(byDefault.variants.size(), 3u);
  EXPECT_FALSE(byDefault.variants[0].l2ExpertBlocks);
  EXPECT_FALSE(byDefault.variants[1].l2ExpertBlocks);
  EXPECT_TRUE(byDefault.variants[2].l2ExpertBlocks);
}
