//===- MoeCombine.cpp - PLACEHOLDER until its builder lands ---------------------===//
#include "megamoe/Kernels/MoeKernels.h"

// Placeholder: megamoe-expand reports the kernel as not built yet.
void megamoe::buildMoeCombinePushKernel(mlir::OpBuilder &, mlir::Location loc, const MoeKernelContext &) {
  mlir::emitError(loc) << "megamoe-expand: buildMoeCombinePushKernel is not built yet";
}
void megamoe::buildMoeCombineBarrierKernel(mlir::OpBuilder &, mlir::Location loc, const MoeKernelContext &) {
  mlir::emitError(loc) << "megamoe-expand: buildMoeCombineBarrierKernel is not built yet";
}
void megamoe::buildMoeCombineReduceKernel(mlir::OpBuilder &, mlir::Location loc, const MoeKernelContext &) {
  mlir::emitError(loc) << "megamoe-expand: buildMoeCombineReduceKernel is not built yet";
}
