//===- Quantize.h - Block requantization and SwiGLU of the contract -------===//
//
// Steps 2 and 3 of the numerics contract (DESIGN.md section 3) for one row:
// the clamped SwiGLU times the router weight, and the per-block (128 or 64
// channels) requantization to e4m3 with an FP32 scale sf = amax / 448.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_REFERENCE_QUANTIZE_H
#define MEGAMOE_REFERENCE_QUANTIZE_H

#include <cstdint>

namespace megamoe::ref {

/// silu(min(g, c)) * clamp(u, -c, c) * weight in FP32, evaluated as
/// ((g' / (1 + exp(-g'))) * u') * weight. An infinite `clamp` disables it.
float swiglu(float gate, float up, float weight, float clamp);

/// Quantizes `n` values (n % block == 0) in blocks of `block` channels:
/// sf[b] = amax(block b) / 448 and q = e4m3(a / sf[b]) (saturating RNE).
/// A block of zeros gets sf = 0 and q = 0.
void quantizeBlocks(const float *a, int64_t n, int64_t block, uint8_t *q,
                    float *sf);

/// Inverse of quantizeBlocks: out[i] = e4m3ToFloat(q[i]) * sf[i / block].
void dequantizeBlocks(const uint8_t *q, const float *sf, int64_t n,
                      int64_t block, float *out);

} // namespace megamoe::ref

#endif // MEGAMOE_REFERENCE_QUANTIZE_H
