//===- WeightTransform.h - user weight layout -> kernel layout --*- C++ -*-===//
//
// The SwiGLU epilogue wants each gate column next to its up column, so the L1
// weight's rows are interleaved at a granularity of 8 (as DeepGEMM's
// transform_weights_for_mega_moe does):
//
//   user   W1[e] rows: gate 0..I-1, up 0..I-1             ([E_local, 2I, H])
//   kernel W1[e] rows: gate 0..7, up 0..7, gate 8..15, up 8..15, ...
//
// Kernel row r = 16 g + j holds user row 8 g + j (j < 8, gate) or
// I + 8 g + j - 8 (j >= 8, up).
//
// A 128-row block b of the interleaved weight holds gate rows [64 b, 64 b + 64)
// and up rows [I + 64 b, I + 64 b + 64), which come from two different 128x128
// scale blocks. The L1 scales are therefore re-laid out as
//
//   user   sf1 [E_local, 2I/128, H/128]          (128x128 blocks)
//   kernel sf1 [E_local, 2I/128, H/128, 2]       ([..., 0] gate, [..., 1] up)
//
// with kernel sf1[e, b, k, 0] = sf1[e, b / 2, k] and
//      kernel sf1[e, b, k, 1] = sf1[e, I/128 + b / 2, k]
// so that one 8-byte load gives both scales of an (N block, K block) tile.
// L2 weights and scales keep the user layout.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_WEIGHTTRANSFORM_H
#define MEGAMOE_RUNTIME_WEIGHTTRANSFORM_H

#include <cstdint>

namespace megamoe::rt {

constexpr int64_t kGateUpGranularity = 8;

struct L1WeightShape {
  int64_t localExperts = 0; // E_local
  int64_t intermediate = 0; // I
  int64_t hidden = 0;       // H

  int64_t weightBytes() const {
    return localExperts * 2 * intermediate * hidden;
  }
  int64_t userScaleCount() const {
    return localExperts * (2 * intermediate / 128) * (hidden / 128);
  }
  int64_t kernelScaleCount() const { return 2 * userScaleCount(); }
};

/// Throws Error(InvalidArgument) unless E_local >= 1, I % 128 == 0 and
/// H % 128 == 0, naming the broken rule and the values.
void checkL1WeightShape(const L1WeightShape &s);

/// The user row that kernel row `r` of one expert holds (I = intermediate).
int64_t interleavedSourceRow(int64_t r, int64_t intermediate);

/// Host implementations (the definition of the layout; the GPU version in
/// WeightTransformKernels.cu is tested against them). `out` must not alias.
void interleaveL1WeightsHost(const L1WeightShape &s, const uint8_t *w,
                             uint8_t *out);
void relayoutL1ScalesHost(const L1WeightShape &s, const float *sf, float *out);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_WEIGHTTRANSFORM_H
