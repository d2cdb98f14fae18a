//===- LowerBlockScaledSm90.cpp - the block-scaled MMA on SM90 ------------===//
//
// On SM90 a block-scaled K block is DeepGEMM's sequence: wgmma of the stage
// into a fresh register accumulator (scale-d = 0), wgmma.wait_group 0, then
// total += partial * a_scale[row] * b_scale on CUDA cores (acc.promote). The
// expansion runs before the conversion, so those warpspec ops are then
// lowered by their own patterns (LowerMmaSm90.cpp). The SM100 lowering
// (tcgen05 + TMEM, LowerBlockScaledSm100.cpp) runs first and leaves no
// sm_100 op here.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

using namespace mlir;
using namespace mlir::warpspec;

LogicalResult warpspec::expandBlockScaledMmaSm90(gpu::GPUModuleOp module) {
  SmallVector<MmaBlockScaledOp> ops;
  module.walk([&](MmaBlockScaledOp op) { ops.push_back(op); });
  for (MmaBlockScaledOp op : ops) {
    auto kernel = op->getParentOfType<KernelOp>();
    StringRef chip = kernel ? kernel.getChip() : StringRef();
    if (chip != "sm_90a")
      return op.emitOpError("has no lowering for chip '")
             << chip
             << "' (block-scaled MMA is lowered for sm_90a and sm_100a)";
    OpBuilder b(op);
    Location loc = op.getLoc();
    AccType accType = op.getTotal().getType();
    Value fresh = AccZeroOp::create(b, loc, accType);
    Value partial = MmaSm90Op::create(b, loc, op.getA(), op.getStage(),
                                      op.getRow(), op.getB(), op.getStage(),
                                      fresh);
    Value ready =
        MmaWaitOp::create(b, loc, 0u, ValueRange{partial}).getResult(0);
    AffineMapAttr map;
    if (std::optional<AffineMap> m = op.getBScaleMap())
      map = AffineMapAttr::get(*m);
    Value total = AccPromoteOp::create(b, loc, ready, op.getTotal(),
                                       op.getAScales(), op.getStage(),
                                       op.getRow(), op.getBScales(), map);
    op.replaceAllUsesWith(total);
    op.erase();
  }
  return success();
}
