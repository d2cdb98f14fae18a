//===- WeightTransform.cpp - user weight layout -> kernel layout ----------===//
#include "megamoe/runtime/WeightTransform.h"
#include "megamoe/runtime/Error.h"

#include <cstring>
#include <string>

namespace megamoe::rt {

void checkL1WeightShape(const L1WeightShape &s) {
  require(s.localExperts >= 1, "weight transform: local experts = " +
                                   std::to_string(s.localExperts) +
                                   " must be >= 1");
  require(s.intermediate > 0 && s.intermediate % 128 == 0,
          "weight transform: intermediate = " + std::to_string(s.intermediate) +
              " must be a positive multiple of 128");
  require(s.hidden > 0 && s.hidden % 128 == 0,
          "weight transform: hidden = " + std::to_string(s.hidden) +
              " must be a positive multiple of 128");
}

void interleaveL1WeightsHost(const L1WeightShape &s, const uint8_t *w,
                             uint8_t *out, bool tiled) {
  checkL1WeightShape(s);
  const int64_t rows = 2 * s.intermediate, h = s.hidden;
  for (int64_t e = 0; e < s.localExperts; ++e)
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t *src =
          w + (e * rows + interleavedSourceRow(r, s.intermediate)) * h;
      int64_t row = e * rows + r;
      if (!tiled) {
        std::memcpy(out + row * h, src, h);
        continue;
      }
      // Each 128-byte run of the row is contiguous in its tile.
      for (int64_t c = 0; c < h; c += kWeightTile)
        std::memcpy(out + tiledWeightOffset(row, c, h), src + c, kWeightTile);
    }
}

void relayoutL1ScalesHost(const L1WeightShape &s, const float *sf, float *out) {
  checkL1WeightShape(s);
  const int64_t nb = 2 * s.intermediate / 128, kb = s.hidden / 128;
  const int64_t upBase = s.intermediate / 128;
  for (int64_t e = 0; e < s.localExperts; ++e)
    for (int64_t b = 0; b < nb; ++b)
      for (int64_t k = 0; k < kb; ++k) {
        float *dst = out + ((e * nb + b) * kb + k) * 2;
        dst[0] = sf[(e * nb + b / 2) * kb + k];
        dst[1] = sf[(e * nb + upBase + b / 2) * kb + k];
      }
}

} // namespace megamoe::rt
