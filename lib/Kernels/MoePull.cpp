//===- MoePull.cpp - PLACEHOLDER until its builder lands ---------------------===//
#include "megamoe/Kernels/MoeKernels.h"

// Placeholder: megamoe-expand reports the kernel as not built yet.
void megamoe::buildMoePullKernel(mlir::OpBuilder &, mlir::Location loc, const MoeKernelContext &) {
  mlir::emitError(loc) << "megamoe-expand: buildMoePullKernel is not built yet";
}
