//===- RequantFastPathTest.cpp - the division-free requantization --------===//
//
// Checks, in IEEE single precision on the host, the argument behind
// MoeMath's buildRequantProduct / buildRequantIsAmbiguous (lib/Kernels/
// MoeMath.cpp): where the product by RN(1 / sf) is not flagged, its e4m3
// byte is the byte of RN(v / sf), the numerics contract's quotient. The
// host computes the same IEEE operations the builders emit (mul.rn,
// div.rn, cvt.rn.satfinite.e4m3: floatToE4M3), so a counterexample here
// would be one on the GPU; the GPU tests compare the schedules bitwise.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Reference/Fp8.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

namespace {

using megamoe::ref::floatToE4M3;

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// volatile keeps the host compiler from contracting or reassociating: each
// line is one correctly rounded single-precision operation, as on the GPU.
uint8_t exactByte(float v, float sf) {
  volatile float q = v / sf;
  return sf > 0.0f ? floatToE4M3(q) : 0;
}

struct Fast {
  uint8_t byte;
  bool ambiguous;
};

Fast fastByte(float v, float sf) {
  volatile float rcp = 1.0f / sf;
  volatile float t = v * rcp;
  float p = sf > 0.0f ? float(t) : 0.0f;
  volatile float lo = p * float(1.0 - std::ldexp(1.0, -20));
  volatile float hi = p * float(1.0 + std::ldexp(1.0, -20));
  bool rcpOverflows = sf > 0.0f && std::isinf(float(rcp));
  return {floatToE4M3(p),
          floatToE4M3(lo) != floatToE4M3(hi) || rcpOverflows};
}

/// Checks one (v, sf); returns whether it was flagged.
bool check(float v, float sf) {
  Fast f = fastByte(v, sf);
  if (!f.ambiguous)
    EXPECT_EQ(f.byte, exactByte(v, sf))
        << "v = " << v << " (0x" << std::hex << floatToBits(v) << "), sf = "
        << sf << " (0x" << floatToBits(sf) << ")";
  return f.ambiguous;
}

TEST(RequantFastPath, RandomRowsAsTheEpilogueSeesThem) {
  // Rows of 128 activations, sf = amax / 448 as buildRequantScale computes
  // it, over magnitudes from 2^-60 to 2^60.
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-60, 60);
  int64_t flagged = 0, total = 0;
  for (int row = 0; row < 20000; ++row) {
    float scale = std::ldexp(1.0f, exponent(rng));
    float values[128];
    float amax = 0.0f;
    for (float &v : values) {
      // A heavy tail: most values small against the row's outliers.
      float u = unit(rng);
      v = scale * u * u * u * (rng() % 16 == 0 ? 8.0f : 1.0f);
      amax = std::fmax(amax, std::fabs(v));
    }
    volatile float sf = amax / 448.0f;
    for (float v : values) {
      flagged += check(v, sf);
      ++total;
    }
  }
  // About 2^-16 of the elements sit within 2^-20 of a rounding boundary.
  EXPECT_LT(flagged, total / 1000);
}

TEST(RequantFastPath, EveryMantissaNearRoundingBoundaries) {
  // Quotients close to every e4m3 rounding boundary (the midpoints between
  // neighbouring e4m3 values, normal and subnormal): v = q sf for q a few
  // ulps around the midpoint, over several scales.
  int64_t checked = 0;
  for (int code = 0; code < 0x7E; ++code) {
    float a = megamoe::ref::e4m3ToFloat(uint8_t(code));
    float b = megamoe::ref::e4m3ToFloat(uint8_t(code + 1));
    float mid = 0.5f * (a + b);
    for (float sf : {1.0f, 0.75f, 3.1e-5f, 1.7e9f, 0.0123f, 5.9e-39f}) {
      for (int d = -64; d <= 64; ++d) {
        float q = bitsToFloat(floatToBits(mid) + d);
        for (float sign : {1.0f, -1.0f}) {
          volatile float v = sign * q * sf;
          check(v, sf);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 90000);
}

TEST(RequantFastPath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float tiny = std::numeric_limits<float>::denorm_min();
  for (float sf : {0.0f, -1.0f, nan, inf, tiny, 1e-39f, 1e-30f, 1.0f, 3e38f})
    for (float v : {0.0f, -0.0f, 1.0f, -1.0f, tiny, -tiny, 1e-38f, 448.0f,
                    -448.0f, 3e38f, inf, -inf, nan}) {
      Fast f = fastByte(v, sf);
      uint8_t exact = exactByte(v, sf);
      if (!f.ambiguous)
        EXPECT_EQ(f.byte, exact) << "v = " << v << ", sf = " << sf;
    }
  // 1 / sf overflows: always left to the division (0 * inf would be NaN).
  EXPECT_TRUE(fastByte(0.0f, tiny).ambiguous);
  EXPECT_FALSE(fastByte(0.0f, 0.0f).ambiguous); // padding rows: sf = 0
}

} // namespace
