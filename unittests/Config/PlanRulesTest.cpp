//===- PlanRulesTest.cpp - the rule table of validatePlan -----------------===//
#include "Shapes.h"

#include "megamoe/Config/Plan.h"

#include <algorithm>
#include <limits>
#include <gtest/gtest.h>

using namespace megamoe::config;
using namespace megamoe::config::testing;

namespace {

bool has(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(PlanRules, EachScheduleHasItsRules) {
  for (Schedule s : {Schedule::Fused, Schedule::Split, Schedule::Unfused}) {
    std::vector<std::string> names = planRuleNames(s);
    // Shared by every schedule.
    for (const char *shared :
         {"chip", "sm-count", "requant-block", "token-range", "token-coverage"})
      EXPECT_TRUE(has(names, shared)) << toString(s) << ": " << shared;
    // Unfused and (as built today) split run stage kernels on the grouped
    // GEMM; fused is the persistent layer kernel.
    bool stages = s != Schedule::Fused;
    EXPECT_EQ(has(names, "role-layout"), !stages) << toString(s);
    EXPECT_EQ(has(names, "smem-fit"), !stages) << toString(s);
    EXPECT_EQ(has(names, "pool-ring"), !stages) << toString(s);
    EXPECT_EQ(has(names, "stage-kernels-gemm-tile"), stages) << toString(s);
    EXPECT_EQ(has(names, "stage-kernels-worst-case-pool"), stages)
        << toString(s);
  }
}

Plan planned(const LayerConfig &c, Schedule s) {
  PlanOverrides o;
  o.schedule = s;
  Plan p;
  EXPECT_TRUE(makePlan(c, o, p).empty());
  return p;
}

/// A rule shared by the schedules gives the same message for each.
TEST(PlanRules, SharedRulesSayTheSameForEverySchedule) {
  LayerConfig c = v4Flash(2, 128);
  for (Schedule s : {Schedule::Fused, Schedule::Unfused}) {
    Plan p = planned(c, s);
    p.numSMs = 200;
    p.requantBlock = 64;
    std::vector<std::string> e = validatePlan(c, p);
    ASSERT_EQ(e.size(), 2u) << toString(s);
    EXPECT_EQ(e[0], "number of SMs (200) must be between 1 and the 132 SMs of "
                    "sm_90a: the persistent grid needs every CTA resident");
    EXPECT_EQ(e[1], "the plan requantizes per 64 channels but the recipe says "
                    "128");
  }
}

TEST(PlanRules, TokenRangesAndCoverage) {
  LayerConfig c = v4Flash(2, 8192);
  for (Schedule s : {Schedule::Fused, Schedule::Unfused}) {
    Plan p = planned(c, s);
    p.variants.back().maxTokens = 4000;
    std::vector<std::string> e = validatePlan(c, p);
    ASSERT_FALSE(e.empty()) << toString(s);
    EXPECT_EQ(e.back(),
              "the variants must cover 0..8192 tokens per rank; they end at "
              "4000")
        << toString(s);
    p = planned(c, s);
    p.variants.front().minTokens = 1;
    e = validatePlan(c, p);
    ASSERT_FALSE(e.empty()) << toString(s);
    EXPECT_NE(e[0].find(": token ranges must be contiguous from 0 to T = 8192 "
                        "(expected to start at 0)"),
              std::string::npos)
        << e[0];
  }
}

// Per-64 requantization plans for the unfused, split and fused-gemm
// schedules on sm_90a; sm_100a refuses it with the reason.
TEST(PlanRules, PerSixtyFourRequantization) {
  LayerConfig c = v4Flash(1, 8192);
  c.recipe.requantBlock = 64;
  for (Schedule s : {Schedule::Unfused, Schedule::Split, Schedule::FusedGemm}) {
    Plan p = planned(c, s);
    EXPECT_EQ(p.requantBlock, 64) << toString(s);
  }
  PlanOverrides o;
  Plan p;
  c.chip = Chip::SM100a;
  o.schedule = Schedule::Split;
  std::vector<std::string> e = makePlan(c, o, p);
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("per-64 requantization is built for sm_90a only"),
            std::string::npos)
      << e[0];
}

// The wave order is the fused-gemm kernel's: other schedules, a lag
// without waves and a K-split tail are refused with the reason.
TEST(PlanRules, WaveOrder) {
  LayerConfig c = v4Flash(1, 8192);
  PlanOverrides o;
  o.schedule = Schedule::FusedGemm;
  o.waveMBlocks = 4;
  Plan p;
  EXPECT_TRUE(makePlan(c, o, p).empty());
  auto refused = [&](const PlanOverrides &bad, const std::string &why) {
    Plan q;
    std::vector<std::string> e = makePlan(c, bad, q);
    ASSERT_FALSE(e.empty()) << why;
    EXPECT_NE(e[0].find(why), std::string::npos) << e[0];
  };
  PlanOverrides split = o;
  split.schedule = Schedule::Split;
  refused(split, "wave order: the split schedule runs L1 and L2 in separate "
                 "kernels (fused-gemm only)");
  PlanOverrides lagOnly;
  lagOnly.schedule = Schedule::FusedGemm;
  lagOnly.waveLag = 3;
  refused(lagOnly, "wave order: wave-lag 3 needs wave-m-blocks > 0");
  PlanOverrides negative = o;
  negative.waveMBlocks = -1;
  refused(negative, "wave-m-blocks");
}

TEST(PlanRules, UnfusedChecksTheLayerChip) {
  LayerConfig c = v4Flash(2, 128);
  Plan p = planned(c, Schedule::Unfused);
  p.chip = Chip::SM100a;
  std::vector<std::string> e = validatePlan(c, p);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "the plan is for sm_100a but the layer targets sm_90a");
}

TEST(PlanRules, NoVariantStopsTheChecks) {
  LayerConfig c = v4Flash(2, 128);
  Plan p = planned(c, Schedule::Fused);
  p.variants.clear();
  EXPECT_EQ(validatePlan(c, p),
            std::vector<std::string>{"the plan has no kernel variant"});
  p = planned(c, Schedule::Unfused);
  p.variants.clear();
  EXPECT_EQ(validatePlan(c, p),
            std::vector<std::string>{
                "the unfused schedule has one to three variants (BLOCK_M 64, "
                "128, 128 with shared weights), got 0"});
}

// An absurd BLOCK_M (a corrupted manifest) is a variant error, not an
// overflow in the worst-case pool of the stage-kernel schedules (UBSan in
// the runtime's manifest fuzz test found it).
TEST(PlanRules, AnAbsurdBlockMDoesNotSizeThePool) {
  LayerConfig c = v4Flash(2, 128);
  for (Schedule s : {Schedule::Unfused, Schedule::Split}) {
    Plan p = planned(c, s);
    for (Variant &v : p.variants)
      v.blockM = std::numeric_limits<int64_t>::max() - 1;
    std::vector<std::string> e = validatePlan(c, p);
    ASSERT_FALSE(e.empty());
    for (const std::string &m : e)
      EXPECT_EQ(m.find("worst-case pool"), std::string::npos) << m;
  }
}

} // namespace
