//===- QuantizeTest.cpp - SwiGLU and block requantization -----------------===//
#include "megamoe/Reference/Quantize.h"
#include "megamoe/Reference/Fp8.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace megamoe::ref;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
float silu(double g) { return static_cast<float>(g / (1.0 + std::exp(-g))); }
} // namespace

TEST(SwiGLU, ClampsGateAboveAndUpBothWays) {
  EXPECT_FLOAT_EQ(swiglu(1.0f, 2.0f, 1.0f, kInf), silu(1.0) * 2.0f);
  // Gate is clamped from above only.
  EXPECT_FLOAT_EQ(swiglu(20.0f, 1.0f, 1.0f, 10.0f), silu(10.0));
  EXPECT_FLOAT_EQ(swiglu(-20.0f, 1.0f, 1.0f, 10.0f), silu(-20.0));
  // Up is clamped to [-c, c].
  EXPECT_FLOAT_EQ(swiglu(1.0f, 30.0f, 1.0f, 10.0f), silu(1.0) * 10.0f);
  EXPECT_FLOAT_EQ(swiglu(1.0f, -30.0f, 1.0f, 10.0f), silu(1.0) * -10.0f);
  EXPECT_FLOAT_EQ(swiglu(1.0f, -3.0f, 1.0f, 10.0f), silu(1.0) * -3.0f);
  // The router weight multiplies after the activation.
  EXPECT_FLOAT_EQ(swiglu(2.0f, 3.0f, 0.25f, 10.0f), silu(2.0) * 3.0f * 0.25f);
  EXPECT_EQ(swiglu(2.0f, 3.0f, 0.0f, 10.0f), 0.0f);
}

namespace {
void checkRequant(int64_t block) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const int64_t n = 512;
  std::vector<float> a(n), back(n);
  for (auto &v : a)
    v = normal(rng);
  a[5] = 0.0f;
  for (int64_t i = 2 * block; i < 3 * block; ++i) // one all-zero block
    a[i] = 0.0f;
  std::vector<uint8_t> q(n);
  std::vector<float> sf(n / block);
  quantizeBlocks(a.data(), n, block, q.data(), sf.data());
  for (int64_t b = 0; b < n / block; ++b) {
    float amax = 0.0f;
    for (int64_t i = 0; i < block; ++i)
      amax = std::max(amax, std::fabs(a[b * block + i]));
    EXPECT_EQ(sf[b], amax / 448.0f) << "block " << b;
    for (int64_t i = 0; i < block; ++i) {
      const int64_t j = b * block + i;
      if (amax == 0.0f) {
        EXPECT_EQ(q[j], 0);
        continue;
      }
      EXPECT_EQ(q[j], floatToE4M3(a[j] / sf[b]));
      if (std::fabs(a[j]) == amax) { // the block's largest element hits 448
        EXPECT_EQ(q[j] & 0x7F, 0x7E);
      }
    }
  }
  dequantizeBlocks(q.data(), sf.data(), n, block, back.data());
  for (int64_t j = 0; j < n; ++j) {
    // e4m3 has 3 mantissa bits: relative error <= 2^-4 for normals, and an
    // absolute error of at most half a subnormal step of the block.
    const float tol = std::fabs(a[j]) / 16 + sf[j / block] * 0x1p-10f;
    EXPECT_LE(std::fabs(back[j] - a[j]), tol) << j;
  }
}
} // namespace

TEST(Requant, Per128Blocks) { checkRequant(128); }
TEST(Requant, Per64Blocks) { checkRequant(64); }

TEST(Requant, BlocksAreIndependent) {
  // A large value in block 0 must not change the scale of block 1, and the
  // per-64 recipe splits a 128 block in two.
  std::vector<float> a(128, 1.0f);
  a[0] = 1000.0f;
  std::vector<uint8_t> q(128);
  std::vector<float> sf64(2), sf128(1);
  quantizeBlocks(a.data(), 128, 64, q.data(), sf64.data());
  EXPECT_EQ(sf64[0], 1000.0f / 448.0f);
  EXPECT_EQ(sf64[1], 1.0f / 448.0f);
  EXPECT_EQ(q[64], 0x7E);
  quantizeBlocks(a.data(), 128, 128, q.data(), sf128.data());
  EXPECT_EQ(sf128[0], 1000.0f / 448.0f);
  EXPECT_EQ(q[64], floatToE4M3(1.0f / (1000.0f / 448.0f)));
}
