//===- megamoe-opt.cpp - the megamoe optimizer driver ---------------------===//
//
// An mlir-opt-style driver: parses a module, runs passes or pipelines, prints
// the result. Every stage of the compiler can be inspected with it.
//
//===----------------------------------------------------------------------===//
#include "megamoe/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  megamoe::registerAllPasses();
  mlir::DialectRegistry registry;
  megamoe::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "megamoe optimizer driver\n", registry));
}
