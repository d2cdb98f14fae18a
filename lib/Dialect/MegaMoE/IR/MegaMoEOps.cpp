//===- MegaMoEOps.cpp - megamoe.layer
//--------------------------------------===//
#include "megamoe/Dialect/MegaMoE/IR/MegaMoE.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::megamoe;

LogicalResult LayerOp::verify() {
  ::megamoe::config::LayerConfig config = getConfig().getLayerConfig();
  std::vector<std::string> errors =
      getPlan() ? ::megamoe::config::validatePlan(config, getPlan()->getPlan())
                : ::megamoe::config::validate(config);
  for (const std::string &e : errors)
    emitOpError() << e;
  return success(errors.empty());
}

#define GET_OP_CLASSES
#include "megamoe/Dialect/MegaMoE/IR/MegaMoEOps.cpp.inc"
