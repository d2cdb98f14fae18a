//===- MoeMath.cpp - the element math of the MoE layer, as IR builders ----===//
#include "megamoe/Kernels/MoeMath.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cassert>
#include <cmath>

using namespace mlir;

namespace {

Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}
Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

/// sf > 0 (ordered: false for NaN): where a requantization scale gives
/// bytes, elsewhere every quantized value is 0.
Value scaleIsPositive(OpBuilder &b, Location loc, Value sf) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sf,
                               f32Const(b, loc, 0.0));
}

} // namespace

Value megamoe::buildExpF32(OpBuilder &b, Location loc, Value x, bool fastMath) {
  if (fastMath) {
    // exp(x) = 2^(x log2 e); ex2.approx has 2 ulp over the reduced range
    // but the product's rounding costs more for large |x|.
    Value scaled = arith::MulFOp::create(b, loc, x, f32Const(b, loc, M_LOG2E));
    return warpspec::ApproxOp::create(b, loc, warpspec::ApproxKind::ex2,
                                      scaled);
  }
  // Lowered to a call of libdevice's __nv_expf (megamoe-convert-to-llvm), the
  // correctly rounded exp the oracle's expf is checked against.
  return math::ExpOp::create(b, loc, x);
}

Value megamoe::buildSwiGLU(OpBuilder &b, Location loc, Value gate, Value up,
                           Value weight, std::optional<double> clamp,
                           bool fastMath) {
  Value g = gate, u = up;
  if (clamp) {
    // minimumf/maximumf propagate NaN, as std::min/std::max of the oracle do
    // for a NaN first operand.
    Value c = f32Const(b, loc, *clamp);
    Value negC = f32Const(b, loc, -*clamp);
    g = arith::MinimumFOp::create(b, loc, g, c);
    u = arith::MinimumFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, u, negC), c);
  }
  Value expNegG =
      buildExpF32(b, loc, arith::NegFOp::create(b, loc, g), fastMath);
  Value denom = arith::AddFOp::create(b, loc, f32Const(b, loc, 1.0), expNegG);
  Value silu =
      fastMath
          ? arith::MulFOp::create(
                b, loc, g,
                warpspec::ApproxOp::create(b, loc, warpspec::ApproxKind::rcp,
                                           denom))
                .getResult()
          : arith::DivFOp::create(b, loc, g, denom).getResult();
  Value siluUp = arith::MulFOp::create(b, loc, silu, u);
  return arith::MulFOp::create(b, loc, siluUp, weight);
}

Value megamoe::buildWarpAbsMaxF32(OpBuilder &b, Location loc, Value v,
                                  int64_t lanes) {
  assert((lanes == 32 || lanes == 16) && "a warp or half a warp");
  Value m = math::AbsFOp::create(b, loc, v);
  for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
    Value other = gpu::ShuffleOp::create(b, loc, m, offset, /*width=*/32,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    m = arith::MaxNumFOp::create(b, loc, m, other);
  }
  return m;
}

Value megamoe::buildRequantScale(OpBuilder &b, Location loc, Value amax) {
  return arith::DivFOp::create(b, loc, amax, f32Const(b, loc, kE4M3Max));
}

Value megamoe::buildQuantizeE4M3x4(OpBuilder &b, Location loc,
                                   ValueRange values, Value sf) {
  assert(values.size() == 4 && "buildQuantizeE4M3x4 takes four values");
  Type i32 = b.getI32Type();
  auto e4m3Pair = [&](Value lo, Value hi) {
    Value loQ = arith::DivFOp::create(b, loc, lo, sf);
    Value hiQ = arith::DivFOp::create(b, loc, hi, sf);
    Value pair = warpspec::CvtE4M3x2Op::create(b, loc, loQ, hiQ);
    return arith::ExtUIOp::create(b, loc, i32, pair).getResult();
  };
  Value low = e4m3Pair(values[0], values[1]);
  Value high = e4m3Pair(values[2], values[3]);
  Value packed = arith::OrIOp::create(
      b, loc, low, arith::ShLIOp::create(b, loc, high, i32Const(b, loc, 16)));
  Value positive = scaleIsPositive(b, loc, sf);
  return arith::SelectOp::create(b, loc, positive, packed, i32Const(b, loc, 0));
}

Value megamoe::buildRequantInput(OpBuilder &b, Location loc, Value v,
                                 Value sf) {
  Value q = arith::DivFOp::create(b, loc, v, sf);
  Value positive = scaleIsPositive(b, loc, sf);
  return arith::SelectOp::create(b, loc, positive, q, f32Const(b, loc, 0.0));
}

