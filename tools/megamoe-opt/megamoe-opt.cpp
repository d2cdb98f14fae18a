//===- megamoe-opt.cpp - the megamoe optimizer driver ---------------------===//
//
// An mlir-opt-style driver: parses a module, runs passes or pipelines, prints
// the result. Every stage of the compiler can be inspected with it.
//
//===----------------------------------------------------------------------===//
#include "megamoe/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

/// True when the command line builds the layer from options
/// (--megamoe-layer=...) and names no input file: the driver then starts
/// from an empty module instead of waiting on standard input.
static bool layerFromOptionsOnly(int argc, char **argv,
                                 llvm::StringRef inputFilename) {
  bool layerPass = false, explicitStdin = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    layerPass |= arg.starts_with("-") && arg.contains("megamoe-layer");
    explicitStdin |= arg == "-";
  }
  return layerPass && inputFilename == "-" && !explicitStdin;
}

int main(int argc, char **argv) {
  megamoe::registerAllPasses();
  mlir::DialectRegistry registry;
  megamoe::registerAllDialects(registry);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "megamoe optimizer driver\n", registry);
  if (!layerFromOptionsOnly(argc, argv, inputFilename))
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  std::unique_ptr<llvm::MemoryBuffer> empty =
      llvm::MemoryBuffer::getMemBuffer("", "<megamoe-layer options>");
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(empty), registry,
                            mlir::MlirOptMainConfig::createFromCLOptions())))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
