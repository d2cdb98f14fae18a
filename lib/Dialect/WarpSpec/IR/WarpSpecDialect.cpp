//===- WarpSpecDialect.cpp - the warpspec dialect
//------------------------------===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::warpspec;

#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsDialect.cpp.inc"
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsEnums.cpp.inc"

void WarpSpecDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOps.cpp.inc"
      >();
}

int64_t mlir::warpspec::getSmemLimit(StringRef chip) {
  // H100/H200 (sm_90a) and B200 (sm_100a) both allow 227 KiB of dynamic
  // shared memory per block once cudaFuncSetAttribute raised the cap.
  if (chip.starts_with("sm_90") || chip.starts_with("sm_100"))
    return kMaxSmemBytesSm90;
  return 0;
}
