//===- LowerProfile.cpp - the phase profile's clock, SM and sequences -----===//
//
// timestamp -> %globaltimer (ns, one clock for the whole GPU: the stamps of
// every SM and kernel compare), sm_id -> %smid, sequence.next -> an i32
// count per (key, role) in an entry-block alloca, as the pipelines keep
// their iteration counters (LowerPipelines.cpp): SROA makes it a register,
// so a profile record's slot costs no memory access.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

struct TimestampLowering : OpConversionPattern<TimestampOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TimestampOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::GlobalTimerOp>(op,
                                                     rewriter.getI64Type());
    return success();
  }
};

struct SmIdLowering : OpConversionPattern<SmIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SmIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::SmIdOp>(op, rewriter.getI32Type());
    return success();
  }
};

struct SequenceNextLowering : OpConversionPattern<SequenceNextOp> {
  SequenceNextLowering(const TypeConverter &tc, MLIRContext *ctx,
                       SequenceCounters &counters)
      : OpConversionPattern(tc, ctx), counters(counters) {}

  LogicalResult
  matchAndRewrite(SequenceNextOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *owner = op->getParentOfType<RoleOp>();
    auto kernel = op->getParentOfType<KernelOp>();
    if (!owner)
      owner = kernel;
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value &slot = counters.counters[{op.getKey().str(), owner}];
    if (!slot) {
      // Created once per (key, owner) at the top of the kernel, as 0.
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&kernel.getBody().front());
      Value one = LLVM::ConstantOp::create(rewriter, loc, i32,
                                           rewriter.getI32IntegerAttr(1));
      slot = LLVM::AllocaOp::create(
          rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
          i32, one, /*alignment=*/4);
      LLVM::StoreOp::create(rewriter, loc, i32Const(rewriter, loc, 0), slot);
    }
    Value n = LLVM::LoadOp::create(rewriter, loc, i32, slot);
    Value next = LLVM::AddOp::create(rewriter, loc, n,
                                     i32Const(rewriter, loc, 1));
    LLVM::StoreOp::create(rewriter, loc, next, slot);
    rewriter.replaceOp(op, n);
    return success();
  }

  SequenceCounters &counters;
};

} // namespace

void warpspec::populateWarpSpecProfilePatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               SequenceCounters &counters) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<TimestampLowering, SmIdLowering>(converter, ctx);
  patterns.add<SequenceNextLowering>(converter, ctx, counters);
}
