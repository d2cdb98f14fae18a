//===- PlanSmem.cpp - static shared-memory plan of warpspec kernels -------===//
#include "megamoe/Dialect/WarpSpec/Transforms/Passes.h"

#include "megamoe/Config/SmemModel.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

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
  // Placed by the one layout rule of lib/Config (SmemModel.h), which the
  // kernel plans that size these kernels use as well.
  std::vector<::megamoe::config::SmemRegionPlan> regions;
  SmallVector<Operation *> ops;
  SmallVector<StringRef> names;
  for (SmemAllocOp alloc : buffers) {
    SmemType type = alloc.getType();
    regions.push_back({alloc.getName().str(), type.getTotalBytes(), 1,
                       static_cast<int64_t>(type.getAlign())});
    ops.push_back(alloc);
    names.push_back(alloc.getName());
  }
  for (PipelineCreateOp pipe : pipelines) {
    regions.push_back(
        {pipe.getName().str(), pipe.getBarrierBytes(), 1, kMbarrierAlign});
    ops.push_back(pipe);
    names.push_back(pipe.getName());
  }
  // sm_100 kernels with block-scaled MMAs: the TMEM address and the MMA
  // warpgroups' commit mbarriers (planTmemPartials). The kernel op stands
  // for the region; its offset becomes kTmemStateOffsetAttrName.
  FailureOr<TmemPartialsPlan> tmem = planTmemPartials(kernel);
  if (succeeded(tmem) && tmem->bytesOfState()) {
    regions.push_back({"tmem_state", tmem->bytesOfState(), 1, kMbarrierAlign});
    ops.push_back(kernel);
    names.push_back("tmem_state");
  }
  int64_t total = ::megamoe::config::layoutSmem(regions);
  for (auto [op, name, region] : llvm::zip_equal(ops, names, regions))
    entries.push_back({op, name, region.offset, region.bytes()});
  return total;
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
    auto listEntries = [&](InFlightDiagnostic &diag) {
      for (const SmemPlanEntry &e : entries)
        diag.attachNote(e.op->getLoc())
            << "'" << e.name << "': " << e.bytes << " B at offset " << e.offset;
    };
    // The chip's limit (config::ChipLimits), unless the option overrides it.
    int64_t limit =
        smemLimit > 0 ? int64_t(smemLimit) : getSmemLimit(kernel.getChip());
    if (total > limit) {
      InFlightDiagnostic diag = kernel.emitError()
                                << "shared-memory plan of kernel @"
                                << kernel.getSymName() << " needs " << total
                                << " B, more than the " << limit
                                << " B per-block limit";
      listEntries(diag);
      return failure();
    }
    // The builder's kernel plan: the layout must fit what it reserved.
    if (Attribute attr = kernel->getAttr(kPlannedSmemBytesAttrName)) {
      auto planned = dyn_cast<IntegerAttr>(attr);
      if (!planned || planned.getValue().isNegative())
        return kernel.emitError()
               << "'" << kPlannedSmemBytesAttrName
               << "' must be a non-negative integer (bytes), got " << attr;
      if (planned.getInt() > limit)
        return kernel.emitError()
               << "the kernel plan of @" << kernel.getSymName() << " reserves "
               << planned.getInt() << " B of shared memory, more than the "
               << limit << " B per-block limit";
      if (total > planned.getInt()) {
        InFlightDiagnostic diag =
            kernel.emitError()
            << "shared-memory plan of kernel @" << kernel.getSymName()
            << " needs " << total << " B, more than the " << planned.getInt()
            << " B its kernel plan reserves ('" << kPlannedSmemBytesAttrName
            << "'): the builder's buffers and the plan's SMEM regions "
               "disagree";
        listEntries(diag);
        return failure();
      }
    }
    Builder builder(kernel.getContext());
    for (const SmemPlanEntry &e : entries)
      e.op->setAttr(e.op == kernel.getOperation()
                        ? StringRef(kTmemStateOffsetAttrName)
                        : StringRef(WarpSpecDialect::kOffsetAttrName),
                    builder.getI64IntegerAttr(e.offset));
    kernel.setSmemBytesAttr(builder.getI64IntegerAttr(total));
    return success();
  }
};
} // namespace
