//===- MoeLayerTest.cpp - the CPU reference of the whole layer ------------===//
#include "megamoe/Reference/MoeLayer.h"
#include "megamoe/Reference/Fp8.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace megamoe::ref;

namespace {

/// Random inputs in the contract's layout: every FP8 value a finite code,
/// every scale positive.
struct RandomLayer {
  MoeShape shape;
  int64_t tokens;
  std::vector<uint8_t> x, w1, w2;
  std::vector<float> xSf, w1Sf, w2Sf, topkWeights;
  std::vector<int64_t> topkIdx;

  RandomLayer(MoeShape s, int64_t t, unsigned seed) : shape(s), tokens(t) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::uniform_real_distribution<float> unit(0.5f, 1.5f);
    auto codes = [&](int64_t n, float scale) {
      std::vector<uint8_t> v(n);
      for (auto &c : v)
        c = floatToE4M3(normal(rng) * scale);
      return v;
    };
    auto scales = [&](int64_t n, float base) {
      std::vector<float> v(n);
      for (auto &f : v)
        f = base * unit(rng);
      return v;
    };
    const int64_t h = s.hidden, i = s.intermediate, e = s.experts;
    x = codes(t * h, 100.0f);
    xSf = scales(t * h / 128, 0.01f);
    w1 = codes(e * 2 * i * h, 100.0f);
    w1Sf = scales(e * 2 * i * h / 128 / 128, 1.0f / 448 / std::sqrt(float(h)));
    w2 = codes(e * h * i, 100.0f);
    w2Sf = scales(e * h * i / 128 / 128, 1.0f / 448 / std::sqrt(float(i)));
    std::uniform_int_distribution<int64_t> expert(0, e - 1);
    for (int64_t n = 0; n < t * s.topk; ++n) {
      topkIdx.push_back(expert(rng));
      topkWeights.push_back(unit(rng) / s.topk);
    }
  }
  MoeWeights weights() const {
    return {w1.data(), w1Sf.data(), w2.data(), w2Sf.data()};
  }
  MoeTokens inputs() const {
    return {tokens, x.data(), xSf.data(), topkIdx.data(), topkWeights.data()};
  }
};

const MoeShape kSmall{256, 128, 4, 2};

std::vector<uint16_t> run(const RandomLayer &l, MoeRecipe recipe = {}) {
  std::vector<uint16_t> y;
  std::string error;
  EXPECT_TRUE(moeForward(l.shape, recipe, l.weights(), l.inputs(), y, error))
      << error;
  return y;
}

double relativeL2(const std::vector<uint16_t> &a, const std::vector<float> &b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = bf16ToFloat(a[i]) - b[i];
    num += d * d;
    den += double(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

} // namespace

TEST(MoeLayer, HandComputedSingleToken) {
  // H = I = 128, one expert: x = 1 everywhere (scale 1); gate rows 2^-7,
  // up rows 2^-6, so h_gate = 1, h_up = 2; every channel of the activation is
  // silu(1) * 2 * w, the requant maps it to 448 exactly, and with L2 rows of
  // 2^-7, o = 128 * a * 2^-7 = a.
  const MoeShape shape{128, 128, 1, 1};
  std::vector<uint8_t> x(128, floatToE4M3(1.0f)), w1(256 * 128), w2(128 * 128);
  for (int64_t r = 0; r < 256; ++r)
    for (int64_t c = 0; c < 128; ++c)
      w1[r * 128 + c] = floatToE4M3(r < 128 ? 0x1p-7f : 0x1p-6f);
  for (auto &v : w2)
    v = floatToE4M3(0x1p-7f);
  std::vector<float> xSf(1, 1.0f), w1Sf(2, 1.0f), w2Sf(1, 1.0f);
  std::vector<int64_t> idx{0};
  std::vector<float> weight{0.75f};
  std::vector<uint16_t> y;
  std::string error;
  ASSERT_TRUE(moeForward(
      shape, {}, {w1.data(), w1Sf.data(), w2.data(), w2Sf.data()},
      {1, x.data(), xSf.data(), idx.data(), weight.data()}, y, error))
      << error;
  const double expected = 1.0 / (1.0 + std::exp(-1.0)) * 2.0 * 0.75;
  ASSERT_EQ(y.size(), 128u);
  for (uint16_t v : y)
    EXPECT_NEAR(bf16ToFloat(v), expected, expected * 0x1p-8);
}

TEST(MoeLayer, ClampChangesTheResultOnlyWhenReached) {
  RandomLayer l(kSmall, 5, 3);
  MoeRecipe loose, tight;
  loose.clamp = 1e30f;
  tight.clamp = 1e-3f;
  EXPECT_EQ(run(l), run(l, loose));
  EXPECT_NE(run(l), run(l, tight));
}

TEST(MoeLayer, MaskedSlotsAreSkipped) {
  RandomLayer l(kSmall, 4, 5);
  std::vector<uint16_t> full = run(l);
  l.topkIdx[0 * 2 + 0] = -1; // token 0 loses slot 0
  l.topkIdx[1 * 2 + 0] = -1; // token 1 loses both slots
  l.topkIdx[1 * 2 + 1] = -1;
  std::vector<uint16_t> masked = run(l);
  for (int64_t c = 0; c < 256; ++c)
    EXPECT_EQ(masked[256 + c], 0) << "token with every slot masked";
  // Tokens 2 and 3 are untouched.
  for (int64_t c = 2 * 256; c < 4 * 256; ++c)
    EXPECT_EQ(masked[c], full[c]);
  // Token 0 now equals its slot 1 output alone.
  std::vector<uint16_t> slots;
  std::string error;
  ASSERT_TRUE(
      expertOutputs(l.shape, {}, l.weights(), l.inputs(), slots, error));
  for (int64_t c = 0; c < 256; ++c)
    EXPECT_EQ(masked[c], floatToBF16(bf16ToFloat(slots[1 * 256 + c])));
}

TEST(MoeLayer, CombineSumsInSlotOrder) {
  // FP32: (1 + -1) + 2^-30 = 2^-30 but (1 + 2^-30) + -1 = 0, so the result
  // tells the order apart. A masked slot's content (NaN here) is ignored.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<uint16_t> slots{floatToBF16(1.0f), floatToBF16(nan),
                                    floatToBF16(-1.0f), floatToBF16(0x1p-30f)};
  const std::vector<int64_t> idx{0, -1, 1, 2};
  std::vector<uint16_t> y = combineSlots(slots.data(), idx.data(), 1, 4, 1);
  EXPECT_EQ(bf16ToFloat(y[0]), 0x1p-30f);
  const std::vector<uint16_t> swapped{slots[0], slots[1], slots[3], slots[2]};
  y = combineSlots(swapped.data(), idx.data(), 1, 4, 1);
  EXPECT_EQ(bf16ToFloat(y[0]), 0.0f);
}

