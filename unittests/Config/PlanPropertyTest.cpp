//===- PlanPropertyTest.cpp - random layers through rules, planner, layout ===//
//
// Seeded property tests: thousands of random layer configs and plan overrides
// (mostly near the rules' edges, some absurd) go through validate, makePlan,
// validatePlan and computeBufferLayout. A valid result must be usable (regions
// disjoint, aligned, inside the buffer; shared memory and registers fit); an
// invalid one must be a list of sentences. A crash, an assert or (under
// UBSan) an overflow fails the test binary itself.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/Chip.h"
#include "megamoe/Config/Plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

using namespace megamoe::config;

namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

class Gen {
public:
  explicit Gen(uint32_t seed) : rng(seed) {}

  /// One of `typical` most of the time, else an edge value.
  int64_t pick(std::initializer_list<int64_t> typical) {
    if (chance(0.85)) {
      std::uniform_int_distribution<size_t> d(0, typical.size() - 1);
      return *(typical.begin() + d(rng));
    }
    static const int64_t edges[] = {
        0,    -1,      1,       2,       3,       127,        129,
        4097, 1 << 20, 1 << 31, kI64Max, kI64Min, kI64Max / 2};
    std::uniform_int_distribution<size_t> d(0, std::size(edges) - 1);
    return edges[d(rng)];
  }
  size_t index(size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
  template <typename T> std::optional<T> maybe(double p, T value) {
    return chance(p) ? std::optional<T>(value) : std::nullopt;
  }

  LayerConfig config() {
    LayerConfig c;
    c.hidden = pick({128, 256, 512, 1024, 4096, 7168, 65536});
    c.intermediate = pick({128, 256, 384, 2048, 3072});
    c.ranks = pick({1, 2, 4, 8, 72});
    c.experts = pick({1, 2, 4, 8, 16, 48, 256, 384, 4096});
    c.topk = pick({1, 2, 4, 6, 8});
    c.maxTokensPerRank = pick({1, 7, 64, 128, 129, 512, 8192});
    c.recipe.requantBlock = pick({128, 64});
    if (chance(0.05))
      c.recipe.inputScaleBlock = pick({64, 256});
    if (chance(0.05))
      c.recipe.weightScaleBlock = pick({64, 256});
    if (chance(0.05))
      c.recipe.activation = DType::BF16;
    if (chance(0.05))
      c.recipe.output = DType::F32;
    if (chance(0.2))
      c.clamp =
          chance(0.8)
              ? 7.0
              : (chance(0.5) ? -1.0 : std::numeric_limits<double>::quiet_NaN());
    c.chip = chance(0.95) ? Chip::SM90a : Chip::SM100a;
    return c;
  }

  PlanOverrides overrides() {
    PlanOverrides o;
    if (chance(0.4))
      o.schedule = chance(0.5) ? Schedule::Unfused : Schedule::Fused;
    if (chance(0.3))
      o.blockM = pick({32, 64, 128});
    if (chance(0.1))
      o.l1BlockN = pick({128, 256, 512});
    if (chance(0.1))
      o.l2BlockN = pick({64, 128, 256});
    if (chance(0.1))
      o.blockK = pick({128, 256});
    if (chance(0.15))
      o.stages = pick({0, 2, 3, 4, 8});
    if (chance(0.1))
      o.expertsPerWave = pick({1, 2, 8});
    if (chance(0.2))
      o.numSMs = pick({33, 66, 132, 200});
    if (chance(0.1))
      o.mathMode = chance(0.5) ? MathMode::Single : MathMode::CooperativeN;
    if (chance(0.1))
      o.producerRegisters = pick({24, 40, 56});
    if (chance(0.1))
      o.mathRegisters = pick({200, 232, 240});
    if (chance(0.1))
      o.poolTokens = pick({0, 128, 256, 1024});
    return o;
  }

private:
  std::mt19937 rng;
};

/// Why a plan that makePlan accepted could not run; empty when it can.
void expectUsable(const LayerConfig &c, const Plan &p, const std::string &who) {
  std::vector<std::string> again = validatePlan(c, p);
  EXPECT_TRUE(again.empty()) << who << ": makePlan accepted a plan that "
                             << "validatePlan rejects: " << again.front();
  ASSERT_FALSE(p.variants.empty()) << who;
  for (const Variant &v : p.variants) {
    EXPECT_LE(v.smemBytes, chipLimits(c.chip).smemPerBlock) << who;
    // The unfused schedule's kernels set their own registers (the grouped
    // GEMM's); its plan only records them.
    if (p.schedule != Schedule::Unfused) {
      int64_t regs = 128 * (v.registers.producer +
                            v.activeMathWarpgroups() * v.registers.math +
                            (2 - v.activeMathWarpgroups()) * v.registers.idle);
      EXPECT_LE(regs, chipLimits(c.chip).registersPerSM) << who;
    }
    EXPECT_GE(v.blockM, 1) << who;
    EXPECT_LE(v.minTokens, v.maxTokens) << who;
  }
  EXPECT_EQ(p.variants.front().minTokens, 0) << who;
  EXPECT_EQ(p.variants.back().maxTokens, c.maxTokensPerRank) << who;
  // Every token count a call may pass has a variant.
  for (int64_t n : {int64_t(0), c.maxTokensPerRank / 2, c.maxTokensPerRank})
    EXPECT_NE(selectVariant(p, n), nullptr) << who << " n=" << n;
  EXPECT_EQ(selectVariant(p, c.maxTokensPerRank + 1), nullptr) << who;

  BufferLayout b = computeBufferLayout(c, p);
  ASSERT_FALSE(b.regions.empty()) << who;
  int64_t end = 0;
  for (const Region &r : b.regions) {
    EXPECT_EQ(r.offset % BufferLayout::kAlignment, 0) << who << " " << r.name;
    EXPECT_GE(r.offset, end) << who << " " << r.name << " overlaps";
    EXPECT_GT(r.bytes, 0) << who << " " << r.name;
    int64_t shapeBytes = r.elementBytes;
    for (int64_t d : r.shape) {
      EXPECT_GT(d, 0) << who << " " << r.name;
      shapeBytes *= d;
    }
    EXPECT_EQ(shapeBytes, r.bytes) << who << " " << r.name;
    end = r.offset + r.bytes;
    EXPECT_LE(end, b.totalBytes) << who << " " << r.name << " outside";
    EXPECT_EQ(b.find(r.name), &r) << who << " duplicate " << r.name;
  }
  EXPECT_EQ(b.totalBytes % BufferLayout::kAlignment, 0) << who;
  EXPECT_GT(b.workspaceBytes, 0) << who;
  EXPECT_LE(b.workspaceBytes, b.totalBytes) << who;
  // The pool holds the worst case when the plan says it does.
  const Region *pool = b.find("l1_pool");
  ASSERT_NE(pool, nullptr) << who;
  EXPECT_EQ(pool->shape.front(), p.poolTokens) << who;
}

void expectSentences(const std::vector<std::string> &errors,
                     const std::string &who) {
  for (const std::string &e : errors) {
    EXPECT_GE(e.size(), 10u) << who << ": a terse error \"" << e << "\"";
    EXPECT_EQ(e.find('\n'), std::string::npos) << who << ": " << e;
  }
}

std::string describe(const LayerConfig &c, const PlanOverrides &o) {
  std::string s =
      "H=" + std::to_string(c.hidden) + " I=" + std::to_string(c.intermediate) +
      " E=" + std::to_string(c.experts) + " K=" + std::to_string(c.topk) +
      " R=" + std::to_string(c.ranks) +
      " T=" + std::to_string(c.maxTokensPerRank) +
      " requant=" + std::to_string(c.recipe.requantBlock);
  if (o.schedule)
    s += std::string(" schedule=") + toString(*o.schedule);
  if (o.blockM)
    s += " block-m=" + std::to_string(*o.blockM);
  if (o.numSMs)
    s += " num-sms=" + std::to_string(*o.numSMs);
  if (o.stages)
    s += " stages=" + std::to_string(*o.stages);
  if (o.poolTokens)
    s += " pool-tokens=" + std::to_string(*o.poolTokens);
  return s;
}

TEST(PlanProperty, RandomLayersGiveUsablePlansOrSentences) {
  constexpr int kCases = 20000;
  int valid = 0, planned = 0;
  for (uint32_t seed = 0; seed < kCases; ++seed) {
    Gen g(seed);
    LayerConfig c = g.config();
    PlanOverrides o = g.overrides();
    std::string who =
        "seed " + std::to_string(seed) + " (" + describe(c, o) + ")";
    std::vector<std::string> rules = validate(c);
    expectSentences(rules, who);
    Plan p;
    std::vector<std::string> errors = makePlan(c, o, p);
    expectSentences(errors, who);
    if (!rules.empty()) {
      EXPECT_FALSE(errors.empty()) << who << ": an invalid layer was planned";
      continue;
    }
    ++valid;
    if (!errors.empty())
      continue;
    ++planned;
    expectUsable(c, p, who);
    if (p.schedule == Schedule::Unfused)
      for (const Variant &v : p.variants) {
        EXPECT_EQ(v.registers.producer, chipLimits(c.chip).producerRegisters)
            << who;
        EXPECT_EQ(v.registers.math, chipLimits(c.chip).mathRegisters) << who;
      }
    if (::testing::Test::HasFailure())
      return; // one reproducer is enough
  }
  // The generator must exercise both sides of the rules.
  EXPECT_GT(valid, kCases / 10);
  EXPECT_GT(planned, kCases / 20);
}

/// A plan mutated field by field is either still valid (and then usable) or
/// rejected with sentences; validatePlan never trips over it.
TEST(PlanProperty, MutatedPlansAreRejectedOrUsable) {
  constexpr int kCases = 10000;
  for (uint32_t seed = 0; seed < kCases; ++seed) {
    Gen g(seed + 1000003);
    LayerConfig c = g.config();
    PlanOverrides o;
    o.schedule = g.chance(0.5) ? Schedule::Unfused : Schedule::Fused;
    Plan p;
    if (!validate(c).empty() || !makePlan(c, o, p).empty())
      continue;
    std::string who =
        "seed " + std::to_string(seed) + " (" + describe(c, o) + ")";
    Variant &v = p.variants[g.index(p.variants.size())];
    switch (seed % 12) {
    case 0:
      v.blockM = g.pick({32, 64, 128});
      break;
    case 1:
      v.l1BlockN = g.pick({128, 256});
      break;
    case 2:
      v.l2BlockN = g.pick({64, 128});
      break;
    case 3:
      v.blockK = g.pick({128, 256});
      break;
    case 4:
      v.stages = g.pick({0, 2, 4, 8});
      break;
    case 5:
      v.minTokens = g.pick({0, 1});
      v.maxTokens = g.pick({64, 128});
      break;
    case 6:
      v.registers.math = g.pick({232, 240});
      break;
    case 7:
      v.smemBytes = g.pick({0, 1024});
      break;
    case 8:
      p.poolTokens = g.pick({128, 256});
      break;
    case 9:
      p.numSMs = g.pick({1, 132});
      break;
    case 10:
      v.expertsPerWave = g.pick({1, 2});
      break;
    case 11:
      p.variants.clear();
      break;
    }
    std::vector<std::string> errors = validatePlan(c, p);
    expectSentences(errors, who);
    if (errors.empty())
      expectUsable(c, p, who);
    if (::testing::Test::HasFailure())
      return;
  }
}

// Regressions the property tests found (each was UB: an overflow or a
// division by zero before the rule that rejects the input).
TEST(PlanProperty, HugeTokenBoundIsASentenceNotAnOverflow) {
  LayerConfig c;
  c.hidden = c.intermediate = 128;
  c.experts = 8;
  c.topk = 8;
  c.maxTokensPerRank = kI64Max / 2;
  std::vector<std::string> errors = validate(c);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("must stay below 2^31"), std::string::npos)
      << errors[0];
}

TEST(PlanProperty, L1BlockNWiderThanTheLayerIsASentence) {
  LayerConfig c;
  c.hidden = 1024;
  c.intermediate = 128;
  c.experts = 8;
  c.topk = 2;
  c.maxTokensPerRank = 64;
  PlanOverrides o;
  o.l1BlockN = 512; // 2 x I = 256: not one tile
  Plan p;
  std::vector<std::string> errors = makePlan(c, o, p);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("L1 BLOCK_N (512)"), std::string::npos) << errors[0];
}

TEST(PlanProperty, AbsurdRegisterTargetsAreASentence) {
  LayerConfig c;
  c.hidden = 1024;
  c.intermediate = 256;
  c.experts = 8;
  c.topk = 2;
  c.maxTokensPerRank = 64;
  Plan p;
  ASSERT_TRUE(makePlan(c, {}, p).empty());
  p.variants[0].registers.math = kI64Min;
  std::vector<std::string> errors = validatePlan(c, p);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("must be multiples of 8 in [24, 256]"),
            std::string::npos)
      << errors[0];
}

} // namespace
