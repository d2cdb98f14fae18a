//===- ConvertToLLVM.cpp - finish a kernel body's lowering to LLVM --------===//
//
// Upstream convert-cf-to-llvm / convert-func-to-llvm are anchored on
// builtin.module and cannot run nested in a gpu.module; this pass gathers the
// pattern sets a lowered warpspec kernel still needs. Two conversions:
//  1. gpu ops (thread/block/grid ids, lane id, shuffles, barrier, uniform
//     subgroup reductions: redux.sync) with upstream's GPU->NVVM patterns,
//     and math.exp with libdevice's __nv_expf (the exp the numerics contract
//     names); every other op is left alone, so that math.absf does not also
//     become a libdevice call;
//  2. arith, cf, index, math, ub and vector to LLVM.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOECONVERTTOLLVM
#include "megamoe/Conversion/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;

namespace {
struct ConvertToLLVMPass
    : mlir::megamoe::impl::MegaMoEConvertToLLVMBase<ConvertToLLVMPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(ctx, options);
    {
      RewritePatternSet patterns(ctx);
      populateGpuToNVVMConversionPatterns(converter, patterns);
      populateGpuSubgroupReduceOpLoweringPattern(converter, patterns);
      populateLibDeviceConversionPatterns(converter, patterns);
      ConversionTarget target(*ctx);
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      target.addIllegalDialect<gpu::GPUDialect>();
      target.addLegalOp<gpu::GPUModuleOp>();
      target.addIllegalOp<math::ExpOp>();
      if (failed(applyPartialConversion(getOperation(), target,
                                        std::move(patterns))))
        return signalPassFailure();
    }
    RewritePatternSet patterns(ctx);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addLegalOp<gpu::GPUModuleOp>();
    target.addIllegalDialect<arith::ArithDialect, cf::ControlFlowDialect,
                             index::IndexDialect, math::MathDialect,
                             ub::UBDialect, vector::VectorDialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
