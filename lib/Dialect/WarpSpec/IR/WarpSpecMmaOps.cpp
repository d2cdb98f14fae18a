//===- WarpSpecMmaOps.cpp - tile MMA on SMEM operands (SM90, SM100) -------===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "WarpSpecVerifyUtils.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::warpspec;
using namespace mlir::warpspec::checks;

namespace {
/// An SMEM MMA operand seen as a [rows, K] matrix.
struct Operand {
  int64_t rows = 0;
  int64_t k = 0;
};

/// Checks rank, major-ness and swizzle of one operand tile and returns its
/// (rows, K) view.
FailureOr<Operand> getMmaOperand(Operation *op, StringRef name, SmemType tile,
                                 Major major) {
  if (tile.getShape().size() != 2)
    return op->emitOpError() << name << " tile must be 2-d, got "
                             << tile.getShape().size() << " dimension(s)";
  Type element = tile.getElementType();
  if (isFp8(element) && major != Major::k)
    return op->emitOpError()
           << "fp8 operand " << name
           << " must be K-major: wgmma/tcgen05 transpose only 16-bit tiles";
  Operand result;
  result.rows = major == Major::k ? tile.getShape()[0] : tile.getShape()[1];
  result.k = major == Major::k ? tile.getShape()[1] : tile.getShape()[0];
  int64_t rowBytes = tile.getShape()[1] * elementBytes(element);
  if (tile.getSwizzle() != 0 && rowBytes != tile.getSwizzle())
    return op->emitOpError() << name << " tile rows span " << rowBytes
                             << " B but its swizzle is " << tile.getSwizzle()
                             << " B; a row must span exactly one swizzle width";
  return result;
}

/// Checks operand dtypes and K, returns the per-instruction k.
FailureOr<int64_t> verifyOperandTypes(Operation *op, SmemType a, SmemType b,
                                      int64_t k) {
  Type ta = a.getElementType(), tb = b.getElementType();
  int64_t step;
  if (isFp8(ta) && isFp8(tb))
    step = 32;
  else if (ta == tb && (ta.isF16() || ta.isBF16()))
    step = 16;
  else
    return op->emitOpError("unsupported operand types ")
           << ta << " x " << tb
           << "; expected fp8 (f8E4M3FN/f8E5M2), f16 or bf16";
  if (k % step != 0)
    return op->emitOpError("K = ")
           << k << " is not a multiple of the MMA k = " << step << " of " << ta;
  return step;
}

LogicalResult verifyRowOffset(Operation *op, Value row, int64_t m, int64_t rows,
                              StringRef what) {
  if (std::optional<int64_t> c = getConstantIntValue(row))
    if (*c < 0 || *c % m != 0 || *c + m > rows)
      return op->emitOpError()
             << what << " row " << *c << " must be a multiple of " << m
             << " with row + " << m << " <= " << rows;
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// SM90
//===----------------------------------------------------------------------===//

LogicalResult MmaSm90Op::verify() {
  if (failed(verifyInsideRole(*this)) ||
      failed(verifyChip(*this, "sm_90", "sm_90a")))
    return failure();
  SmemType a = getA().getType(), b = getB().getType();
  FailureOr<Operand> opA = getMmaOperand(*this, "A", a, getAMajor());
  FailureOr<Operand> opB = getMmaOperand(*this, "B", b, getBMajor());
  if (failed(opA) || failed(opB))
    return failure();
  if (opA->k != opB->k)
    return emitOpError("A has K = ") << opA->k << " but B has K = " << opB->k;
  if (failed(verifyOperandTypes(*this, a, b, opA->k)))
    return failure();
  AccType acc = getAcc().getType();
  if (opB->rows != acc.getN())
    return emitOpError("accumulator n = ")
           << acc.getN() << " does not match the B tile's " << opB->rows
           << " rows";
  if (opA->rows % acc.getM() != 0)
    return emitOpError("A tile has ") << opA->rows << " rows; a multiple of "
                                      << acc.getM() << " is needed";
  if (failed(verifyRowOffset(*this, getARow(), acc.getM(), opA->rows, "A")) ||
      failed(verifyStageForBuffer(*this, getAStage(), a)) ||
      failed(verifyStageForBuffer(*this, getBStage(), b)))
    return failure();
  return success();
}

LogicalResult MmaWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferredReturnTypes) {
  for (Value v : operands)
    inferredReturnTypes.push_back(v.getType());
  return success();
}

LogicalResult MmaWaitOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  if (getPending() > 7)
    return emitOpError("pending must be in [0, 7] (wgmma.wait_group), got ")
           << getPending();
  return success();
}

