//===- PlanSmem.cpp - static shared-memory plan of warpspec kernels -------===//
#include "megamoe/Dialect/WarpSpec/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::warpspec {
#define GEN_PASS_DEF_WARPSPECPLANSMEM
#include "megamoe/Dialect/WarpSpec/Transforms/Passes.h.inc"
} // namespace mlir::warpspec

using namespace mlir;
using namespace mlir::warpspec;

namespace {
/// mbarriers are 8-byte objects that need 8-byte alignment.
constexpr int64_t kMbarrierAlign = 8;
} // namespace

int64_t
mlir::warpspec::computeSmemPlan(KernelOp kernel,
                                SmallVectorImpl<SmemPlanEntry> &entries) {
  SmallVector<SmemAllocOp> buffers;
  SmallVector<PipelineCreateOp> pipelines;
  for (Operation &op : kernel.getBody().front()) {
    if (auto alloc = dyn_cast<SmemAllocOp>(op))
      buffers.push_back(alloc);
    else if (auto pipe = dyn_cast<PipelineCreateOp>(op))
      pipelines.push_back(pipe);
  }
  // Largest alignment first: no padding between buffers whose sizes are
  // multiples of their alignment, and swizzled tiles land on 1 KiB atoms.
  llvm::stable_sort(buffers, [](SmemAllocOp a, SmemAllocOp b) {
    return a.getType().getAlign() > b.getType().getAlign();
  });
  int64_t end = 0;
  for (SmemAllocOp alloc : buffers) {
    SmemType type = alloc.getType();
    int64_t offset = llvm::alignTo(end, type.getAlign());
    entries.push_back({alloc, alloc.getName(), offset, type.getTotalBytes()});
    end = offset + type.getTotalBytes();
  }
  for (PipelineCreateOp pipe : pipelines) {
    int64_t offset = llvm::alignTo(end, kMbarrierAlign);
    entries.push_back({pipe, pipe.getName(), offset, pipe.getBarrierBytes()});
    end = offset + pipe.getBarrierBytes();
  }
  return end;
}

namespace {
struct PlanSmemPass
    : public mlir::warpspec::impl::WarpSpecPlanSmemBase<PlanSmemPass> {
  using WarpSpecPlanSmemBase::WarpSpecPlanSmemBase;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](KernelOp kernel) {
      return failed(planKernel(kernel)) ? WalkResult::interrupt()
                                        : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult planKernel(KernelOp kernel) {
    SmallVector<SmemPlanEntry> entries;
    int64_t total = computeSmemPlan(kernel, entries);
    int64_t limit =
        smemLimit > 0 ? int64_t(smemLimit) : getSmemLimit(kernel.getChip());
    if (total > limit) {
      InFlightDiagnostic diag = kernel.emitError()
                                << "shared-memory plan of kernel @"
                                << kernel.getSymName() << " needs " << total
                                << " B, more than the " << limit
                                << " B per-block limit";
      for (const SmemPlanEntry &e : entries)
        diag.attachNote(e.op->getLoc())
            << "'" << e.name << "': " << e.bytes << " B at offset " << e.offset;
      return failure();
    }
    Builder builder(kernel.getContext());
    for (const SmemPlanEntry &e : entries)
      e.op->setAttr(WarpSpecDialect::kOffsetAttrName,
                    builder.getI64IntegerAttr(e.offset));
    kernel.setSmemBytesAttr(builder.getI64IntegerAttr(total));
    return success();
  }
};
} // namespace
