//===- warpspec-opt.cpp - the warpspec layer's optimizer driver -----------===//
//
// Parses, transforms and prints warpspec-level IR with only the warpspec
// dialect and upstream dialects registered: a megamoe op that leaked into
// this layer is a parse error here, not something a later pass tolerates.
//
//===----------------------------------------------------------------------===//
#include "megamoe/InitWarpSpec.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  megamoe::registerWarpSpecLayerPasses();
  mlir::DialectRegistry registry;
  megamoe::registerWarpSpecLayerDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "warpspec optimizer driver (no megamoe dialect)\n",
      registry));
}
