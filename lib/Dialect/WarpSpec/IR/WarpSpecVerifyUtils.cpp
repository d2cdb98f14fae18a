//===- WarpSpecVerifyUtils.cpp - helpers shared by the op verifiers -------===//
#include "WarpSpecVerifyUtils.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mlir::warpspec;

LogicalResult checks::verifyInsideRole(Operation *op) {
  if (!op->getParentOfType<RoleOp>())
    return op->emitOpError("must be inside a warpspec.role (it is executed by "
                           "the warps of one role)");
  return success();
}

StringRef checks::getKernelChip(Operation *op) {
  if (auto kernel = op->getParentOfType<KernelOp>())
    return kernel.getChip();
  return "";
}

LogicalResult checks::verifyChip(Operation *op, StringRef prefix,
                                 StringRef chipName) {
  StringRef chip = getKernelChip(op);
  if (chip.empty() || chip.starts_with(prefix))
    return success();
  return op->emitOpError("needs a kernel with chip = \"")
         << chipName << "\", but the kernel targets \"" << chip << "\"";
}

Value checks::getStagePipeline(Value stage) {
  Operation *def = stage.getDefiningOp();
  if (auto acquire = dyn_cast_or_null<ProducerAcquireOp>(def))
    return acquire.getPipeline();
  if (auto wait = dyn_cast_or_null<ConsumerWaitOp>(def))
    return wait.getPipeline();
  return {};
}

LogicalResult checks::verifyStageForBuffer(Operation *op, Value stage,
                                           SmemType buffer) {
  if (std::optional<int64_t> c = getConstantIntValue(stage)) {
    if (*c < 0 || *c >= buffer.getSlots())
      return op->emitOpError("stage ")
             << *c << " is out of range for a buffer of " << buffer.getSlots()
             << " slot(s)";
    return success();
  }
  if (Value pipeline = getStagePipeline(stage)) {
    auto type = cast<PipelineType>(pipeline.getType());
    if (type.getStages() != buffer.getSlots())
      return op->emitOpError("stage of a ")
             << type.getStages() << "-stage pipeline indexes a buffer of "
             << buffer.getSlots() << " slot(s); they need one slot per stage";
  }
  return success();
}

LogicalResult checks::verifyStageSource(Operation *op, Value stage,
                                        Value pipeline, bool wantProducer) {
  Operation *def = stage.getDefiningOp();
  if (!def)
    return success();
  bool fromProducer = isa<ProducerAcquireOp>(def);
  bool fromConsumer = isa<ConsumerWaitOp>(def);
  if (!fromProducer && !fromConsumer)
    return success();
  if (fromProducer != wantProducer)
    return op->emitOpError("needs a stage from ")
           << (wantProducer ? "warpspec.producer.acquire"
                            : "warpspec.consumer.wait")
           << ", got one from " << def->getName();
  if (getStagePipeline(stage) != pipeline)
    return op->emitOpError("uses a stage acquired from a different pipeline");
  return success();
}

int64_t checks::elementBytes(Type type) {
  return type.isIntOrFloat() ? type.getIntOrFloatBitWidth() / 8 : 0;
}

bool checks::isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

LogicalResult mlir::warpspec::checks::verifyKernelCluster(Operation *op,
                                                          int64_t ctas,
                                                          StringRef what) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return success();
  std::optional<ArrayRef<int32_t>> cluster = kernel.getCluster();
  if (cluster && cluster->size() == 3 && (*cluster)[0] == ctas &&
      (*cluster)[1] == 1 && (*cluster)[2] == 1)
    return success();
  InFlightDiagnostic d = op->emitOpError()
                         << what << " spans a cluster of " << ctas
                         << " CTAs, but the kernel's cluster is ";
  if (!cluster)
    d << "not set (one CTA)";
  else
    d << "[" << llvm::interleaved(*cluster) << "]";
  return d << "; it needs cluster = [" << ctas << ", 1, 1]";
}

LogicalResult checks::verifyBarrierUse(Operation *op, Value barrier) {
  if (failed(verifyInsideRole(op)))
    return failure();
  auto decl = barrier.getDefiningOp<NamedBarrierOp>();
  if (!decl)
    return success();
  auto role = op->getParentOfType<RoleOp>();
  if (!decl.hasRole(role.getName()))
    return op->emitOpError("is executed in role '")
           << role.getName() << "', which does not take part in named barrier "
           << decl.getId();
  return success();
}
