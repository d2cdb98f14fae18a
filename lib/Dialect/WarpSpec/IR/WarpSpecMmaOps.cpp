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

namespace {
/// The b-scale index of accumulator column `column`: `map(column)`, or the
/// even split of the n columns among nb scales.
int64_t bScaleIndex(std::optional<AffineMap> map, int64_t n, int64_t nb,
                    int64_t column) {
  if (!map)
    return column / (n / nb);
  SmallVector<int64_t, 4> result = map->compose(ArrayRef<int64_t>{column});
  return result.size() == 1 ? result[0] : -1;
}

/// The activation-scale groups per K block of an a_scales tile: G of a
/// [G, M] tile, 1 of an [M] one.
int64_t aScaleGroups(SmemType scales) {
  return scales.getShape().size() == 2 ? scales.getShape()[0] : 1;
}

/// Rules of the per-row activation scales of an `m`-row fragment: an f32
/// a_scales tile ([M], or [G, M] with G groups per K block, `group` the one
/// used) covering rows [row, row + m) of a full slot.
LogicalResult verifyRowScales(Operation *op, SmemType scales, Value row,
                              Value stage, int64_t m, int64_t group) {
  size_t rank = scales.getShape().size();
  if ((rank != 1 && rank != 2) || !scales.getElementType().isF32())
    return op->emitOpError("a_scales must be a buffer of f32 tiles of per-row "
                           "scales, [M] or [groups, M], got ")
           << scales;
  int64_t groups = aScaleGroups(scales);
  if (group < 0 || group >= groups)
    return op->emitOpError("a_scale_group ")
           << group << " is outside the a_scales tile's " << groups
           << " group(s)";
  int64_t rows = scales.getShape().back();
  if (rows < m)
    return op->emitOpError("a_scales tile holds ")
           << rows << " scales, fewer than the accumulator's " << m
           << " rows";
  if (failed(verifyRowOffset(op, row, m, rows, "a_scales")))
    return failure();
  return verifyStageForBuffer(op, stage, scales);
}

/// Rules shared by every op that promotes a block-scaled product: the row
/// scales of the accumulator's rows (verifyRowScales) and b_scales whose
/// column map is constant over each 8-column group and in range.
LogicalResult verifyBlockScales(Operation *op, SmemType scales, Value row,
                                Value stage, AccType acc, int64_t nb,
                                std::optional<AffineMap> map,
                                int64_t group = 0) {
  int64_t n = acc.getN();
  if (nb == 0)
    return op->emitOpError("needs at least one b_scales value");
  if (map) {
    if (map->getNumDims() != 1 || map->getNumSymbols() != 0 ||
        map->getNumResults() != 1)
      return op->emitOpError("b_scale_map must map one column to one index, "
                             "(c) -> (i); got ")
             << AffineMapAttr::get(*map);
    for (int64_t c = 0; c < n; ++c) {
      int64_t i = bScaleIndex(map, n, nb, c);
      if (i < 0 || i >= nb)
        return op->emitOpError("b_scale_map sends column ")
               << c << " to b_scales index " << i << ", outside [0, " << nb
               << ")";
      if (i != bScaleIndex(map, n, nb, c / 8 * 8))
        return op->emitOpError("b_scale_map must be constant over each group "
                               "of 8 columns (the accumulator fragment's "
                               "column group); columns ")
               << c / 8 * 8 << " and " << c << " get different scales";
    }
  } else if (n % nb != 0 || (n / nb) % 8 != 0) {
    return op->emitOpError("n = ")
           << n << " columns cannot be split evenly among " << nb
           << " b_scales in groups of a multiple of 8 columns; give a "
              "b_scale_map";
  }
  return verifyRowScales(op, scales, row, stage, acc.getM(), group);
}

/// Rules of activation scales that scale accumulator columns (a swapped
/// MMA's: its columns are activation rows): an f32 [M] tile holding the
/// scales of columns [row, row + n), one b scale and no map.
LogicalResult verifyColumnScales(Operation *op, SmemType scales, Value row,
                                 Value stage, AccType acc, int64_t nb,
                                 std::optional<AffineMap> map) {
  if (scales.getShape().size() != 1 || !scales.getElementType().isF32())
    return op->emitOpError("column scales need an a_scales buffer of [M] f32 "
                           "tiles (one scale per activation row), got ")
           << scales;
  if (nb != 1 || map)
    return op->emitOpError("column scales take one b scale and no "
                           "b_scale_map (the accumulator's rows are weight "
                           "rows of one scale block), got ")
           << nb << " b scale(s)" << (map ? " and a map" : "");
  int64_t rows = scales.getShape()[0];
  if (!row && acc.getN() > rows)
    return op->emitOpError("a_scales tile holds ")
           << rows << " scales, fewer than the accumulator's " << acc.getN()
           << " columns";
  if (std::optional<int64_t> c =
          row ? getConstantIntValue(row) : std::optional<int64_t>())
    if (*c < 0 || *c + acc.getN() > rows)
      return op->emitOpError("a_scales row ")
             << *c << " + the accumulator's " << acc.getN()
             << " columns exceeds the tile's " << rows << " scales";
  return verifyStageForBuffer(op, stage, scales);
}

/// What verifyMmaOperands establishes about the tiles: their K and the
/// per-instruction k of their element type.
struct MmaShape {
  int64_t k = 0;
  int64_t step = 0;
};

/// Rules shared by every SMEM-operand MMA: A [M, K] and B [n, K] tiles of
/// one element type, K-major fp8, the accumulator's n = B rows, A rows a
/// multiple of m, a row offset in range, stages from matching pipelines.
FailureOr<MmaShape> verifyMmaOperands(Operation *op, SmemType a, Value aStage,
                                      Value aRow, Major aMajor, SmemType b,
                                      Value bStage, Major bMajor, AccType acc) {
  FailureOr<Operand> opA = getMmaOperand(op, "A", a, aMajor);
  FailureOr<Operand> opB = getMmaOperand(op, "B", b, bMajor);
  if (failed(opA) || failed(opB))
    return failure();
  if (opA->k != opB->k)
    return op->emitOpError("A has K = ")
           << opA->k << " but B has K = " << opB->k;
  FailureOr<int64_t> step = verifyOperandTypes(op, a, b, opA->k);
  if (failed(step))
    return failure();
  if (opB->rows != acc.getN())
    return op->emitOpError("accumulator n = ")
           << acc.getN() << " does not match the B tile's " << opB->rows
           << " rows";
  if (opA->rows % acc.getM() != 0)
    return op->emitOpError("A tile has ")
           << opA->rows << " rows; a multiple of " << acc.getM()
           << " is needed";
  if (failed(verifyRowOffset(op, aRow, acc.getM(), opA->rows, "A")) ||
      failed(verifyStageForBuffer(op, aStage, a)) ||
      failed(verifyStageForBuffer(op, bStage, b)))
    return failure();
  return MmaShape{opA->k, *step};
}
} // namespace

