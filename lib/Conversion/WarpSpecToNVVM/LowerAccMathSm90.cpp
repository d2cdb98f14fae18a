//===- LowerAccMathSm90.cpp - epilogue math on wgmma accumulators ---------===//
//
// The accumulator ops of WarpSpecAccOps.td on the SM90 register fragment
// (LowerMmaSm90.cpp has its layout): thread t of the warpgroup holds element
// i = 4j + q at row r0 + 8 (q >= 2), column 8j + 2 (lane % 4) + (q & 1),
// r0 = 16 (t / 32) + lane / 4. So
//   - a per-row value is two f32 per thread (rows r0 and r0 + 8), the same
//     in the four lanes of a quad (lane / 4 equal);
//   - element-wise maps are per-element code, no data movement;
//   - a deinterleave by a multiple of 8 columns only renumbers elements
//     (whole 8-column groups move);
//   - a row reduction is per-thread, then two butterfly shuffles inside the
//     quad (xor 1, xor 2).
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

Value extract(OpBuilder &b, Location loc, Value s, int64_t i) {
  return LLVM::ExtractValueOp::create(b, loc, s, i);
}

/// A fragment of `structTy` whose element i is element source(i) of `acc`
/// (a register renumbering: the accumulator ops that move no data).
Value gatherElements(OpBuilder &b, Location loc, Type structTy, Value acc,
                     int64_t elements,
                     llvm::function_ref<int64_t(int64_t)> source) {
  Value result = LLVM::UndefOp::create(b, loc, structTy);
  for (int64_t i = 0; i < elements; ++i)
    result = LLVM::InsertValueOp::create(b, loc, result,
                                         extract(b, loc, acc, source(i)), i);
  return result;
}

/// The row half (0: row r0, 1: row r0 + 8) of fragment element i.
int64_t rowHalf(int64_t i) { return (i % 4) >= 2; }

/// Evaluates the single-block `body` on `args` at the rewriter's insertion
/// point (the cloned ops are legalized by the conversion like any new op)
/// and returns the yielded value.
Value inlineBody(ConversionPatternRewriter &rewriter, Region &body,
                 ValueRange args) {
  Block &block = body.front();
  IRMapping map;
  map.map(block.getArguments(), args);
  for (Operation &op : block.without_terminator())
    rewriter.clone(op, map);
  auto yield = cast<AccYieldOp>(block.getTerminator());
  return map.lookupOrDefault(yield.getValue());
}

/// The struct of `count` values, value i being `body` inlined on
/// `argsOf(i)`: the lowering of both element-wise maps.
Value mapElements(ConversionPatternRewriter &rewriter, Location loc,
                  Type structTy, int64_t count, Region &body,
                  function_ref<SmallVector<Value>(int64_t)> argsOf) {
  Value result = LLVM::UndefOp::create(rewriter, loc, structTy);
  for (int64_t i = 0; i < count; ++i)
    result = LLVM::InsertValueOp::create(
        rewriter, loc, result, inlineBody(rewriter, body, argsOf(i)), i);
  return result;
}

struct AccMapLowering : OpConversionPattern<AccMapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The per-row operands, once per row half.
    SmallVector<Value> rows[2];
    for (Value r : adaptor.getRows())
      for (int h = 0; h < 2; ++h)
        rows[h].push_back(extract(rewriter, loc, r, h));
    rewriter.replaceOp(
        op, mapElements(
                rewriter, loc,
                getTypeConverter()->convertType(op.getResult().getType()),
                op.getResult().getType().getN() / 2, op.getBody(),
                [&](int64_t i) {
                  SmallVector<Value> args;
                  for (Value acc : adaptor.getAccs())
                    args.push_back(extract(rewriter, loc, acc, i));
                  llvm::append_range(args, rows[rowHalf(i)]);
                  return args;
                }));
    return success();
  }
};

struct AccRowsMapLowering : OpConversionPattern<AccRowsMapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccRowsMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOp(
        op, mapElements(
                rewriter, loc,
                getTypeConverter()->convertType(op.getResult().getType()), 2,
                op.getBody(), [&](int64_t h) {
                  SmallVector<Value> args;
                  for (Value r : adaptor.getRows())
                    args.push_back(extract(rewriter, loc, r, h));
                  return args;
                }));
    return success();
  }
};

