//===- InitAll.cpp - register everything megamoe-opt understands ----------===//
#include "megamoe/InitAll.h"
#include "megamoe/InitWarpSpec.h"

#include "megamoe/Dialect/MegaMoE/IR/MegaMoE.h"
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h"
#include "megamoe/Kernels/Passes.h"
#include "mlir/IR/DialectRegistry.h"

void megamoe::registerAllDialects(mlir::DialectRegistry &registry) {
  registerWarpSpecLayerDialects(registry);
  registry.insert<mlir::megamoe::MegaMoEDialect>();
}

void megamoe::registerAllPasses() {
  registerWarpSpecLayerPasses();
  mlir::megamoe::registerMegaMoEPasses();
  mlir::megamoe::registerMegaMoEKernelsPasses();
}