LogicalResult AccPromoteOp::verify() {
  SmemType scales = getAScales().getType();
  AccType acc = getTotal().getType();
  if (scales.getShape().size() != 1 || !scales.getElementType().isF32())
    return emitOpError("a_scales must be a buffer of 1-d f32 tiles, got ")
           << scales;
  if (scales.getShape()[0] < acc.getM())
    return emitOpError("a_scales tile holds ")
           << scales.getShape()[0] << " scales, fewer than the accumulator's "
           << acc.getM() << " rows";
  int64_t n = acc.getN();
  int64_t nb = static_cast<int64_t>(getBScales().size());
  if (std::optional<int64_t> g = getBInterleave()) {
    if (nb == 0 || nb % 2 != 0)
      return emitOpError("b_interleave needs the b_scales in pairs (one per "
                         "interleaved half of a column block); got ")
             << nb << " b_scales";
    if (*g <= 0 || *g % 8 != 0)
      return emitOpError("b_interleave ")
             << *g
             << " must be a positive multiple of 8 (the accumulator "
                "fragment's column group)";
    if (n % (nb / 2) != 0 || (n / (nb / 2)) % (2 * *g) != 0)
      return emitOpError("n = ")
             << n << " columns cannot be split into " << nb / 2
             << " column blocks (one per b_scales pair) of a multiple of 2 * "
                "b_interleave = "
             << 2 * *g << " columns";
  } else if (nb == 0 || n % nb != 0 || (n / nb) % 8 != 0) {
    return emitOpError("n = ")
           << n << " columns cannot be split evenly among " << nb
           << " b_scales in groups of a multiple of 8 columns";
  }
  if (failed(verifyRowOffset(*this, getRow(), acc.getM(), scales.getShape()[0],
                             "a_scales")))
    return failure();
  return verifyStageForBuffer(*this, getStage(), scales);
}

int64_t AccPromoteOp::getBScaleIndex(int64_t column) {
  int64_t n = getTotal().getType().getN();
  int64_t nb = static_cast<int64_t>(getBScales().size());
  if (std::optional<int64_t> g = getBInterleave()) {
    int64_t blockCols = 2 * n / nb;
    return 2 * (column / blockCols) + (column / *g) % 2;
  }
  return column / (n / nb);
}

LogicalResult AccStoreOp::verify() {
  SmemType buffer = getBuffer().getType();
  AccType acc = getAcc().getType();
  Type element = buffer.getElementType();
  if (buffer.getShape().size() != 2)
    return emitOpError("destination tile must be 2-d [rows, n], got ")
           << buffer;
  if (!element.isBF16() && !element.isF16() && !element.isF32())
    return emitOpError("destination element type must be bf16, f16 or f32, "
                       "got ")
           << element;
  if (buffer.getShape()[1] != acc.getN())
    return emitOpError("accumulator n = ")
           << acc.getN() << " does not match the destination's "
           << buffer.getShape()[1] << " columns";
  if (buffer.getShape()[0] < acc.getM())
    return emitOpError("destination tile has ")
           << buffer.getShape()[0] << " rows, fewer than the accumulator's "
           << acc.getM();
  if (failed(verifyRowOffset(*this, getRow(), acc.getM(), buffer.getShape()[0],
                             "destination")))
    return failure();
  return verifyStageForBuffer(*this, getStage(), buffer);
}

//===----------------------------------------------------------------------===//
// SM100
//===----------------------------------------------------------------------===//

LogicalResult TmemAllocOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  return verifyChip(*this, "sm_100", "sm_100a");
}

LogicalResult MmaSm100Op::verify() {
  if (failed(verifyChip(*this, "sm_100", "sm_100a")))
    return failure();
  SmemType a = getA().getType(), b = getB().getType();
  FailureOr<Operand> opA = getMmaOperand(*this, "A", a, Major::k);
  FailureOr<Operand> opB = getMmaOperand(*this, "B", b, Major::k);
  if (failed(opA) || failed(opB))
    return failure();
  if (opA->k != opB->k)
    return emitOpError("A has K = ") << opA->k << " but B has K = " << opB->k;
  if (failed(verifyOperandTypes(*this, a, b, opA->k)))
    return failure();
  TmemType d = getD().getType();
  if (!d.getElementType().isF32())
    return emitOpError("accumulator TMEM must hold f32, got ")
           << d.getElementType();
  int64_t m = d.getLanes(), n = opB->rows;
  int64_t nStep = m == 128 ? 16 : 8;
  if (n < nStep || n > 256 || n % nStep != 0)
    return emitOpError("n = ") << n << " is not a multiple of " << nStep
                               << " in [" << nStep << ", 256] for m = " << m;
  if (d.getColumns() < n)
    return emitOpError("accumulator TMEM has ")
           << d.getColumns() << " columns, fewer than n = " << n;
  if (opA->rows % m != 0)
    return emitOpError("A tile has ")
           << opA->rows << " rows; a multiple of m = " << m << " is needed";
  if (bool(getAScales()) != bool(getBScales()))
    return emitOpError("block-scaled MMA needs both a_scales and b_scales");
  if (getAScales() && (!getAScales().getType().getElementType().isInteger(32) ||
                       !getBScales().getType().getElementType().isInteger(32)))
    return emitOpError("scale factors live in i32 TMEM columns");
  if (failed(verifyRowOffset(*this, getARow(), m, opA->rows, "A")) ||
      failed(verifyStageForBuffer(*this, getAStage(), a)) ||
      failed(verifyStageForBuffer(*this, getBStage(), b)))
    return failure();
  return success();
}
