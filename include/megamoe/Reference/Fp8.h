//===- Fp8.h - FP8 e4m3 and BF16 conversions of the numerics contract -----===//
//
// Plain C++17 (no MLIR): the CPU reference of the MoE layer and its tests use
// these, and they define bit for bit what "saturating round-to-nearest-even
// e4m3" means in the numerics contract (DESIGN.md section 3).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_REFERENCE_FP8_H
#define MEGAMOE_REFERENCE_FP8_H

#include <cstdint>

namespace megamoe::ref {

/// Largest finite e4m3 (OCP "fn" variant: no infinities, S.1111.111 is NaN).
constexpr float kE4M3Max = 448.0f;

/// Decodes an e4m3fn byte. 0x7F and 0xFF decode to NaN.
float e4m3ToFloat(uint8_t bits);

/// Encodes a float as e4m3fn: round to nearest, ties to even; finite values and
/// infinities beyond +-448 saturate to +-448; NaN becomes 0x7F with the sign of
/// the input. This equals PTX `cvt.rn.satfinite.e4m3x2.f32` and PyTorch's
/// `x.clamp(-448, 448).to(torch.float8_e4m3fn)`.
uint8_t floatToE4M3(float value);

/// Decodes a bfloat16 (the upper half of an IEEE float).
float bf16ToFloat(uint16_t bits);

/// Encodes a float as bfloat16, round to nearest even; NaN stays a quiet NaN.
uint16_t floatToBF16(float value);

} // namespace megamoe::ref

#endif // MEGAMOE_REFERENCE_FP8_H
