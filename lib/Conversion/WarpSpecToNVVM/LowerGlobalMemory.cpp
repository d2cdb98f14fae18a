//===- LowerGlobalMemory.cpp - typed global pointers -> LLVM --------------===//
//
// !warpspec.global<T> becomes !llvm.ptr<1> (opaque), so the element type
// lives on as the GEP / load / store / atomicrmw type and casts vanish.
// Atomics are relaxed (monotonic, no syncscope: what the kernels issued as
// llvm.atomicrmw before the typed pointers); fences are seq_cst.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

/// The type an element of `ptrType` is loaded / stored as: itself, or for a
/// type LLVM lacks (fp8 and vectors of it) the integer type of its width;
/// arith.bitcast converts between the two (a no-op once arith is LLVM, whose
/// type converter makes fp8 an i8).
Type llvmElementType(GlobalType ptrType) {
  Type t = ptrType.getElementType();
  if (LLVM::isCompatibleType(t))
    return t;
  Builder b(t.getContext());
  if (auto vector = dyn_cast<VectorType>(t))
    return VectorType::get(
        vector.getShape(),
        b.getIntegerType(vector.getElementType().getIntOrFloatBitWidth()));
  return b.getIntegerType(t.getIntOrFloatBitWidth());
}

struct GlobalOffsetLowering : OpConversionPattern<GlobalOffsetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalOffsetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // GEP steps by the element's size.
    Type step = llvmElementType(op.getBase().getType());
    Value index = adaptor.getIndex();
    if (index.getType().isInteger(32))
      index = arith::ExtUIOp::create(rewriter, op.getLoc(),
                                     rewriter.getI64Type(), index);
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(op, adaptor.getBase().getType(),
                                             step, adaptor.getBase(),
                                             ValueRange{index});
    return success();
  }
};

struct GlobalLoadLowering : OpConversionPattern<GlobalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = llvmElementType(op.getPtr().getType());
    Value loaded = LLVM::LoadOp::create(rewriter, op.getLoc(), type,
                                        adaptor.getPtr(),
                                        op.getAlignment().value_or(0));
    if (type != op.getType())
      loaded = arith::BitcastOp::create(rewriter, op.getLoc(), op.getType(),
                                        loaded);
    rewriter.replaceOp(op, loaded);
    return success();
  }
};

struct GlobalStoreLowering : OpConversionPattern<GlobalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = llvmElementType(op.getPtr().getType());
    Value value = adaptor.getValue();
    if (type != value.getType())
      value = arith::BitcastOp::create(rewriter, op.getLoc(), type, value);
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, value, adaptor.getPtr(),
                                               op.getAlignment().value_or(0));
    return success();
  }
};

struct GlobalPrefetchLowering : OpConversionPattern<GlobalPrefetchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalPrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkPrefetchOp>(
        op, adaptor.getPtr(), adaptor.getBytes(), /*l2CacheHint=*/Value());
    return success();
  }
};

struct GlobalCastLowering : OpConversionPattern<GlobalCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

LLVM::AtomicBinOp toLLVM(AtomicKind kind) {
  switch (kind) {
  case AtomicKind::add:
    return LLVM::AtomicBinOp::add;
  case AtomicKind::max:
    return LLVM::AtomicBinOp::max;
  case AtomicKind::min:
    return LLVM::AtomicBinOp::min;
  case AtomicKind::umax:
    return LLVM::AtomicBinOp::umax;
  case AtomicKind::umin:
    return LLVM::AtomicBinOp::umin;
  case AtomicKind::and_:
    return LLVM::AtomicBinOp::_and;
  case AtomicKind::or_:
    return LLVM::AtomicBinOp::_or;
  case AtomicKind::xor_:
    return LLVM::AtomicBinOp::_xor;
  case AtomicKind::exch:
    return LLVM::AtomicBinOp::xchg;
  case AtomicKind::fadd:
    return LLVM::AtomicBinOp::fadd;
  }
  llvm_unreachable("unknown atomic kind");
}

struct GlobalAtomicLowering : OpConversionPattern<GlobalAtomicOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GlobalAtomicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(
        op, toLLVM(op.getKind()), adaptor.getPtr(), adaptor.getValue(),
        LLVM::AtomicOrdering::monotonic);
    return success();
  }
};

struct FenceLowering : OpConversionPattern<FenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // No syncscope is the system scope on NVPTX (fence.sc.sys); "device" is
    // fence.sc.gpu.
    StringRef scope = op.getScope() == Scope::sys ? StringRef() : "device";
    rewriter.replaceOpWithNewOp<LLVM::FenceOp>(
        op, LLVM::AtomicOrdering::seq_cst, scope);
    return success();
  }
};

} // namespace

void warpspec::populateWarpSpecGlobalMemoryPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<GlobalOffsetLowering, GlobalLoadLowering, GlobalStoreLowering,
               GlobalPrefetchLowering,
               GlobalCastLowering, GlobalAtomicLowering, FenceLowering>(
      converter, patterns.getContext());
}