LogicalResult MmaSm90Op::verify() {
  if (failed(verifyInsideRole(*this)) ||
      failed(verifyChip(*this, "sm_90", "sm_90a")))
    return failure();
  FailureOr<MmaShape> shape = verifyMmaOperands(
      *this, getA().getType(), getAStage(), getARow(), getAMajor(),
      getB().getType(), getBStage(), getBMajor(), getAcc().getType());
  if (failed(shape))
    return failure();
  std::optional<ArrayRef<int64_t>> range = getKRange();
  if (!range)
    return success();
  int64_t k = shape->k, step = shape->step;
  if (range->size() != 2)
    return emitOpError("k_range must be [begin, size], got ")
           << range->size() << " value(s)";
  int64_t begin = (*range)[0], size = (*range)[1];
  if (begin < 0 || size <= 0 || begin % step != 0 || size % step != 0 ||
      begin + size > k)
    return emitOpError("k_range [")
           << begin << ", " << size << "] must be multiples of the MMA k = "
           << step << " with size > 0 and begin + size <= K = " << k;
  return success();
}

LogicalResult AccPromoteOp::verify() {
  if (getColumnScales()) {
    if (!getRowScales().empty() || getAScaleGroup() != 0)
      return emitOpError("column scales take no row scales and no "
                         "a_scale_group");
    return verifyColumnScales(*this, getAScales().getType(), getRow(),
                              getStage(), getTotal().getType(),
                              getBScales().size(), getBScaleMap());
  }
  if (!getRowScales().empty() && getRowScales().size() != 2)
    return emitOpError("takes the 2 row scales of the thread's fragment "
                       "(warpspec.acc.row_scales) or none, got ")
           << getRowScales().size();
  return verifyBlockScales(*this, getAScales().getType(), getRow(), getStage(),
                           getTotal().getType(), getBScales().size(),
                           getBScaleMap(), getAScaleGroup());
}

