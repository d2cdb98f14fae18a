//===- AttachTarget.cpp - #nvvm.target from a chip name -------------------===//
#include "megamoe/Conversion/Passes.h"
#include "megamoe/Conversion/Target.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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
    std::optional<std::string> features = ::megamoe::ptxFeaturesForChip(chip);
    if (!features) {
      module.emitError() << "unsupported chip '" << chip
                         << "'; supported: " << ::megamoe::supportedChips();
      return signalPassFailure();
    }
    auto target = NVVM::NVVMTargetAttr::get(
        &getContext(), optLevel, "nvptx64-nvidia-cuda", chip, *features);
    module.setTargetsAttr(ArrayAttr::get(&getContext(), {target}));
  }
};
} // namespace
