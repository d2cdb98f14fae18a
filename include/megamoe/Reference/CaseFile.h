//===- CaseFile.h - One MoE test case in a flat binary file ---------------===//
//
// The exchange format between the Python oracle (python/megamoe_testing) and
// the CPU reference (`megamoe-reference layer`), so that both can be run on
// the same seeded case. Little-endian:
//
//   char[8] "MMOECAS1"
//   int64   H, I, E, K, T, requantBlock
//   float32 clamp (+inf = none)
//   uint8   x[T*H]           float32 xSf[T*H/128]
//   int64   topkIdx[T*K]     float32 topkWeights[T*K]
//   uint8   w1[E*2I*H]       float32 w1Sf[E*(2I/128)*(H/128)]
//   uint8   w2[E*H*I]        float32 w2Sf[E*(H/128)*(I/128)]
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_REFERENCE_CASEFILE_H
#define MEGAMOE_REFERENCE_CASEFILE_H

#include "megamoe/Reference/MoeLayer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace megamoe::ref {

struct MoeCase {
  MoeShape shape;
  MoeRecipe recipe;
  int64_t tokens = 0;
  std::vector<uint8_t> x;
  std::vector<float> xSf;
  std::vector<int64_t> topkIdx;
  std::vector<float> topkWeights;
  std::vector<uint8_t> w1, w2;
  std::vector<float> w1Sf, w2Sf;

  MoeWeights weights() const {
    return {w1.data(), w1Sf.data(), w2.data(), w2Sf.data()};
  }
  MoeTokens tokenInputs() const {
    return {tokens, x.data(), xSf.data(), topkIdx.data(), topkWeights.data()};
  }
};

/// Reads a case; on failure returns false and says why in `error` (missing
/// file, bad magic, invalid shape, truncated data, trailing bytes).
bool readCase(const std::string &path, MoeCase &out, std::string &error);

/// Writes a case in the same format.
bool writeCase(const std::string &path, const MoeCase &c, std::string &error);

} // namespace megamoe::ref

#endif // MEGAMOE_REFERENCE_CASEFILE_H
