//===- WarpSpecToNVVM.cpp - the convert-warpspec-to-nvvm pass -------------===//
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"
#include "Common.h"
#include "megamoe/Conversion/Passes.h"
#include "megamoe/Conversion/WarpSpecToNVVM/TimeoutRecord.h"

#include "mlir/Dialect/SCF/Transforms/Patterns.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_CONVERTWARPSPECTONVVM
#include "megamoe/Conversion/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;
using namespace mlir::warpspec;

void warpspec::populateWarpSpecTypeConversions(TypeConverter &converter) {
  converter.addConversion([](Type t) { return t; });
  converter.addConversion([](TmaDescType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext());
  });
  converter.addConversion([](SmemType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext(), 3);
  });
  converter.addConversion([](PipelineType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext(), 3);
  });
  converter.addConversion([](BarrierType t) -> Type {
    return IntegerType::get(t.getContext(), 32);
  });
  converter.addConversion([](AccType t) -> Type {
    SmallVector<Type> fields(t.getN() / 2, Float32Type::get(t.getContext()));
    return LLVM::LLVMStructType::getLiteral(t.getContext(), fields);
  });
  converter.addConversion([](AccRowsType t) -> Type {
    // SM90: the thread's two fragment rows (LowerAccMathSm90.cpp).
    Type f32 = Float32Type::get(t.getContext());
    return LLVM::LLVMStructType::getLiteral(t.getContext(), {f32, f32});
  });
  converter.addConversion([](GlobalType t) -> Type {
    return LLVM::LLVMPointerType::get(t.getContext(), 1);
  });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  converter.addSourceMaterialization(cast);
  converter.addTargetMaterialization(cast);
}

namespace {

/// The extern shared array every buffer and mbarrier is an offset into.
void declareDynamicSmem(gpu::GPUModuleOp module) {
  if (module.lookupSymbol(kDynamicSmemName))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
  // 1024-byte alignment: 128B-swizzle atoms (TMA, wgmma) start there.
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/false,
                         LLVM::Linkage::External, kDynamicSmemName, Attribute(),
                         /*alignment=*/1024, /*addrSpace=*/3);
}

/// The 8-byte global through which a timed wait finds the runtime's timeout
/// record (TimeoutRecord.h), in a module with any timed wait: visible (the
/// runtime sets it by name at module load), 0 until then.
void declareTimeoutRecord(gpu::GPUModuleOp module) {
  if (module.lookupSymbol(::megamoe::timeout::kRecordSymbol))
    return;
  bool timed = false;
  module.walk([&](Operation *op) {
    if (auto wait = dyn_cast<CounterWaitOp>(op))
      timed |= wait.getTimeoutCycles().has_value();
    else if (auto sync = dyn_cast<GridSyncOp>(op))
      timed |= sync.getTimeoutCycles().has_value();
    else if (auto barrier = dyn_cast<CrossRankBarrierOp>(op))
      timed |= barrier.getTimeoutCycles().has_value();
  });
  if (!timed)
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  LLVM::GlobalOp::create(b, module.getLoc(), b.getI64Type(),
                         /*isConstant=*/false, LLVM::Linkage::External,
                         ::megamoe::timeout::kRecordSymbol,
                         b.getI64IntegerAttr(0),
                         /*alignment=*/8, /*addrSpace=*/1);
}

/// Writes each producer.commit's derived transaction bytes into its
/// `tx_bytes` while the copies it derives them from are still in the IR
/// (the conversion below replaces them in an order it chooses).
void materializeCommitBytes(gpu::GPUModuleOp module) {
  module.walk([](ProducerCommitOp commit) {
    if (commit.getTxBytes())
      return;
    if (int64_t bytes = commit.getExpectedTxBytes())
      commit.setTxBytes(static_cast<uint32_t>(bytes));
  });
}

struct ConvertWarpSpecToNVVMPass
    : mlir::megamoe::impl::ConvertWarpSpecToNVVMBase<
          ConvertWarpSpecToNVVMPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (module.getOps<KernelOp>().empty())
      return;
    MLIRContext *ctx = &getContext();
    declareDynamicSmem(module);
    declareTimeoutRecord(module);
    materializeCommitBytes(module);
    // Phase 0: the tile loops and the chip's form of the block-scaled MMA.
    if (failed(expandTileLoops(module)) || failed(expandWaveLoops(module)) ||
        failed(expandBlockScaledMmaSm100(module)) ||
        failed(expandBlockScaledMmaSm90(module)))
      return signalPassFailure();
    TypeConverter converter;
    populateWarpSpecTypeConversions(converter);

    // Phase 1: every op but the kernel/role structure.
    {
      PipelineCounters counters;
      SequenceCounters sequences;
      RewritePatternSet patterns(ctx);
      populateWarpSpecStructureLeafPatterns(converter, patterns);
      populateWarpSpecSmemPatterns(converter, patterns);
      populateWarpSpecPipelinePatterns(converter, patterns, counters);
      populateWarpSpecAsyncCopyPatterns(converter, patterns);
      populateWarpSpecCounterPatterns(converter, patterns);
      populateWarpSpecMmaSm90Patterns(converter, patterns);
      populateWarpSpecAccMathSm90Patterns(converter, patterns);
      populateWarpSpecTilePatterns(converter, patterns);
      populateWarpSpecGlobalMemoryPatterns(converter, patterns);
      populateWarpSpecElementMathPatterns(converter, patterns);
      populateWarpSpecProfilePatterns(converter, patterns, sequences);
      ConversionTarget target(*ctx);
      target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect,
                             arith::ArithDialect>();
      target.addIllegalDialect<WarpSpecDialect>();
      target.addLegalOp<KernelOp, ReturnOp, RolesOp, RoleOp>();
      // Ops of other dialects stay for later passes, also where a pattern
      // creates them (the element math an acc.map body clones: math.exp).
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                           target);
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
    // Phase 2: roles -> dispatch, kernel -> llvm.func.
    {
      RewritePatternSet patterns(ctx);
      populateWarpSpecKernelPatterns(converter, patterns);
      ConversionTarget target(*ctx);
      target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect,
                             arith::ArithDialect, scf::SCFDialect>();
      target.addIllegalDialect<WarpSpecDialect>();
      target.addLegalOp<UnrealizedConversionCastOp>();
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
  }
};

} // namespace