LogicalResult AccRowScalesOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  // The scales of a 64-row (wgmma m64) fragment's rows.
  return verifyRowScales(*this, getAScales().getType(), getRow(), getStage(),
                         /*m=*/64, getAScaleGroup());
}

int64_t MmaBlockScaledOp::getAScaleGroupCount() {
  if (std::optional<uint64_t> groups = getAScaleGroups())
    return static_cast<int64_t>(*groups);
  return aScaleGroups(getAScales().getType());
}

int64_t AccPromoteOp::getBScaleIndex(int64_t column) {
  return bScaleIndex(getBScaleMap(), getTotal().getType().getN(),
                     getBScales().size(), column);
}

LogicalResult MmaBlockScaledOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  AccType acc = getTotal().getType();
  if (getSwapAb()) {
    // The weights are the MMA's A (rows [row, row + m) of `b`) and the
    // activation rows its B (all of `a`).
    if (getTurn() || getPass())
      return emitOpError("swap_ab has no issue turns");
    if (aScaleGroups(getAScales().getType()) != 1)
      return emitOpError("swap_ab takes [M] a_scales (one scale per "
                         "activation row and K block), got ")
             << getAScales().getType();
    if (failed(verifyMmaOperands(*this, getB().getType(), getStage(), getRow(),
                                 Major::k, getA().getType(), getStage(),
                                 Major::k, acc)))
      return failure();
    // Every row of `a` is a column: its scales from the tile's first.
    return verifyColumnScales(*this, getAScales().getType(), Value(), getStage(),
                              acc, getBScales().size(), getBScaleMap());
  }
  FailureOr<MmaShape> shape =
      verifyMmaOperands(*this, getA().getType(), getStage(), getRow(),
                        Major::k, getB().getType(), getStage(), Major::k, acc);
  if (failed(shape))
    return failure();
  if (failed(verifyBlockScales(*this, getAScales().getType(), getRow(),
                               getStage(), acc, getBScales().size(),
                               getBScaleMap())))
    return failure();
  // The issue turn needs both barriers, and two distinct ones: a warpgroup
  // that passed the turn to itself would run ahead of the other.
  if (static_cast<bool>(getTurn()) != static_cast<bool>(getPass()))
    return emitOpError("needs both `turn` and `pass` barriers, or neither");
  if (getTurn()) {
    if (getTurn() == getPass())
      return emitOpError("passes the issue turn to the barrier it waits on; "
                         "`turn` and `pass` must be different barriers");
    if (failed(checks::verifyBarrierUse(*this, getTurn())) ||
        failed(checks::verifyBarrierUse(*this, getPass())))
      return failure();
  }
  // A ring shared with a GEMM of more groups: this one's are the first
  // rows of each slot.
  int64_t tileGroups = aScaleGroups(getAScales().getType());
  if (getAScaleGroups() && getAScaleGroupCount() > tileGroups)
    return emitOpError("a_scale_groups ")
           << getAScaleGroupCount() << " exceeds the a_scales tile's "
           << tileGroups << " group(s) per row";
  // Each scale group's K range is its own MMA: whole MMA k steps.
  int64_t groups = getAScaleGroupCount();
  int64_t k = shape->k, step = shape->step;
  if (k % groups != 0 || (k / groups) % step != 0)
    return emitOpError("the ")
           << groups << " activation-scale groups split K = " << k
           << " into ranges that are not multiples of the MMA k = " << step;
  return success();
}

