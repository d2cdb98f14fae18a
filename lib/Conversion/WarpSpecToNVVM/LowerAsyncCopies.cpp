//===- LowerAsyncCopies.cpp - TMA, bulk copies, proxy fence ---------------===//
//
// TMA and bulk copies are issued by lane 0 of each executing warp. Loads
// land in shared::cta (isCTAOnly, PTX 8.6) and complete_tx on full[stage].
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

/// full[stage] of the pipeline operand of a copy.
template <typename CopyOp>
Value fullBarrier(OpBuilder &b, Location loc, CopyOp op, Value pipeline,
                  Value stage) {
  return mbarrierAddress(b, loc, pipeline,
                         op.getPipeline().getType().getStages(),
                         /*isEmpty=*/false, stage);
}

struct TmaLoadLowering : OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getMulticast())
      return lowerMulticast(op, adaptor, rewriter);
    Value dst = slotAddress(rewriter, loc, op.getBuffer().getType(),
                            adaptor.getBuffer(), adaptor.getStage(),
                            op.getSlotOffset().value_or(0));
    Value mbar = fullBarrier(rewriter, loc, op, adaptor.getPipeline(),
                             adaptor.getStage());
    buildIf(rewriter, loc, isLaneZero(rewriter, loc),
            [&](OpBuilder &b, Location l) {
              NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                  b, l, dst, adaptor.getDesc(), adaptor.getCoords(), mbar,
                  ValueRange{}, Value(), Value(), NVVM::TMALoadMode::TILE,
                  /*isCTAOnly=*/true, NVVM::CTAGroupKindAttr(), Value());
            });
    rewriter.eraseOp(op);
    return success();
  }

  /// `multicast C`: CTA rank r loads box r of the C stacked along the
  /// outermost dimension into the same place of every CTA's slot
  /// (`.multicast::cluster` with ctaMask 2^C - 1, the destination and the
  /// barrier at the same CTA-relative offsets in each CTA).
  LogicalResult lowerMulticast(TmaLoadOp op, OpAdaptor adaptor,
                               ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    unsigned ctas = *op.getMulticast();
    TmaDescType desc = op.getDesc().getType();
    Value rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
    Value byteOffset = arith::AddIOp::create(
        rewriter, loc, i32Const(rewriter, loc, op.getSlotOffset().value_or(0)),
        arith::MulIOp::create(rewriter, loc, rank,
                              i32Const(rewriter, loc, desc.getBoxBytes())));
    Value slot = slotAddress(rewriter, loc, op.getBuffer().getType(),
                             adaptor.getBuffer(), adaptor.getStage());
    Value dst = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext(), 7),
        smemOffset(rewriter, loc, slot, byteOffset));
    // coords are innermost first; the box shape is outermost first.
    SmallVector<Value> coords(adaptor.getCoords());
    coords.back() = arith::AddIOp::create(
        rewriter, loc, coords.back(),
        arith::MulIOp::create(rewriter, loc, rank,
                              i32Const(rewriter, loc, desc.getBox().front())));
    Value mbar = fullBarrier(rewriter, loc, op, adaptor.getPipeline(),
                             adaptor.getStage());
    Value mask = LLVM::ConstantOp::create(
        rewriter, loc, rewriter.getI16Type(),
        rewriter.getI16IntegerAttr((1 << ctas) - 1));
    buildIf(rewriter, loc, isLaneZero(rewriter, loc),
            [&](OpBuilder &b, Location l) {
              NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                  b, l, dst, adaptor.getDesc(), coords, mbar, ValueRange{},
                  mask, Value(), NVVM::TMALoadMode::TILE,
                  /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
            });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreLowering : OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitTmaStore(rewriter, op.getLoc(), adaptor.getDesc(), adaptor.getSource(),
                 adaptor.getCoords());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreWaitLowering : OpConversionPattern<TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    buildIf(rewriter, loc, isLaneZero(rewriter, loc),
            [&](OpBuilder &b, Location l) {
              NVVM::CpAsyncBulkWaitGroupOp::create(
                  b, l, op.getPending(),
                  op.getRead() ? b.getUnitAttr() : UnitAttr());
            });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaPrefetchLowering : OpConversionPattern<TmaPrefetchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaPrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    buildIf(rewriter, loc, isLaneZero(rewriter, loc),
            [&](OpBuilder &b, Location l) {
              NVVM::PrefetchOp::create(b, l, NVVM::PrefetchCacheLevelAttr(),
                                       NVVM::CacheEvictionPriorityAttr(),
                                       adaptor.getDesc(), Value(),
                                       /*tensormap=*/true);
            });
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkCopyLowering : OpConversionPattern<BulkCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BulkCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dst = slotAddress(rewriter, loc, op.getBuffer().getType(),
                            adaptor.getBuffer(), adaptor.getStage(),
                            op.getSlotOffset().value_or(0));
    // The 1-D form only exists with a shared::cluster destination.
    Value dst7 = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext(), 7),
        dst);
    Value mbar = fullBarrier(rewriter, loc, op, adaptor.getPipeline(),
                             adaptor.getStage());
    buildIf(rewriter, loc, isLaneZero(rewriter, loc),
            [&](OpBuilder &b, Location l) {
              NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
                  b, l, dst7, adaptor.getSource(), mbar, adaptor.getBytes(),
                  Value(), Value());
            });
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkStoreLowering : OpConversionPattern<BulkStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BulkStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    buildIf(rewriter, loc, isLaneZero(rewriter, loc),
            [&](OpBuilder &b, Location l) {
              NVVM::CpAsyncBulkSharedCTAToGlobalOp::create(
                  b, l, adaptor.getDest(), adaptor.getSource(),
                  adaptor.getBytes(), Value(), Value());
              NVVM::CpAsyncBulkCommitGroupOp::create(b, l);
            });
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceAsyncSharedLowering : OpConversionPattern<FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    return success();
  }
};

struct FenceAsyncGlobalLowering : OpConversionPattern<FenceAsyncGlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncGlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_global, NVVM::SharedSpaceAttr());
    return success();
  }
};

} // namespace

void warpspec::populateWarpSpecAsyncCopyPatterns(const TypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  patterns.add<TmaLoadLowering, TmaStoreLowering, TmaStoreWaitLowering,
               TmaPrefetchLowering, BulkCopyLowering, BulkStoreLowering,
               FenceAsyncSharedLowering,
               FenceAsyncGlobalLowering>(
      converter, patterns.getContext());
}
