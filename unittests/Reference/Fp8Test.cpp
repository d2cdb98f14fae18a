//===- Fp8Test.cpp - e4m3 / bf16 conversions of the CPU reference ---------===//
#include "megamoe/Reference/Fp8.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace megamoe::ref;

namespace {

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// An encoder written differently from floatToE4M3: search all 254 finite
/// codes for the nearest value, ties to the code with an even mantissa.
uint8_t nearestByExhaustiveSearch(float v) {
  if (std::isnan(v))
    return std::signbit(v) ? 0xFF : 0x7F;
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  const double mag = std::min<double>(std::fabs(static_cast<double>(v)), 448.0);
  int best = 0;
  double bestDist = std::numeric_limits<double>::infinity();
  for (int c = 0; c < 0x7F; ++c) {
    const double d = std::fabs(static_cast<double>(e4m3ToFloat(c)) - mag);
    if (d < bestDist || (d == bestDist && (c & 1) == 0 && (best & 1))) {
      best = c;
      bestDist = d;
    }
  }
  return sign | static_cast<uint8_t>(best);
}

} // namespace

TEST(E4M3, DecodesKnownCodes) {
  EXPECT_EQ(e4m3ToFloat(0x00), 0.0f);
  EXPECT_TRUE(std::signbit(e4m3ToFloat(0x80)));
  EXPECT_EQ(e4m3ToFloat(0x01), std::ldexp(1.0f, -9)); // smallest subnormal
  EXPECT_EQ(e4m3ToFloat(0x07), 7 * std::ldexp(1.0f, -9));
  EXPECT_EQ(e4m3ToFloat(0x08), std::ldexp(1.0f, -6)); // smallest normal
  EXPECT_EQ(e4m3ToFloat(0x38), 1.0f);
  EXPECT_EQ(e4m3ToFloat(0x39), 1.125f);
  EXPECT_EQ(e4m3ToFloat(0x7E), 448.0f);
  EXPECT_EQ(e4m3ToFloat(0xFE), -448.0f);
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0xFF)));
  EXPECT_EQ(e4m3ToFloat(0x78), 256.0f); // 0x78..0x7E are finite in e4m3fn
}

TEST(E4M3, RoundTripsEveryFiniteCode) {
  for (int c = 0; c < 256; ++c) {
    if ((c & 0x7F) == 0x7F)
      continue;
    EXPECT_EQ(floatToE4M3(e4m3ToFloat(c)), c) << "code " << c;
  }
}

TEST(E4M3, TiesRoundToEven) {
  // Normal range: 1.0 (0x38) | 1.0625 | 1.125 (0x39) | 1.1875 | 1.25 (0x3A).
  EXPECT_EQ(floatToE4M3(1.0625f), 0x38);
  EXPECT_EQ(floatToE4M3(1.1875f), 0x3A);
  EXPECT_EQ(floatToE4M3(-1.0625f), 0xB8);
  // Just off the ties, the nearest wins.
  EXPECT_EQ(floatToE4M3(std::nextafter(1.0625f, 2.0f)), 0x39);
  EXPECT_EQ(floatToE4M3(std::nextafter(1.1875f, 0.0f)), 0x39);
  // Subnormal range (step 2^-9): half a step rounds to 0, 1.5 steps to 2.
  EXPECT_EQ(floatToE4M3(std::ldexp(1.0f, -10)), 0x00);
  EXPECT_EQ(floatToE4M3(3 * std::ldexp(1.0f, -10)), 0x02);
  EXPECT_EQ(floatToE4M3(5 * std::ldexp(1.0f, -10)), 0x02);
  EXPECT_EQ(floatToE4M3(std::nextafter(std::ldexp(1.0f, -10), 1.0f)), 0x01);
  // Rounding up out of the subnormals and across a binade.
  EXPECT_EQ(floatToE4M3(15 * std::ldexp(1.0f, -10)), 0x08);
  EXPECT_EQ(floatToE4M3(1.9375f), 0x40); // between 1.875 (0x3F) and 2.0
  // Between 416 (0x7D) and 448 (0x7E): the tie 432 goes to the even 448.
  EXPECT_EQ(floatToE4M3(432.0f), 0x7E);
  EXPECT_EQ(floatToE4M3(400.0f), 0x7C); // tie between 384 (0x7C) and 416
}

TEST(E4M3, Saturates) {
  EXPECT_EQ(floatToE4M3(448.0f), 0x7E);
  EXPECT_EQ(floatToE4M3(464.0f), 0x7E); // would round to 480 unsaturated
  EXPECT_EQ(floatToE4M3(479.0f), 0x7E);
  EXPECT_EQ(floatToE4M3(1.0e6f), 0x7E);
  EXPECT_EQ(floatToE4M3(-1.0e6f), 0xFE);
  EXPECT_EQ(floatToE4M3(std::numeric_limits<float>::infinity()), 0x7E);
  EXPECT_EQ(floatToE4M3(-std::numeric_limits<float>::infinity()), 0xFE);
  EXPECT_EQ(floatToE4M3(std::numeric_limits<float>::quiet_NaN()) & 0x7F, 0x7F);
  EXPECT_EQ(floatToE4M3(std::numeric_limits<float>::max()), 0x7E);
  EXPECT_EQ(floatToE4M3(std::numeric_limits<float>::denorm_min()), 0x00);
}

TEST(E4M3, MatchesExhaustiveNearestSearch) {
  // Every float whose low 16 bits are zero (all bf16 values), plus random
  // floats in the e4m3 range, plus the exact midpoints between neighbours.
  for (uint32_t hi = 0; hi < 0x10000; ++hi) {
    const float v = fromBits(hi << 16);
    ASSERT_EQ(floatToE4M3(v), nearestByExhaustiveSearch(v)) << v;
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> exponent(-12.0f, 9.5f);
  for (int i = 0; i < 200000; ++i) {
    const float v = std::exp2(exponent(rng)) * (i & 1 ? -1.0f : 1.0f);
    ASSERT_EQ(floatToE4M3(v), nearestByExhaustiveSearch(v)) << v;
  }
  for (int c = 0; c < 0x7E; ++c) {
    const float mid = 0.5f * (e4m3ToFloat(c) + e4m3ToFloat(c + 1));
    ASSERT_EQ(floatToE4M3(mid), nearestByExhaustiveSearch(mid)) << mid;
    ASSERT_EQ(floatToE4M3(mid) & 1, 0) << "tie at " << mid << " not even";
  }
}

TEST(BF16, RoundsToNearestEven) {
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  // 1 + 2^-8 is the tie between 1.0 (even) and 1 + 2^-7.
  EXPECT_EQ(floatToBF16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  // 1 + 3*2^-8 is the tie between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  EXPECT_EQ(floatToBF16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(floatToBF16(std::nextafter(1.0f + std::ldexp(1.0f, -8), 2.0f)),
            0x3F81);
  EXPECT_TRUE(std::isnan(
      bf16ToFloat(floatToBF16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(floatToBF16(-0.0f), 0x8000);
}
