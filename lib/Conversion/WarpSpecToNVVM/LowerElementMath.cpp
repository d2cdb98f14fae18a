//===- LowerElementMath.cpp - approx, cvt.e4m3x2 -> NVVM ------------------===//
//
// The element ops are one instruction each: the NVVM intrinsic that names
// it, so the PTX is the instruction the op specifies.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

struct ApproxLowering : OpConversionPattern<ApproxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ApproxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    StringRef intrinsic = op.getKind() == ApproxKind::ex2
                              ? "llvm.nvvm.ex2.approx.ftz.f32"
                              : "llvm.nvvm.rcp.approx.ftz.f";
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, rewriter.getF32Type(), rewriter.getStringAttr(intrinsic),
        ValueRange{adaptor.getX()});
    return success();
  }
};

struct CvtE4M3x2Lowering : OpConversionPattern<CvtE4M3x2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CvtE4M3x2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // cvt.rn.satfinite.e4m3x2.f32 puts its first operand in the high byte.
    rewriter.replaceOpWithNewOp<NVVM::ConvertF32x2ToF8x2Op>(
        op, rewriter.getI16Type(), adaptor.getHi(), adaptor.getLo(),
        NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
        /*relu=*/false, rewriter.getType<Float8E4M3FNType>());
    return success();
  }
};

} // namespace

void warpspec::populateWarpSpecElementMathPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ApproxLowering, CvtE4M3x2Lowering>(converter,
                                                  patterns.getContext());
}
