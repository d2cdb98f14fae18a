//===- AttachTarget.cpp - #nvvm.target from a chip name -------------------===//
#include "megamoe/Conversion/Passes.h"
#include "megamoe/Conversion/TargetAttr.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOEATTACHTARGET
#include "megamoe/Conversion/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;

namespace {
struct AttachTargetPass
    : mlir::megamoe::impl::MegaMoEAttachTargetBase<AttachTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    auto target = ::megamoe::nvvmTargetForChip(&getContext(), chip, optLevel);
    if (!target) {
      module.emitError() << "unsupported chip '" << chip
                         << "'; supported: " << ::megamoe::supportedChips();
      return signalPassFailure();
    }
    module.setTargetsAttr(ArrayAttr::get(&getContext(), {target}));
  }
};
} // namespace
