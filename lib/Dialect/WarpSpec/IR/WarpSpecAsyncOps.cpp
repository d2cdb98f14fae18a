//===- WarpSpecAsyncOps.cpp - TMA, bulk copies, counters, symmetric memory ===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "WarpSpecVerifyUtils.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::warpspec;
using namespace mlir::warpspec::checks;

namespace {
/// Checks that `bytes` at `slotOffset` fit a slot of `buffer`, that the
/// buffer has one slot per stage of `pipeline`, and that `stage` came from
/// the producer side of `pipeline`.
LogicalResult verifyCopyIntoSlot(Operation *op, SmemType buffer, Value stage,
                                 Value pipeline, std::optional<int64_t> bytes,
                                 int64_t slotOffset, StringRef what) {
  if (failed(verifyInsideRole(op)))
    return failure();
  auto pipeType = cast<PipelineType>(pipeline.getType());
  if (buffer.getSlots() != pipeType.getStages())
    return op->emitOpError("buffer of ")
           << buffer.getSlots() << " slot(s) is filled through a "
           << pipeType.getStages()
           << "-stage pipeline; they need one slot per stage";
  if (bytes && slotOffset + *bytes > buffer.getSlotBytes())
    return op->emitOpError()
           << what << " of " << *bytes << " B at slot offset " << slotOffset
           << " does not fit a " << buffer.getSlotBytes() << " B slot";
  if (failed(verifyStageForBuffer(op, stage, buffer)))
    return failure();
  return verifyStageSource(op, stage, pipeline, /*wantProducer=*/true);
}

LogicalResult verifyCoordinates(Operation *op, TmaDescType desc,
                                size_t numCoords) {
  if (numCoords != desc.getBox().size())
    return op->emitOpError("expects ")
           << desc.getBox().size() << " coordinate(s) for a "
           << desc.getBox().size() << "-d TMA box, got " << numCoords;
  return success();
}

LogicalResult verifyTimeout(Operation *op, std::optional<int64_t> timeout) {
  if (timeout && *timeout <= 0)
    return op->emitOpError("timeout_cycles must be positive, got ") << *timeout;
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// TMA and bulk copies
//===----------------------------------------------------------------------===//

LogicalResult TmaLoadOp::verify() {
  TmaDescType desc = getDesc().getType();
  SmemType buffer = getBuffer().getType();
  if (failed(verifyCoordinates(*this, desc, getCoords().size())))
    return failure();
  if (desc.getElementType() != buffer.getElementType())
    return emitOpError("TMA box element type ")
           << desc.getElementType() << " does not match the buffer's "
           << buffer.getElementType();
  if (desc.getSwizzle() != buffer.getSwizzle())
    return emitOpError("TMA swizzle ")
           << desc.getSwizzle() << " does not match the buffer's swizzle "
           << buffer.getSwizzle();
  int64_t offset = getSlotOffset().value_or(0);
  // cp.async.bulk.tensor writes shared memory at 128-byte aligned addresses.
  if (buffer.getAlign() < 128 || offset % 128 != 0)
    return emitOpError("TMA destination must be 128-byte aligned; the buffer "
                       "has align ")
           << buffer.getAlign() << " and slot offset " << offset;
  if (std::optional<uint32_t> ctas = getMulticast()) {
    // A multicast load writes the peers' slots: only a pipeline whose stages
    // every CTA of the cluster releases may be refilled that way.
    auto create = getPipeline().getDefiningOp<PipelineCreateOp>();
    if (!create || create.getClusterCtas() != *ctas)
      return emitOpError("multicast ")
             << *ctas << " writes the slots of the " << *ctas
             << " CTAs of a cluster; its pipeline must be released by all of "
                "them (warpspec.pipeline.create ... cluster "
             << *ctas << ")";
    if (failed(verifyKernelCluster(*this, *ctas, "multicast TMA load")))
      return failure();
  }
  return verifyCopyIntoSlot(*this, buffer, getStage(), getPipeline(),
                            getDeliveredBytes(), offset,
                            getMulticast() ? "multicast TMA boxes"
                                           : "TMA box");
}

LogicalResult TmaStoreOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  return verifyCoordinates(*this, getDesc().getType(), getCoords().size());
}

LogicalResult BulkCopyOp::verify() {
  std::optional<int64_t> bytes = getConstantIntValue(getBytes());
  if (bytes && (*bytes <= 0 || *bytes % 16 != 0))
    return emitOpError("bulk copy size must be a positive multiple of 16 "
                       "bytes, got ")
           << *bytes;
  int64_t offset = getSlotOffset().value_or(0);
  if (offset % 16 != 0)
    return emitOpError("bulk copy slot offset must be a multiple of 16 bytes, "
                       "got ")
           << offset;
  return verifyCopyIntoSlot(*this, getBuffer().getType(), getStage(),
                            getPipeline(), bytes, offset, "bulk copy");
}

LogicalResult BulkStoreOp::verify() {
  std::optional<int64_t> bytes = getConstantIntValue(getBytes());
  if (bytes && (*bytes <= 0 || *bytes % 16 != 0))
    return emitOpError("bulk store size must be a positive multiple of 16 "
                       "bytes, got ")
           << *bytes;
  return verifyInsideRole(*this);
}

//===----------------------------------------------------------------------===//
// Counters, grid sync, symmetric memory
//===----------------------------------------------------------------------===//

LogicalResult CounterWaitOp::verify() {
  if (getName().empty())
    return emitOpError("needs a non-empty counter name (it is reported when "
                       "the wait times out)");
  return verifyTimeout(*this, getTimeoutCycles());
}

LogicalResult GridSyncOp::verify() {
  return verifyTimeout(*this, getTimeoutCycles());
}

LogicalResult CrossRankBarrierOp::verify() {
  if (getScope() != Scope::sys)
    return emitOpError("must use scope sys: peers on other GPUs do not "
                       "observe gpu-scope releases");
  return verifyTimeout(*this, getTimeoutCycles());
}