LogicalResult AccFenceOp::verify() {
  // The accumulator lives in the registers of one role's warpgroup.
  return verifyInsideRole(*this);
}

LogicalResult AccStoreOp::verify() {
  SmemType buffer = getBuffer().getType();
  AccType acc = getAcc().getType();
  Type element = buffer.getElementType();
  if (buffer.getShape().size() != 2)
    return emitOpError("destination tile must be 2-d [rows, n], got ")
           << buffer;
  if (!element.isBF16() && !element.isF16() && !element.isF32() &&
      !isa<Float8E4M3FNType>(element))
    return emitOpError("destination element type must be bf16, f16, f32 or "
                       "f8E4M3FN, got ")
           << element;
  if (getTranspose()) {
    // stmatrix.trans moves 16-bit elements; row r of the accumulator is
    // column r of the tile.
    if (!element.isBF16() && !element.isF16())
      return emitOpError("transpose stores 16-bit elements (bf16, f16), got ")
             << element;
    if (buffer.getShape()[1] != acc.getM())
      return emitOpError("transposed: the accumulator's m = ")
             << acc.getM() << " rows must match the destination's "
             << buffer.getShape()[1] << " columns";
    if (acc.getN() % 8 != 0)
      return emitOpError("transposed: n = ")
             << acc.getN() << " must be whole 8-column groups";
    if (failed(verifyRowOffset(*this, getRow(), 8, buffer.getShape()[0],
                               "destination")))
      return failure();
    if (std::optional<int64_t> c = getConstantIntValue(getRow()))
      if (*c + acc.getN() > buffer.getShape()[0])
        return emitOpError("transposed: destination row ")
               << *c << " + n = " << acc.getN() << " exceeds its "
               << buffer.getShape()[0] << " rows";
    return verifyStageForBuffer(*this, getStage(), buffer);
  }
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

//===----------------------------------------------------------------------===//
// SM100 TMEM plan of the block-scaled MMA
//===----------------------------------------------------------------------===//

FailureOr<TmemPartialsPlan> mlir::warpspec::planTmemPartials(KernelOp kernel) {
  TmemPartialsPlan plan;
  RolesOp roles = kernel.getRolesOp();
  if (!kernel.getChip().starts_with("sm_100") || !roles)
    return plan;
  for (RoleOp role : roles.getBody().getOps<RoleOp>()) {
    int64_t n = 0;
    Operation *first = nullptr;
    WalkResult result = role.getBody().walk([&](MmaBlockScaledOp op) {
      int64_t opN = op.getTotal().getType().getN();
      if (n && opN != n) {
        InFlightDiagnostic diag =
            op.emitOpError("accumulates ")
            << opN << " columns but an earlier block-scaled MMA of role '"
            << role.getName() << "' accumulates " << n
            << "; on sm_100 each MMA warpgroup owns one TMEM partial of a "
               "single width";
        diag.attachNote(first->getLoc()) << "the earlier MMA";
        return WalkResult::interrupt();
      }
      n = opN;
      first = op;
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
    if (!n)
      continue;
    plan.roles.push_back({role, n, plan.warpgroups});
    int64_t warpgroups = role.getNumWarps() / 4;
    plan.warpgroups += warpgroups;
    plan.columns += warpgroups * n;
  }
  if (plan.columns)
    plan.allocColumns =
        std::max<int64_t>(32, llvm::PowerOf2Ceil(uint64_t(plan.columns)));
  return plan;
}