struct AccDeinterleaveLowering : OpConversionPattern<AccDeinterleaveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccDeinterleaveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structTy = getTypeConverter()->convertType(op.getFirst().getType());
    int64_t groups = op.getFirst().getType().getN() / 8;
    int64_t perKind = op.getPeriod() / 8; // 8-column groups per run
    SmallVector<Value, 2> results;
    for (int64_t kind = 0; kind < 2; ++kind)
      results.push_back(gatherElements(
          rewriter, loc, structTy, adaptor.getAcc(), 4 * groups,
          [&](int64_t i) {
            // Output group g is input group 2 perKind (g / perKind) + g %
            // perKind, plus perKind for the second kind.
            int64_t g = i / 4;
            int64_t in =
                2 * perKind * (g / perKind) + g % perKind + kind * perKind;
            return 4 * in + i % 4;
          }));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Element i of a thread's fragment lies in 8-column group i / 4: a slice
/// of columns [offset, offset + n) is elements [offset / 2, (offset + n) /
/// 2), renumbered from 0.
struct AccSliceLowering : OpConversionPattern<AccSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structTy = getTypeConverter()->convertType(op.getResult().getType());
    int64_t first = op.getOffset() / 2;
    rewriter.replaceOp(
        op, gatherElements(rewriter, loc, structTy, adaptor.getAcc(),
                           op.getResult().getType().getN() / 2,
                           [&](int64_t i) { return first + i; }));
    return success();
  }
};

struct AccRowReduceLowering : OpConversionPattern<AccRowReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccRowReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool abs = op.getKind() == AccReduceKind::absmax;
    int64_t elements =
        cast<AccType>(op.getAccs().front().getType()).getN() / 2;
    Type f32 = rewriter.getF32Type();
    // absmax starts from +0 so that a row of NaNs gives 0, as a scalar
    // `m = 0; m = fmaxf(m, fabsf(x))` loop does; max starts from the first
    // element.
    Value partial[2];
    for (int h = 0; h < 2; ++h)
      partial[h] = abs ? Value(LLVM::ConstantOp::create(
                             rewriter, loc, f32, rewriter.getF32FloatAttr(0)))
                       : Value();
    for (Value acc : adaptor.getAccs())
      for (int64_t i = 0; i < elements; ++i) {
        Value x = extract(rewriter, loc, acc, i);
        if (abs)
          x = LLVM::FAbsOp::create(rewriter, loc, x);
        Value &p = partial[rowHalf(i)];
        p = p ? Value(LLVM::MaxNumOp::create(rewriter, loc, p, x)) : x;
      }
    Type structTy = getTypeConverter()->convertType(op.getResult().getType());
    Value result = LLVM::UndefOp::create(rewriter, loc, structTy);
    Value all = i32Const(rewriter, loc, -1);
    Value clamp = i32Const(rewriter, loc, 0x1f);
    for (int h = 0; h < 2; ++h) {
      Value m = partial[h];
      // The quad's four lanes hold the row's columns 2 (lane % 4) + {0, 1}.
      for (int64_t offset : {1, 2}) {
        Value other = NVVM::ShflOp::create(
            rewriter, loc, f32, all, m, i32Const(rewriter, loc, offset), clamp,
            NVVM::ShflKind::bfly, UnitAttr());
        m = LLVM::MaxNumOp::create(rewriter, loc, m, other);
      }
      result = LLVM::InsertValueOp::create(rewriter, loc, result, m, h);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct AccAnyLowering : OpConversionPattern<AccAnyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccAnyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t elements =
        cast<AccType>(op.getAccs().front().getType()).getN() / 2;
    Value zero = LLVM::ConstantOp::create(rewriter, loc, rewriter.getF32Type(),
                                          rewriter.getF32FloatAttr(0));
    // The thread's elements (une: NaN counts as set), then the warp's vote.
    Value any;
    for (Value acc : adaptor.getAccs())
      for (int64_t i = 0; i < elements; ++i) {
        Value set = LLVM::FCmpOp::create(rewriter, loc, LLVM::FCmpPredicate::une,
                                         extract(rewriter, loc, acc, i), zero);
        any = any ? Value(LLVM::OrOp::create(rewriter, loc, any, set)) : set;
      }
    rewriter.replaceOpWithNewOp<NVVM::VoteSyncOp>(
        op, rewriter.getI1Type(), i32Const(rewriter, loc, -1), any,
        NVVM::VoteSyncKind::any);
    return success();
  }
};

/// After the lane-divergent store of a per-row value (one lane of each quad):
/// __syncwarp, so that the warp is converged again at whatever follows, in
/// particular an aligned barrier (bar.sync requires a converged warp) right
/// after an acc_rows.store_shared.
void reconverge(OpBuilder &b, Location loc) {
  NVVM::SyncWarpOp::create(b, loc, i32Const(b, loc, -1));
}

