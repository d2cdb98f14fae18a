//===- WarpSpecDialect.cpp - the warpspec dialect ------------------------------===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::warpspec;

#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsDialect.cpp.inc"

void WarpSpecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOps.cpp.inc"