// Why the product's byte is the quotient's (sf > 0 finite, rcp finite; u =
// 2^-24, the unit roundoff). rcp = RN(1/sf) = (1/sf)(1 + e1), and the
// product t = RN(v rcp) = Q (1 + e1)(1 + e2) with Q = v / sf, |e1|, |e2| <= u;
// the quotient x = RN(Q) = Q (1 + e3), |e3| <= u. So |t - x| <= 3u |Q| (plus
// O(u^2)) < 2^-22 |t|. The neighbours lo = RN(t (1 - 2^-20)) and
// hi = RN(t (1 + 2^-20)) are more than 2^-21 |t| away from t on either side,
// so x lies between them. Rounding to e4m3 (nearest even, saturating) is
// monotone, so when lo and hi give one byte, every value between them, t
// and x included, gives it too. Below the f32 normal range the bounds are
// absolute (2^-150) but every such value converts to +-0 with v's sign, as
// x does. The special values: v NaN gives NaN in both; sf = inf gives rcp
// = 0 and t = +-0 = x (or NaN = x for v = +-inf); sf <= 0 or NaN selects 0
// in both. Left to the exact path: lo and hi apart (about 2^-16 of the
// elements: those within 2^-20 of an e4m3 rounding boundary) and rows
// whose 1 / sf overflows (sf < 2^-128, where t could be 0 * inf).
Value megamoe::buildRequantReciprocal(OpBuilder &b, Location loc, Value sf) {
  return arith::DivFOp::create(b, loc, f32Const(b, loc, 1.0), sf);
}

Value megamoe::buildRequantProduct(OpBuilder &b, Location loc, Value v,
                                   Value rcp, Value sf) {
  Value t = arith::MulFOp::create(b, loc, v, rcp);
  Value positive = scaleIsPositive(b, loc, sf);
  return arith::SelectOp::create(b, loc, positive, t, f32Const(b, loc, 0.0));
}

Value megamoe::buildRequantIsAmbiguous(OpBuilder &b, Location loc,
                                       Value product, Value rcp, Value sf) {
  Value lo = arith::MulFOp::create(b, loc, product,
                                   f32Const(b, loc, 1.0 - std::ldexp(1.0, -20)));
  Value hi = arith::MulFOp::create(b, loc, product,
                                   f32Const(b, loc, 1.0 + std::ldexp(1.0, -20)));
  // One cvt.rn.satfinite.e4m3x2 converts both: lo's byte low, hi's high.
  Value pair = warpspec::CvtE4M3x2Op::create(b, loc, lo, hi);
  Type i8 = b.getI8Type();
  Value loByte = arith::TruncIOp::create(b, loc, i8, pair);
  Value hiByte = arith::TruncIOp::create(
      b, loc, i8,
      arith::ShRUIOp::create(
          b, loc, pair,
          arith::ConstantIntOp::create(b, loc, pair.getType(), 8)));
  Value apart = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, loByte,
                                      hiByte);
  Value positive = scaleIsPositive(b, loc, sf);
  Value rcpOverflows = arith::AndIOp::create(
      b, loc, positive,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, rcp,
                            f32Const(b, loc, INFINITY)));
  return arith::SelectOp::create(b, loc,
                                 arith::OrIOp::create(b, loc, apart, rcpOverflows),
                                 f32Const(b, loc, 1.0), f32Const(b, loc, 0.0));
}

std::pair<Value, Value> megamoe::buildUnpackBF16x2(OpBuilder &b, Location loc,
                                                   Value packed) {
  // A bf16 is the high half of the f32 with the same value.
  Type f32 = b.getF32Type();
  Value lo = arith::ShLIOp::create(b, loc, packed, i32Const(b, loc, 16));
  Value hi = arith::AndIOp::create(b, loc, packed,
                                   i32Const(b, loc, int32_t(0xFFFF0000u)));
  return {arith::BitcastOp::create(b, loc, f32, lo),
          arith::BitcastOp::create(b, loc, f32, hi)};
}

Value megamoe::buildPackBF16x2(OpBuilder &b, Location loc, Value lo, Value hi) {
  Type i32 = b.getI32Type();
  auto bits = [&](Value v) {
    // fptrunc rounds to nearest even (cvt.rn.bf16.f32).
    Value bf = arith::TruncFOp::create(b, loc, b.getBF16Type(), v);
    Value i16 = arith::BitcastOp::create(b, loc, b.getI16Type(), bf);
    return arith::ExtUIOp::create(b, loc, i32, i16).getResult();
  };
  return arith::OrIOp::create(
      b, loc, bits(lo),
      arith::ShLIOp::create(b, loc, bits(hi), i32Const(b, loc, 16)));
}
