//===- MoeMath.h - MoE element math as IR builders -------------*- C++ -*-===//
//
// SwiGLU, requantization and BF16 rounding, built once here and called by
// every kernel that needs them (the unfused schedule's moe_activation and
// moe_combine_reduce, and the fused kernel's epilogues), so that all of them
// emit the same instruction sequence and produce bit-identical results
// (DESIGN.md section 3).
//
// Numerics (per element, f32):
//   clamp c: g = min(g, c), u = min(max(u, -c), c)
//   silu(g) = g / (1 + exp(-g))   exp: libdevice __nv_expf (CUDA expf, at
//                                 most 2 ulp), IEEE division (div.rn.f32)
//   a = silu(g) * u * w           in this order
//   sf = amax / 448               true division
//   q = sf > 0 ? e4m3_rn_satfinite(a / sf) : 0
// With fast math (LayerConfig::fastMath) exp is ex2.approx.ftz(-g * log2 e)
// and the division a reciprocal rcp.approx.ftz; nothing else changes.
//
// The builders emit upstream ops (arith, math, gpu) at the builder's
// insertion point: exp is `math.exp`, which megamoe-convert-to-llvm lowers to
// a call of libdevice's `__nv_expf` (gpu-module-to-binary links libdevice
// from the CUDA toolkit). The instructions no upstream op specifies exactly
// are warpspec element ops: `warpspec.approx ex2|rcp` (fast math) and
// `warpspec.cvt.e4m3x2`.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_KERNELS_MOEMATH_H
#define MEGAMOE_KERNELS_MOEMATH_H

#include "mlir/IR/Builders.h"

#include <optional>
#include <utility>

namespace megamoe {

/// Largest finite e4m3 magnitude: the requantization maps a block's amax here.
inline constexpr double kE4M3Max = 448.0;

/// exp(x) of an f32: `math.exp` (libdevice `__nv_expf` once lowered), or
/// ex2.approx.ftz when `fastMath`.
mlir::Value buildExpF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        bool fastMath = false);

/// The activation of one element, f32: silu(clamped gate) * clamped up *
/// router weight (see the file comment for the exact sequence).
mlir::Value buildSwiGLU(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value gate, mlir::Value up, mlir::Value weight,
                        std::optional<double> clamp, bool fastMath = false);

/// max(|v|) over the 32 lanes of a warp, or with `lanes` 16 over each half
/// warp (butterfly shuffles; every lane gets its group's result). All 32
/// lanes must execute it. NaN inputs are ignored (max.f32), as std::max in
/// the reference oracle does.
mlir::Value buildWarpAbsMaxF32(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value v, int64_t lanes = 32);

/// The requantization scale of a block: amax / 448 (IEEE division).
mlir::Value buildRequantScale(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value amax);

/// Four f32 values quantized with scale `sf` into four e4m3 bytes packed in
/// an i32, `values[0]` in the lowest byte (memory order on little-endian):
/// each is sf > 0 ? e4m3_rn_satfinite(v / sf) : 0.
mlir::Value buildQuantizeE4M3x4(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::ValueRange values, mlir::Value sf);

/// What cvt.e4m3x2 (warpspec.cvt.e4m3x2) turns into the quantized byte of
/// `v` with scale `sf`: sf > 0 ? v / sf : 0 (IEEE division). Converting it
/// gives the byte buildQuantizeE4M3x4 gives (for sf <= 0 or NaN both give
/// 0x00), so an epilogue that converts while storing an accumulator tile
/// writes moe_activation's bytes.
mlir::Value buildRequantInput(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value v, mlir::Value sf);

/// The division-free path to buildRequantInput's bytes, for epilogues whose
/// latency the IEEE divisions set (one divisor per row, 64-128 quotients
/// per thread, each a branch to a slow path):
///   rcp = buildRequantReciprocal(sf)                  once per row
///   p   = buildRequantProduct(v, rcp, sf)             per element
///   amb = buildRequantIsAmbiguous(p, rcp, sf)         per element
/// Where every `amb` is 0, converting `p` (cvt.rn.satfinite.e4m3) gives the
/// byte converting buildRequantInput(v, sf) gives; elsewhere the caller
/// computes buildRequantInput. MoeMath.cpp has the argument.
mlir::Value buildRequantReciprocal(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value sf);
mlir::Value buildRequantProduct(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value v, mlir::Value rcp, mlir::Value sf);
mlir::Value buildRequantIsAmbiguous(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value product, mlir::Value rcp,
                                    mlir::Value sf);

/// Two bf16 packed in an i32 (`lo` in the low half) -> two f32 (exact).
std::pair<mlir::Value, mlir::Value>
buildUnpackBF16x2(mlir::OpBuilder &b, mlir::Location loc, mlir::Value packed);

/// Two f32 rounded to bf16 (round to nearest even) and packed into an i32,
/// `lo` in the low half.
mlir::Value buildPackBF16x2(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value lo, mlir::Value hi);

} // namespace megamoe

#endif // MEGAMOE_KERNELS_MOEMATH_H