/// Row r0 + 8 h of the thread's fragment (i32), r0 = 16 (t / 32) + lane / 4.
Value fragmentRow(OpBuilder &b, Location loc, int h) {
  Value t = threadInWarpgroup(b, loc);
  Value lane = arith::RemUIOp::create(b, loc, t, i32Const(b, loc, 32));
  Value row = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, t, i32Const(b, loc, 32)),
          i32Const(b, loc, 16)),
      arith::DivUIOp::create(b, loc, lane, i32Const(b, loc, 4)));
  return h ? arith::AddIOp::create(b, loc, row, i32Const(b, loc, 8)) : row;
}

/// The global address of row r0 + 8 h of the thread's fragment.
Value rowAddress(OpBuilder &b, Location loc, Value base, int h) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getF32Type(), base,
                             ValueRange{fragmentRow(b, loc, h)});
}

struct AccRowsLoadLowering : OpConversionPattern<AccRowsLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccRowsLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structTy = getTypeConverter()->convertType(op.getResult().getType());
    Value result = LLVM::UndefOp::create(rewriter, loc, structTy);
    for (int h = 0; h < 2; ++h) {
      Value v = LLVM::LoadOp::create(
          rewriter, loc, rewriter.getF32Type(),
          rowAddress(rewriter, loc, adaptor.getPtr(), h), 4);
      result = LLVM::InsertValueOp::create(rewriter, loc, result, v, h);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Lane 4k of each quad stores the quad's two rows (row half h of `rows` to
/// `address(h)`), then the warp reconverges.
void storeRows(OpBuilder &b, Location loc, Value rows,
               function_ref<Value(OpBuilder &, Location, int)> address) {
  Value lane = NVVM::LaneIdOp::create(b, loc, b.getI32Type());
  Value first = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 3)),
      i32Const(b, loc, 0));
  buildIf(b, loc, first, [&](OpBuilder &ib, Location l) {
    for (int h = 0; h < 2; ++h)
      LLVM::StoreOp::create(ib, l, extract(ib, l, rows, h), address(ib, l, h),
                            4);
  });
  reconverge(b, loc);
}

struct AccRowsStoreLowering : OpConversionPattern<AccRowsStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccRowsStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value base = adaptor.getPtr();
    storeRows(rewriter, op.getLoc(), adaptor.getRows(),
              [&](OpBuilder &b, Location l, int h) {
                return rowAddress(b, l, base, h);
              });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Row r0 + 8 h of the thread in slot `stage` of a per-row SMEM buffer.
Value sharedRowAddress(OpBuilder &b, Location loc, SmemType type, Value buf,
                       Value stage, int h) {
  return smemOffset(b, loc, slotAddress(b, loc, type, buf, stage),
                    arith::MulIOp::create(b, loc, fragmentRow(b, loc, h),
                                          i32Const(b, loc, 4)));
}

struct AccRowsStoreSharedLowering
    : OpConversionPattern<AccRowsStoreSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccRowsStoreSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmemType type = op.getBuffer().getType();
    Value buf = adaptor.getBuffer(), stage = adaptor.getStage();
    storeRows(rewriter, op.getLoc(), adaptor.getRows(),
              [&](OpBuilder &b, Location l, int h) {
                return sharedRowAddress(b, l, type, buf, stage, h);
              });
    rewriter.eraseOp(op);
    return success();
  }
};

struct AccRowsLoadSharedLowering : OpConversionPattern<AccRowsLoadSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccRowsLoadSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structTy = getTypeConverter()->convertType(op.getResult().getType());
    Value result = LLVM::UndefOp::create(rewriter, loc, structTy);
    for (int h = 0; h < 2; ++h) {
      Value v = LLVM::LoadOp::create(
          rewriter, loc, rewriter.getF32Type(),
          sharedRowAddress(rewriter, loc, op.getBuffer().getType(),
                           adaptor.getBuffer(), adaptor.getStage(), h),
          4);
      result = LLVM::InsertValueOp::create(rewriter, loc, result, v, h);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// acc.spill / acc.fill: vector j (elements 4j .. 4j + 3) of thread t of
/// the warpgroup (t = tid.x mod 128) lives at ptr + 16 (128 j + t) bytes, so
/// each warp moves 512 contiguous bytes per vector. The thread's base
/// (ptr + 16 t) is formed once; each vector is a constant offset from it
/// (an immediate of the st / ld), so no address register per vector.
Value fragmentBase(OpBuilder &b, Location loc, Value ptr,
                   Value thread = Value()) {
  if (!thread)
    thread = threadInWarpgroup(b, loc);
  Value floats = arith::MulIOp::create(b, loc, thread, i32Const(b, loc, 4));
  return LLVM::GEPOp::create(b, loc, ptr.getType(), b.getF32Type(), ptr,
                             ValueRange{floats});
}

Value fragmentVector(OpBuilder &b, Location loc, Value base, int64_t j) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getF32Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(4 * 128 * j)});
}

