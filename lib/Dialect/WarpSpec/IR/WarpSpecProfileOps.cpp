//===- WarpSpecProfileOps.cpp - the phase profile's ops -------------------===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

using namespace mlir;
using namespace mlir::warpspec;

LogicalResult SequenceNextOp::verify() {
  if (getKey().empty())
    return emitOpError("needs a non-empty key (the sequence it counts)");
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("must be inside a warpspec.kernel (the count lives in "
                       "a register of the kernel's thread)");
  return success();
}
