//===- Shapes.h - the anchor shapes the tests use -------------*- C++ -*-===//
#ifndef MEGAMOE_UNITTESTS_CONFIG_SHAPES_H
#define MEGAMOE_UNITTESTS_CONFIG_SHAPES_H

#include "megamoe/Config/LayerConfig.h"

namespace megamoe::config::testing {

inline LayerConfig shape(int64_t H, int64_t I, int64_t E, int64_t K, int64_t R,
                         int64_t T) {
  LayerConfig c;
  c.hidden = H;
  c.intermediate = I;
  c.experts = E;
  c.topk = K;
  c.ranks = R;
  c.maxTokensPerRank = T;
  return c;
}
inline LayerConfig v4Flash(int64_t R, int64_t T) {
  return shape(4096, 2048, 256, 6, R, T);
}
inline LayerConfig v4Pro(int64_t R, int64_t T) {
  return shape(7168, 3072, 384, 6, R, T);
}
inline LayerConfig mimo(int64_t R, int64_t T) {
  return shape(4096, 2048, 256, 8, R, T);
}

} // namespace megamoe::config::testing

#endif // MEGAMOE_UNITTESTS_CONFIG_SHAPES_H
