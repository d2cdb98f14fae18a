//===- MoeLayout.cpp - PLACEHOLDER until its builder lands ---------------------===//
#include "megamoe/Kernels/MoeKernels.h"

// Placeholder: megamoe-expand reports the kernel as not built yet.
void megamoe::buildMoeLayoutKernel(mlir::OpBuilder &, mlir::Location loc, const MoeKernelContext &) {
  mlir::emitError(loc) << "megamoe-expand: buildMoeLayoutKernel is not built yet";
}
