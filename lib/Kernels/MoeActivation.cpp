//===- MoeActivation.cpp - PLACEHOLDER until its builder lands ---------------------===//
#include "megamoe/Kernels/MoeKernels.h"

// Placeholder: megamoe-expand reports the kernel as not built yet.
void megamoe::buildMoeActivationKernel(mlir::OpBuilder &, mlir::Location loc, const MoeKernelContext &) {
  mlir::emitError(loc) << "megamoe-expand: buildMoeActivationKernel is not built yet";
}
