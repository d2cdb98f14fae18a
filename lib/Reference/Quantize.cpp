//===- Quantize.cpp - Block requantization and SwiGLU ---------------------===//
#include "megamoe/Reference/Quantize.h"

#include "megamoe/Reference/Fp8.h"

#include <algorithm>
#include <cmath>

namespace megamoe::ref {

float swiglu(float gate, float up, float weight, float clamp) {
  const float g = std::min(gate, clamp);
  const float u = std::min(std::max(up, -clamp), clamp);
  const float silu = g / (1.0f + std::exp(-g));
  return silu * u * weight;
}

void quantizeBlocks(const float *a, int64_t n, int64_t block, uint8_t *q,
                    float *sf) {
  for (int64_t b = 0; b * block < n; ++b) {
    const float *in = a + b * block;
    float amax = 0.0f;
    for (int64_t i = 0; i < block; ++i)
      amax = std::max(amax, std::fabs(in[i]));
    const float scale = amax / kE4M3Max;
    sf[b] = scale;
    for (int64_t i = 0; i < block; ++i)
      q[b * block + i] = scale > 0.0f ? floatToE4M3(in[i] / scale) : 0;
  }
}

void dequantizeBlocks(const uint8_t *q, const float *sf, int64_t n,
                      int64_t block, float *out) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = e4m3ToFloat(q[i]) * sf[i / block];
}

} // namespace megamoe::ref