/// Whether the thread's first row r0 is below `rows` (i1): its fragment
/// holds rows r0 and r0 + 8, so a thread with r0 >= rows holds no row
/// below it.
Value holdsRowsBelow(OpBuilder &b, Location loc, Value rows) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                               fragmentRow(b, loc, 0), rows);
}

struct AccSpillLowering : OpConversionPattern<AccSpillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccSpillOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t elements = op.getAcc().getType().getN() / 2;
    auto vec = VectorType::get({4}, rewriter.getF32Type());
    Value acc = adaptor.getAcc();
    Value base = fragmentBase(rewriter, loc, adaptor.getPtr());
    auto storeAll = [&](OpBuilder &b, Location l) {
      for (int64_t j = 0; j < elements / 4; ++j) {
        Value v = LLVM::UndefOp::create(b, l, vec);
        for (int64_t q = 0; q < 4; ++q)
          v = LLVM::InsertElementOp::create(b, l, v, extract(b, l, acc, 4 * j + q),
                                            i32Const(b, l, q));
        LLVM::StoreOp::create(b, l, v, fragmentVector(b, l, base, j), 16);
      }
    };
    // With rows, a thread whose rows are all padding stores nothing (its
    // vectors hold rows r0 and r0 + 8, so one with r0 < rows may store a
    // padding row r0 + 8: inside the slot).
    Value rows = adaptor.getRows();
    if (rows)
      buildIf(rewriter, loc, holdsRowsBelow(rewriter, loc, rows), storeAll);
    else
      storeAll(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct AccFillLowering : OpConversionPattern<AccFillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccFillOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t elements = op.getResult().getType().getN() / 2;
    auto vec = VectorType::get({4}, rewriter.getF32Type());
    Type structTy = getTypeConverter()->convertType(op.getResult().getType());
    Value rows = adaptor.getRows();
    // With rows, a thread holding no row below it reads the vectors of
    // thread t mod 4 (row 0, always real) instead of its own: the same
    // lines as a real thread of the CTA, so no extra DRAM or L2 bytes, and
    // no branch (a branch's merge would hold the whole partial at once:
    // ptxas spilled ~1 KB in the BLOCK_N 256 GEMMs). Its elements, and a
    // real thread's row r0 + 8 ones where that row is padding, are zero.
    Value holds, secondReal, zero;
    Value thread = threadInWarpgroup(rewriter, loc);
    if (rows) {
      holds = holdsRowsBelow(rewriter, loc, rows);
      secondReal = holdsRowsBelow(
          rewriter, loc,
          arith::SubIOp::create(rewriter, loc, rows, i32Const(rewriter, loc, 8)));
      thread = arith::SelectOp::create(
          rewriter, loc, holds, thread,
          arith::RemUIOp::create(rewriter, loc, thread,
                                 i32Const(rewriter, loc, 4)));
      zero = LLVM::ConstantOp::create(rewriter, loc, rewriter.getF32Type(),
                                      rewriter.getF32FloatAttr(0.0f));
    }
    Value base = fragmentBase(rewriter, loc, adaptor.getPtr(), thread);
    Value result = LLVM::UndefOp::create(rewriter, loc, structTy);
    for (int64_t j = 0; j < elements / 4; ++j) {
      Value v = LLVM::LoadOp::create(rewriter, loc, vec,
                                     fragmentVector(rewriter, loc, base, j), 16);
      for (int64_t q = 0; q < 4; ++q) {
        Value e = LLVM::ExtractElementOp::create(rewriter, loc, v,
                                                 i32Const(rewriter, loc, q));
        if (rows)
          e = LLVM::SelectOp::create(rewriter, loc,
                                     rowHalf(4 * j + q) ? secondReal : holds, e,
                                     zero);
        result = LLVM::InsertValueOp::create(rewriter, loc, result, e, 4 * j + q);
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void warpspec::populateWarpSpecAccMathSm90Patterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AccMapLowering, AccRowsMapLowering, AccDeinterleaveLowering,
               AccSliceLowering, AccRowReduceLowering, AccAnyLowering, AccRowsLoadLowering, AccRowsStoreLowering,
               AccRowsStoreSharedLowering, AccRowsLoadSharedLowering,
               AccSpillLowering, AccFillLowering>(
      converter, patterns.getContext());
}
