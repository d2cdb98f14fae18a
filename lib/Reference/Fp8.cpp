//===- Fp8.cpp - FP8 e4m3 and BF16 conversions ----------------------------===//
#include "megamoe/Reference/Fp8.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace megamoe::ref {

namespace {
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
} // namespace

float e4m3ToFloat(uint8_t bits) {
  const bool negative = bits & 0x80;
  const int exponent = (bits >> 3) & 0xF;
  const int mantissa = bits & 0x7;
  float magnitude;
  if (exponent == 0xF && mantissa == 0x7)
    magnitude = std::numeric_limits<float>::quiet_NaN();
  else if (exponent == 0) // subnormal: m * 2^-9
    magnitude = std::ldexp(static_cast<float>(mantissa), -9);
  else // normal: (8 + m) * 2^(e - 7 - 3)
    magnitude = std::ldexp(static_cast<float>(8 + mantissa), exponent - 10);
  return negative ? -magnitude : magnitude;
}

uint8_t floatToE4M3(float value) {
  const uint32_t in = bitsOf(value);
  const uint8_t sign = static_cast<uint8_t>((in >> 24) & 0x80);
  if (std::isnan(value))
    return sign | 0x7F;
  const float magnitude = std::fabs(value);
  if (magnitude >= kE4M3Max) // saturate (infinities included)
    return sign | 0x7E;
  // Below 2^-6 the spacing is the subnormal step 2^-9; above, 2^(e-3) within
  // the binade [2^e, 2^(e+1)). Scale so that one e4m3 step is 1.0, then round
  // to nearest even with the current FP rounding mode (round-to-nearest-even,
  // and the scaling by a power of two is exact).
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude = f * 2^exponent, f in [0.5,1)
  const int binade = exponent - 1;  // magnitude in [2^binade, 2^(binade+1))
  const int stepExp = binade < -6 ? -9 : binade - 3;
  const float steps = std::nearbyint(std::ldexp(magnitude, -stepExp));
  const float rounded = std::ldexp(steps, stepExp);
  if (rounded == 0.0f)
    return sign;
  if (rounded < 0.015625f) // still subnormal: mantissa = steps
    return sign | static_cast<uint8_t>(steps);
  // Normal (rounding may have carried into the next binade: recompute).
  std::frexp(rounded, &exponent);
  const int e = exponent - 1;
  const int mant = static_cast<int>(std::ldexp(rounded, -(e - 3))) - 8;
  return sign | static_cast<uint8_t>(((e + 7) << 3) | mant);
}

float bf16ToFloat(uint16_t bits) {
  return floatOf(static_cast<uint32_t>(bits) << 16);
}

uint16_t floatToBF16(float value) {
  uint32_t u = bitsOf(value);
  if (std::isnan(value))
    return static_cast<uint16_t>((u >> 16) | 0x40);
  const uint32_t lsb = (u >> 16) & 1;
  u += 0x7FFF + lsb;
  return static_cast<uint16_t>(u >> 16);
}

} // namespace megamoe::ref
