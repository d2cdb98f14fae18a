//===- MoeLayer.h - CPU reference of the MoE layer (small shapes) ---------===//
//
// The numerics contract of DESIGN.md section 3, step by step, on the CPU:
// dequantized L1 GEMM, clamped SwiGLU times the router weight, per-block e4m3
// requantization, dequantized L2 GEMM cast to BF16, and the combine (FP32 sum
// over slots in slot order, masked slots skipped, cast to BF16).
//
// The weights are the global view (all E experts, user layout): the result for
// a rank's tokens does not depend on how experts are spread over ranks.
// Dot products accumulate in double, so this is at least as exact as an FP32
// oracle; it is meant for shapes of a few hundred channels.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_REFERENCE_MOELAYER_H
#define MEGAMOE_REFERENCE_MOELAYER_H

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace megamoe::ref {

struct MoeShape {
  int64_t hidden = 0;       // H, multiple of 128
  int64_t intermediate = 0; // I, multiple of 128
  int64_t experts = 0;      // E
  int64_t topk = 0;         // K
};

struct MoeRecipe {
  int64_t requantBlock = 128; // channels per L1-output scale: 128 or 64
  float clamp = std::numeric_limits<float>::infinity();
};

/// All E experts in the user layout of the contract.
struct MoeWeights {
  const uint8_t *w1 = nullptr; // e4m3 [E, 2I, H], rows 0..I-1 gate, I..2I-1 up
  const float *w1Sf = nullptr; // [E, 2I/128, H/128]
  const uint8_t *w2 = nullptr; // e4m3 [E, H, I]
  const float *w2Sf = nullptr; // [E, H/128, I/128]
};

/// One rank's tokens.
struct MoeTokens {
  int64_t count = 0;                  // T_r (may be 0)
  const uint8_t *x = nullptr;         // e4m3 [T_r, H]
  const float *xSf = nullptr;         // [T_r, H/128]
  const int64_t *topkIdx = nullptr;   // [T_r, K], -1 = masked slot
  const float *topkWeights = nullptr; // [T_r, K]
};

/// Returns an empty string when shape and recipe are valid, else the reason.
std::string validate(const MoeShape &shape, const MoeRecipe &recipe);

/// Steps 1-4 for every (token, slot): BF16 bits [T_r, K, H]; masked slots
/// hold 0. Fails (returns false, sets `error`) on an invalid shape or an
/// expert id outside [-1, E).
bool expertOutputs(const MoeShape &shape, const MoeRecipe &recipe,
                   const MoeWeights &weights, const MoeTokens &tokens,
                   std::vector<uint16_t> &slotOut, std::string &error);

/// Step 5: y[t] = BF16(sum over k in slot order of FP32(slotOut[t, k])), slots
/// with topkIdx < 0 skipped (whatever they hold). Returns BF16 bits [T, H].
std::vector<uint16_t> combineSlots(const uint16_t *slotOut,
                                   const int64_t *topkIdx, int64_t tokens,
                                   int64_t topk, int64_t hidden);

/// The whole layer for one rank: combineSlots(expertOutputs(...)).
bool moeForward(const MoeShape &shape, const MoeRecipe &recipe,
                const MoeWeights &weights, const MoeTokens &tokens,
                std::vector<uint16_t> &y, std::string &error);

} // namespace megamoe::ref

#endif // MEGAMOE_REFERENCE_MOELAYER_H
