//===- TargetAttr.h - the #nvvm.target of a chip ----------------*- C++ -*-===//
//
// The one way to build the #nvvm.target of a gpu.module: the PTX version
// comes from ptxFeaturesForChip (Target.cpp), so megamoe-attach-target,
// megamoe-expand and the grouped GEMM builder cannot disagree on it.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONVERSION_TARGETATTR_H
#define MEGAMOE_CONVERSION_TARGETATTR_H

#include "megamoe/Conversion/Target.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace megamoe {

/// #nvvm.target<O = optLevel, chip, features = ptxFeaturesForChip(chip)>, or
/// a null attribute when the chip is not supported (see supportedChips).
inline mlir::NVVM::NVVMTargetAttr
nvvmTargetForChip(mlir::MLIRContext *ctx, llvm::StringRef chip,
                  int optLevel = 3) {
  std::optional<std::string> features = ptxFeaturesForChip(chip.str());
  if (!features)
    return {};
  return mlir::NVVM::NVVMTargetAttr::get(ctx, optLevel, "nvptx64-nvidia-cuda",
                                         chip, *features);
}

} // namespace megamoe

#endif // MEGAMOE_CONVERSION_TARGETATTR_H
