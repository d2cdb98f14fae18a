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

std::optional<::megamoe::config::ChipLimits>
mlir::warpspec::getChipLimits(StringRef chip) {
  using ::megamoe::config::Chip;
  // Any sm_90 / sm_100 variant has the limits of its family (the kernels
  // themselves need the "a" features: wgmma, setmaxnreg).
  if (chip.starts_with("sm_90"))
    return ::megamoe::config::chipLimits(Chip::SM90a);
  if (chip.starts_with("sm_100"))
    return ::megamoe::config::chipLimits(Chip::SM100a);
  return std::nullopt;
}

int64_t mlir::warpspec::getSmemLimit(StringRef chip) {
  std::optional<::megamoe::config::ChipLimits> limits = getChipLimits(chip);
  return limits ? limits->smemPerBlock : 0;
}
