//===- InitAll.cpp - register everything megamoe-opt understands ----------===//
#include "megamoe/InitAll.h"

#include "megamoe/Conversion/Passes.h"
#include "megamoe/Dialect/MegaMoE/IR/MegaMoE.h"
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h"
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"
#include "megamoe/Dialect/WarpSpec/Transforms/Passes.h"
#include "megamoe/Kernels/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

void megamoe::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  registry
      .insert<mlir::warpspec::WarpSpecDialect, mlir::megamoe::MegaMoEDialect>();
  // Needed to serialize a gpu.module with #nvvm.target to PTX / cubin.
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void megamoe::registerAllPasses() {
  // Upstream passes: the project's pipelines are built from them
  // (canonicalize, cse, convert-nvvm-to-llvm, gpu-module-to-binary, ...).
  mlir::registerAllPasses();
  mlir::megamoe::registerMegaMoEPasses();
  mlir::megamoe::registerMegaMoEConversionPasses();
  mlir::megamoe::registerMegaMoEToCubinPipeline();
  mlir::warpspec::registerWarpSpecPasses();
  mlir::megamoe::registerMegaMoEKernelsPasses();
}