TEST(MoeLayer, RouterWeightScalesExactlyByPowersOfTwo) {
  // Doubling every router weight doubles the activation, hence each requant
  // scale, leaves q unchanged and doubles o: y doubles bit-exactly.
  RandomLayer l(kSmall, 6, 9);
  std::vector<uint16_t> base = run(l);
  for (auto &w : l.topkWeights)
    w *= 2.0f;
  std::vector<uint16_t> twice = run(l);
  for (size_t i = 0; i < base.size(); ++i)
    EXPECT_EQ(bf16ToFloat(twice[i]), 2.0f * bf16ToFloat(base[i])) << i;
}

TEST(MoeLayer, ExpertRelabellingDoesNotChangeTheResult) {
  RandomLayer l(kSmall, 6, 13);
  std::vector<uint16_t> base = run(l);
  // Swap experts 0 and 3 in the weights and in the routing.
  const int64_t h = 256, i = 128;
  auto swapBlocks = [](auto &v, int64_t per) {
    for (int64_t j = 0; j < per; ++j)
      std::swap(v[j], v[3 * per + j]);
  };
  swapBlocks(l.w1, 2 * i * h);
  swapBlocks(l.w1Sf, 2 * i * h / 128 / 128);
  swapBlocks(l.w2, h * i);
  swapBlocks(l.w2Sf, h * i / 128 / 128);
  for (auto &e : l.topkIdx)
    e = e == 0 ? 3 : e == 3 ? 0 : e;
  EXPECT_EQ(run(l), base);
}

TEST(MoeLayer, Per64RequantIsCloseToPer128) {
  RandomLayer l(kSmall, 8, 17);
  MoeRecipe per64;
  per64.requantBlock = 64;
  std::vector<uint16_t> a = run(l), b = run(l, per64);
  std::vector<float> bf(b.size());
  for (size_t j = 0; j < b.size(); ++j)
    bf[j] = bf16ToFloat(b[j]);
  const double err = relativeL2(a, bf);
  EXPECT_GT(err, 0.0); // a different quantization point
  EXPECT_LT(err, 0.1);
}

TEST(MoeLayer, ZeroTokensAndBadInputs) {
  RandomLayer l(kSmall, 0, 1);
  EXPECT_TRUE(run(l).empty());
  RandomLayer bad(kSmall, 2, 1);
  bad.topkIdx[3] = 4; // E = 4
  std::vector<uint16_t> y;
  std::string error;
  EXPECT_FALSE(
      moeForward(bad.shape, {}, bad.weights(), bad.inputs(), y, error));
  EXPECT_NE(error.find("routes to expert 4"), std::string::npos) << error;
  MoeShape odd = kSmall;
  odd.hidden = 200;
  EXPECT_FALSE(moeForward(odd, {}, l.weights(), l.inputs(), y, error));
  EXPECT_NE(error.find("multiple of 128"), std::string::npos) << error;
  MoeRecipe r;
  r.requantBlock = 32;
  EXPECT_NE(validate(kSmall, r).find("128 or 64"), std::string::npos);
}
