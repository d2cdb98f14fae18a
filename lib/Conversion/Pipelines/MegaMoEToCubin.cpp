//===- MegaMoEToCubin.cpp - the warpspec -> cubin pipeline ----------------===//
#include "megamoe/Conversion/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
struct ToCubinOptions : public PassPipelineOptions<ToCubinOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target chip (sm_90a, sm_100a)"),
                           llvm::cl::init("sm_90a")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root (default $CUDA_HOME, /usr/local/cuda)"),
      llvm::cl::init("")};
  Option<std::string> ptxasOptions{*this, "ptxas-options",
                                   llvm::cl::desc("Extra ptxas options"),
                                   llvm::cl::init("")};
  Option<std::string> emitDir{
      *this, "emit-dir",
      llvm::cl::desc("Write cubin, PTX, manifest and header here"),
      llvm::cl::init("")};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("LLVM opt level"),
                            llvm::cl::init(3)};
};

void buildToCubin(OpPassManager &pm, const ToCubinOptions &options) {
  mlir::megamoe::MegaMoEAttachTargetOptions targetOptions;
  targetOptions.chip = options.chip;
  targetOptions.optLevel = options.optLevel;
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(mlir::megamoe::createMegaMoEAttachTarget(targetOptions));
  // SMEM offsets are planned by the warpspec dialect's own pass; it is looked
  // up by name so that this library does not depend on the dialect's
  // transforms.
  if (const PassInfo *plan = PassInfo::lookup("warpspec-plan-smem"))
    (void)plan->addToPipeline(gpuPm, "", [](const Twine &msg) {
      llvm::errs() << msg << "\n";
      return failure();
    });
  gpuPm.addPass(mlir::megamoe::createConvertWarpSpecToNVVM());
  gpuPm.addPass(createSCFToControlFlowPass());
  gpuPm.addPass(mlir::megamoe::createMegaMoEConvertToLLVM());
  gpuPm.addPass(createConvertNVVMToLLVMPass());
  gpuPm.addPass(createReconcileUnrealizedCastsPass());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  pm.addPass(mlir::megamoe::createMegaMoECollectManifest());
  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = "isa";
  binaryOptions.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binaryOptions));
  mlir::megamoe::MegaMoEAssemblePTXOptions ptxasOptions;
  ptxasOptions.toolkit = options.toolkit;
  ptxasOptions.ptxasOptions = options.ptxasOptions;
  pm.addPass(mlir::megamoe::createMegaMoEAssemblePTX(ptxasOptions));
  if (!options.emitDir.empty()) {
    mlir::megamoe::MegaMoEEmitKernelsOptions emitOptions;
    emitOptions.outputDir = options.emitDir;
    pm.addPass(mlir::megamoe::createMegaMoEEmitKernels(emitOptions));
  }
}
} // namespace

void mlir::megamoe::registerMegaMoEToCubinPipeline() {
  PassPipelineRegistration<ToCubinOptions>(
      "megamoe-to-cubin",
      "warpspec kernels in gpu.modules -> gpu.binary with a cubin (ptxas -v "
      "resources in the megamoe.manifests attribute); with emit-dir, also "
      "writes <name>.cubin/.ptx/.json/.h",
      buildToCubin);
}
