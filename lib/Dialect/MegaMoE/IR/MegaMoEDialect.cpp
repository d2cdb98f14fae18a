//===- MegaMoEDialect.cpp - the megamoe dialect
//------------------------------===//
#include "megamoe/Dialect/MegaMoE/IR/MegaMoE.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::megamoe;

#include "megamoe/Dialect/MegaMoE/IR/MegaMoEOpsDialect.cpp.inc"

void MegaMoEDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "megamoe/Dialect/MegaMoE/IR/MegaMoEOps.cpp.inc"
      >();
}
