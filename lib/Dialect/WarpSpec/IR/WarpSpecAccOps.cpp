//===- WarpSpecAccOps.cpp - epilogue math on accumulators -----------------===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "WarpSpecVerifyUtils.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

/// The body of an element-wise map takes one f32 per operand.
LogicalResult verifyMapBody(Operation *op, Region &body, size_t operands) {
  Block &block = body.front();
  if (block.empty() || !isa<AccYieldOp>(block.back()))
    return op->emitOpError("body must end with warpspec.acc.yield of the "
                           "element's value");
  if (block.getNumArguments() != operands)
    return op->emitOpError("body takes one f32 per operand (")
           << operands << "), got " << block.getNumArguments()
           << " arguments";
  for (BlockArgument arg : block.getArguments())
    if (!arg.getType().isF32())
      return op->emitOpError("body arguments are f32 (one element of each "
                             "operand), got ")
             << arg.getType();
  return success();
}

/// All of `values` have the type of the first; at least one.
template <typename T>
LogicalResult verifySameType(Operation *op, ValueRange values,
                             StringRef what) {
  if (values.empty())
    return op->emitOpError("needs at least one ") << what;
  for (Value v : values.drop_front())
    if (v.getType() != values.front().getType())
      return op->emitOpError("expects every ")
             << what << " of one type; got " << values.front().getType()
             << " and " << v.getType();
  return success();
}

} // namespace

LogicalResult AccMapOp::verify() {
  if (failed(verifySameType<AccType>(*this, getAccs(), "accumulator")))
    return failure();
  auto acc = cast<AccType>(getAccs().front().getType());
  if (getResult().getType() != acc)
    return emitOpError("result type ")
           << getResult().getType() << " differs from the operands' " << acc;
  for (Value r : getRows())
    if (cast<AccRowsType>(r.getType()).getM() != acc.getM())
      return emitOpError("per-row operand of ")
             << cast<AccRowsType>(r.getType()).getM()
             << " rows does not match the accumulator's " << acc.getM();
  return verifyMapBody(*this, getBody(),
                       getAccs().size() + getRows().size());
}

LogicalResult AccRowsMapOp::verify() {
  if (failed(verifySameType<AccRowsType>(*this, getRows(), "per-row operand")))
    return failure();
  if (getResult().getType() != getRows().front().getType())
    return emitOpError("result type ")
           << getResult().getType() << " differs from the operands' "
           << getRows().front().getType();
  return verifyMapBody(*this, getBody(), getRows().size());
}

LogicalResult AccDeinterleaveOp::verify() {
  AccType acc = getAcc().getType();
  int64_t period = getPeriod();
  if (period % 8 != 0)
    return emitOpError("period must be a multiple of 8 (a thread holds "
                       "accumulator columns in groups of 8), got ")
           << period;
  if (acc.getN() % (2 * period) != 0)
    return emitOpError("accumulator of n = ")
           << acc.getN() << " columns is not a whole number of (kind 0, kind "
           << "1) column pairs of 2 x " << period;
  auto half = AccType::get(getContext(), acc.getM(), acc.getN() / 2,
                           acc.getElementType());
  if (getFirst().getType() != half || getSecond().getType() != half)
    return emitOpError("results must be ") << half << " (half the columns)";
  return success();
}

LogicalResult AccSliceOp::verify() {
  // Rows (64) and element type (f32) are the accumulator type's own rule.
  AccType acc = getAcc().getType(), result = getResult().getType();
  int64_t offset = getOffset(), n = result.getN();
  if (offset % 8 != 0 || n % 8 != 0)
    return emitOpError("offset and columns must be multiples of 8 (a thread "
                       "holds accumulator columns in groups of 8), got offset ")
           << offset << " and " << n << " columns";
  if (offset + n > acc.getN())
    return emitOpError("columns [")
           << offset << ", " << offset + n << ") are not within the "
           << acc.getN() << " columns of the accumulator";
  return success();
}

LogicalResult AccRowReduceOp::verify() {
  if (failed(verifySameType<AccType>(*this, getAccs(), "accumulator")))
    return failure();
  auto acc = cast<AccType>(getAccs().front().getType());
  if (getResult().getType().getM() != acc.getM())
    return emitOpError("result has ")
           << getResult().getType().getM() << " rows, the accumulator "
           << acc.getM();
  return success();
}

LogicalResult AccAnyOp::verify() {
  return verifySameType<AccType>(*this, getAccs(), "accumulator");
}

LogicalResult AccRowsLoadOp::verify() {
  if (!getPtr().getType().getElementType().isF32())
    return emitOpError("reads f32 per-row values, got a pointer to ")
           << getPtr().getType().getElementType();
  return success();
}

/// A per-row SMEM buffer: 1-D f32, one element per row in each slot.
static LogicalResult verifyRowsBuffer(Operation *op, SmemType buffer,
                                      AccRowsType rows, Value stage) {
  if (buffer.getShape().size() != 1 || buffer.getShape()[0] != rows.getM() ||
      !buffer.getElementType().isF32())
    return op->emitOpError("needs a 1-D f32 buffer of ")
           << rows.getM() << " elements per slot (one per row), got "
           << buffer;
  return checks::verifyStageForBuffer(op, stage, buffer);
}

LogicalResult AccRowsStoreSharedOp::verify() {
  return verifyRowsBuffer(*this, getBuffer().getType(), getRows().getType(),
                          getStage());
}

LogicalResult AccRowsLoadSharedOp::verify() {
  return verifyRowsBuffer(*this, getBuffer().getType(), getResult().getType(),
                          getStage());
}

LogicalResult AccRowsStoreOp::verify() {
  if (!getPtr().getType().getElementType().isF32())
    return emitOpError("writes f32 per-row values, got a pointer to ")
           << getPtr().getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// acc.spill / acc.fill
//===----------------------------------------------------------------------===//

/// The accumulator type already holds f32 and n a multiple of 8 (n / 2 per
/// thread: whole 16-byte vectors); the memory must be f32 too.
static LogicalResult verifyAccMemory(Operation *op, GlobalType ptr) {
  if (!ptr.getElementType().isF32())
    return op->emitOpError("moves an f32 accumulator, got a pointer to ")
           << ptr.getElementType();
  return success();
}

LogicalResult AccSpillOp::verify() {
  return verifyAccMemory(*this, getPtr().getType());
}

LogicalResult AccFillOp::verify() {
  return verifyAccMemory(*this, getPtr().getType());
}
