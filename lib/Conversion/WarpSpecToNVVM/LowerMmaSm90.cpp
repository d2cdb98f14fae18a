//===- LowerMmaSm90.cpp - warpgroup MMA, promotion, accumulator store -----===//
//
// SMEM matrix descriptor of wgmma (PTX ISA "matrix descriptor", CUTLASS
// GmmaDescriptor): bits [0,14) start address >> 4, [16,30) leading byte
// offset >> 4 (unused by swizzled K-major layouts, set to 1), [32,46) stride
// byte offset >> 4 (8 rows x swizzle bytes: the distance between 8-row core
// matrix groups), [49,52) base offset (0: tiles are atom-aligned), [62,64)
// layout (1 = 128B, 2 = 64B, 3 = 32B swizzle). Stepping K by one wgmma
// (32 bytes) inside the swizzle atom adds 32 >> 4 = 2 to the start address.
//
// D fragment of wgmma m64nNk*, thread t of the warpgroup (w = t / 32,
// l = t % 32): element i = 4j + q holds row 16w + l/4 + 8*(q >= 2), column
// 8j + 2*(l % 4) + (q & 1).
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <array>

using namespace mlir;
using namespace mlir::warpspec;

namespace {

int64_t elementBytes(Type t) { return (t.getIntOrFloatBitWidth() + 7) / 8; }

std::optional<NVVM::WGMMATypes> wgmmaType(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(t))
    return NVVM::WGMMATypes::e5m2;
  if (t.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (t.isF16())
    return NVVM::WGMMATypes::f16;
  return std::nullopt;
}

int64_t layoutBits(unsigned swizzle) {
  switch (swizzle) {
  case 128:
    return 1;
  case 64:
    return 2;
  case 32:
    return 3;
  default:
    return 0;
  }
}

/// The low word of the descriptor of a K-major swizzled tile starting at
/// `addr`: start address >> 4 and the leading byte offset, in 32 bits (a
/// shared-memory offset fits in 18), so that stepping K is one 32-bit add
/// and the high word stays a constant (as DeepGEMM's `desc.reg32_[0] =
/// base_lo + offset`). With 64-bit descriptor arithmetic the math warps spent
/// about 8 instructions per wgmma (64-bit shifts and adds, the constant high
/// word re-materialized and moved to uniform registers each time).
Value descriptorLow(OpBuilder &b, Location loc, Value addr) {
  Value a = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), addr);
  a = arith::AndIOp::create(b, loc, a, i32Const(b, loc, 0x3FFFF));
  a = arith::ShRUIOp::create(b, loc, a, i32Const(b, loc, 4));
  return arith::OrIOp::create(b, loc, a, i32Const(b, loc, 1 << 16));
}

/// The 64-bit descriptor from `low` (descriptorLow, plus any K step) and the
/// constant high word of the swizzle (stride byte offset, layout), joined by
/// `mov.b64 {lo, hi}`: as a zext + or, LLVM widens the low word's
/// arithmetic back to 64 bits.
Value buildDescriptor(OpBuilder &b, Location loc, Value low,
                      unsigned swizzle) {
  uint32_t high = uint32_t(8 * swizzle / 16) |
                  (uint32_t(layoutBits(swizzle)) << 30);
  return inlinePtx(b, loc, b.getI64Type(),
                   ValueRange{low, i32Const(b, loc, high)},
                   "mov.b64 $0, {$1, $2};", "=l,r,n", /*sideEffects=*/false);
}

/// Checks that a tile can be described as K-major with one swizzle atom
/// along K (K bytes == swizzle bytes): the only form lowered so far.
LogicalResult checkOperand(Operation *op, StringRef which, SmemType t) {
  if (t.getShape().size() != 2)
    return op->emitError() << which << " tile must be 2-D [rows, K]";
  unsigned sw = t.getSwizzle();
  int64_t kBytes = t.getShape()[1] * elementBytes(t.getElementType());
  if (layoutBits(sw) == 0 || kBytes != sw)
    return op->emitError()
           << which << " tile: only K-major tiles whose K extent is one "
           << "swizzle atom (K bytes == swizzle of 32/64/128) are lowered; got "
           << kBytes << " K bytes with swizzle " << sw;
  return success();
}

struct AccZeroLowering : OpConversionPattern<AccZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccZeroOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type t = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<LLVM::ZeroOp>(op, t);
    return success();
  }
};

struct MmaSm90Lowering : OpConversionPattern<MmaSm90Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MmaSm90Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmemType aType = op.getA().getType(), bType = op.getB().getType();
    AccType accType = op.getAcc().getType();
    if (op.getAMajor() != Major::k || op.getBMajor() != Major::k)
      return op.emitError("only K-major operands are lowered");
    if (failed(checkOperand(op, "A", aType)) ||
        failed(checkOperand(op, "B", bType)))
      return failure();
    std::optional<NVVM::WGMMATypes> ab = wgmmaType(aType.getElementType());
    if (!ab || wgmmaType(bType.getElementType()) != ab)
      return op.emitError("A and B must both be e4m3, e5m2, bf16 or f16");
    Location loc = op.getLoc();
    int64_t eb = elementBytes(aType.getElementType());
    int64_t k = 32 / eb; // one wgmma consumes 32 bytes of K
    // The K steps [first, last) of the tiles: all, or the k_range.
    int64_t first = 0, last = aType.getShape()[1] / k;
    if (std::optional<ArrayRef<int64_t>> range = op.getKRange()) {
      first = (*range)[0] / k;
      last = first + (*range)[1] / k;
    }
    unsigned aSw = aType.getSwizzle(), bSw = bType.getSwizzle();

    Value aRowBytes = arith::MulIOp::create(
        rewriter, loc, toI32(rewriter, loc, adaptor.getARow()),
        i32Const(rewriter, loc, aSw));
    Value aAddr = smemOffset(
        rewriter, loc,
        slotAddress(rewriter, loc, aType, adaptor.getA(), adaptor.getAStage()),
        aRowBytes);
    Value bAddr =
        slotAddress(rewriter, loc, bType, adaptor.getB(), adaptor.getBStage());
    Value lowA = descriptorLow(rewriter, loc, aAddr);
    Value lowB = descriptorLow(rewriter, loc, bAddr);
    bool zeroInit = op.getDiscardAcc() ||
                    op.getAcc().getDefiningOp<AccZeroOp>() != nullptr;

    Type structTy = getTypeConverter()->convertType(accType);
    auto shape =
        NVVM::MMAShapeAttr::get(rewriter.getContext(), 64, accType.getN(), k);
    Value acc = adaptor.getAcc();
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t j = first; j < last; ++j) {
      Value step = i32Const(rewriter, loc, 2 * j);
      // rematerialize_k_steps: the offset goes through an opaque zero (a
      // volatile asm, one per K step), so the step's descriptor is computed
      // here rather than hoisted with the others.
      if (j && op.getRematerializeKSteps()) {
        Value zero = inlinePtx(rewriter, loc, rewriter.getI32Type(), {},
                               "mov.u32 $0, 0;", "=r", /*sideEffects=*/true);
        step = arith::AddIOp::create(rewriter, loc, step, zero);
      }
      Value da = buildDescriptor(
          rewriter, loc,
          j ? arith::AddIOp::create(rewriter, loc, lowA, step) : lowA, aSw);
      Value db = buildDescriptor(
          rewriter, loc,
          j ? arith::AddIOp::create(rewriter, loc, lowB, step) : lowB, bSw);
      acc = NVVM::WgmmaMmaAsyncOp::create(
          rewriter, loc, structTy, acc, da, db, shape, *ab, *ab,
          NVVM::WGMMATypes::f32,
          (zeroInit && j == first) ? NVVM::WGMMAScaleOut::zero
                               : NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          NVVM::MMALayout::row, NVVM::MMALayout::col,
          NVVM::MMAIntOverflowAttr());
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    rewriter.replaceOp(op, acc);
    return success();
  }
};

struct MmaWaitLowering : OpConversionPattern<MmaWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MmaWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, op.getLoc(), op.getPending());
    rewriter.replaceOp(op, adaptor.getAccs());
    return success();
  }
};

/// The rows (relative to the accumulator) this thread holds: r0 and r0 + 8.
Value fragmentRow0(OpBuilder &b, Location loc) {
  Value t = threadInWarpgroup(b, loc);
  Value w = arith::DivUIOp::create(b, loc, t, i32Const(b, loc, 32));
  Value l = arith::RemUIOp::create(b, loc, t, i32Const(b, loc, 32));
  Value r = arith::MulIOp::create(b, loc, w, i32Const(b, loc, 16));
  return arith::AddIOp::create(
      b, loc, r, arith::DivUIOp::create(b, loc, l, i32Const(b, loc, 4)));
}

/// 2 * (lane % 4): the first column of this thread in each 8-column group.
Value fragmentCol0(OpBuilder &b, Location loc) {
  Value lane = NVVM::LaneIdOp::create(b, loc, b.getI32Type());
  Value q = arith::RemUIOp::create(b, loc, lane, i32Const(b, loc, 4));
  return arith::MulIOp::create(b, loc, q, i32Const(b, loc, 2));
}

/// The scales of the fragment rows this thread holds (row0 and row0 + 8,
/// relative to `row`) from slot `stage` of `scales`, group `group` of its
/// [G, M] tiles: warpspec.acc.row_scales, and acc.promote without them.
std::array<Value, 2> loadRowScales(OpBuilder &b, Location loc,
                                   SmemType scalesType, Value scales,
                                   Value stage, Value row, int64_t group) {
  Type f32 = b.getF32Type();
  Value row0 = arith::AddIOp::create(b, loc, fragmentRow0(b, loc),
                                     toI32(b, loc, row));
  Value slot = slotAddress(b, loc, scalesType, scales, stage);
  // Group g of a [G, M] tile starts g * M scales into the slot.
  int64_t groupFirst = group * scalesType.getShape().back();
  auto loadScale = [&](Value r) -> Value {
    if (groupFirst)
      r = arith::AddIOp::create(b, loc, r, i32Const(b, loc, groupFirst));
    Value bytes = arith::MulIOp::create(b, loc, r, i32Const(b, loc, 4));
    return LLVM::LoadOp::create(b, loc, f32, smemOffset(b, loc, slot, bytes),
                                4);
  };
  return {loadScale(row0),
          loadScale(arith::AddIOp::create(b, loc, row0, i32Const(b, loc, 8)))};
}

struct AccRowScalesLowering : OpConversionPattern<AccRowScalesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccRowScalesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::array<Value, 2> sa = loadRowScales(
        rewriter, op.getLoc(), op.getAScales().getType(), adaptor.getAScales(),
        adaptor.getStage(), adaptor.getRow(), op.getAScaleGroup());
    rewriter.replaceOp(op, ValueRange{sa[0], sa[1]});
    return success();
  }
};

/// acc.promote column_scales: element i of the fragment is column 8 (i / 4)
/// + col0 + i % 2 (col0 = 2 (lane % 4)), whose scale is a_scales[row +
/// column]; per column the product a * b, then fma(partial, a * b, total),
/// as the row-scaled promotion forms them.
Value promoteByColumns(OpBuilder &b, Location loc, AccPromoteOp op,
                       AccPromoteOp::Adaptor adaptor) {
  int64_t n = op.getTotal().getType().getN();
  SmemType scalesType = op.getAScales().getType();
  Type f32 = b.getF32Type();
  Value slot = slotAddress(b, loc, scalesType, adaptor.getAScales(),
                           adaptor.getStage());
  Value col0 = arith::AddIOp::create(b, loc, fragmentCol0(b, loc),
                                     toI32(b, loc, adaptor.getRow()));
  Value sb = adaptor.getBScales()[0];
  Value result = adaptor.getTotal();
  Value partial = adaptor.getPartial();
  for (int64_t j = 0; j < n / 8; ++j) {
    std::array<Value, 2> scale;
    for (int64_t e = 0; e < 2; ++e) {
      Value column = arith::AddIOp::create(b, loc, col0,
                                           i32Const(b, loc, 8 * j + e));
      Value bytes =
          arith::MulIOp::create(b, loc, column, i32Const(b, loc, 4));
      Value sa = LLVM::LoadOp::create(b, loc, f32,
                                      smemOffset(b, loc, slot, bytes), 4);
      scale[e] = arith::MulFOp::create(b, loc, sa, sb);
    }
    for (int64_t q = 0; q < 4; ++q) {
      int64_t i = 4 * j + q;
      Value p = LLVM::ExtractValueOp::create(b, loc, partial, i);
      Value t = LLVM::ExtractValueOp::create(b, loc, result, i);
      Value r = LLVM::FMAOp::create(b, loc, p, scale[q % 2], t);
      result = LLVM::InsertValueOp::create(b, loc, result, r, i);
    }
  }
  return result;
}

struct AccPromoteLowering : OpConversionPattern<AccPromoteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccPromoteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    AccType accType = op.getTotal().getType();
    int64_t n = accType.getN();
    // The b_scales split is the verifier's (getBScaleIndex relies on it).
    if (!op.getAScales().getType().getElementType().isF32())
      return op.emitError("a_scales must be an f32 buffer");
    Location loc = op.getLoc();
    if (op.getColumnScales()) {
      rewriter.replaceOp(op, promoteByColumns(rewriter, loc, op, adaptor));
      return success();
    }
    std::array<Value, 2> sa;
    if (!adaptor.getRowScales().empty())
      sa = {adaptor.getRowScales()[0], adaptor.getRowScales()[1]};
    else
      sa = loadRowScales(rewriter, loc, op.getAScales().getType(),
                         adaptor.getAScales(), adaptor.getStage(),
                         adaptor.getRow(), op.getAScaleGroup());
    // One product per (row half, b-scale group), then one fma per element.
    SmallVector<Value> scale[2];
    for (int h = 0; h < 2; ++h)
      for (Value sb : adaptor.getBScales())
        scale[h].push_back(arith::MulFOp::create(rewriter, loc, sa[h], sb));
    Value total = adaptor.getTotal();
    Value partial = adaptor.getPartial();
    Value result = total;
    // Element i of the fragment lies in 8-column group j = i / 4, and every
    // column of a group has the same b scale (the verifier's rule).
    for (int64_t i = 0; i < n / 2; ++i) {
      int64_t j = i / 4, q = i % 4;
      Value s = scale[q >= 2][op.getBScaleIndex(8 * j)];
      Value p = LLVM::ExtractValueOp::create(rewriter, loc, partial, i);
      Value t = LLVM::ExtractValueOp::create(rewriter, loc, total, i);
      Value r = LLVM::FMAOp::create(rewriter, loc, p, s, t);
      result = LLVM::InsertValueOp::create(rewriter, loc, result, r, i);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// One empty `asm volatile` per element, the element an in/out register
/// ("=f" tied to "0"): the elements must be computed before the asm, and a
/// side-effecting asm keeps its place among the other side-effecting ops
/// (the wgmma of the next MMA).
struct AccFenceLowering : OpConversionPattern<AccFenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccFenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value acc = adaptor.getAcc();
    Value result = acc;
    for (int64_t i = 0, e = op.getAcc().getType().getN() / 2; i < e; ++i) {
      Value v = LLVM::ExtractValueOp::create(rewriter, loc, acc, i);
      Value fenced = inlinePtx(rewriter, loc, f32, ValueRange{v}, "", "=f,0",
                               /*sideEffects=*/true);
      result = LLVM::InsertValueOp::create(rewriter, loc, result, fenced, i);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Elements `i` and `i + 1` of the fragment as a 2-vector of `elt`.
Value fragmentPair(OpBuilder &b, Location loc, Value acc, int64_t i, Type elt) {
  auto vecF32 = VectorType::get({2}, b.getF32Type());
  Value v = LLVM::UndefOp::create(b, loc, vecF32);
  for (int e = 0; e < 2; ++e)
    v = LLVM::InsertElementOp::create(
        b, loc, v, LLVM::ExtractValueOp::create(b, loc, acc, i + e),
        i32Const(b, loc, e));
  if (!elt.isF32())
    v = LLVM::FPTruncOp::create(b, loc, VectorType::get({2}, elt), v);
  return v;
}

/// Elements `i` and `i + 1` as stored: a 2-vector of `elt`, or for e4m3 the
/// two bytes of one cvt.rn.satfinite.e4m3x2 (warpspec.cvt.e4m3x2, the
/// conversion every requantization uses), `i` in the low byte.
Value storedPair(OpBuilder &b, Location loc, Value acc, int64_t i, Type elt) {
  if (!isa<Float8E4M3FNType>(elt))
    return fragmentPair(b, loc, acc, i, elt);
  return CvtE4M3x2Op::create(b, loc, LLVM::ExtractValueOp::create(b, loc, acc, i),
                             LLVM::ExtractValueOp::create(b, loc, acc, i + 1));
}

/// Where the accumulator goes: a swizzled buffer [R, N] whose row is wider
/// than the swizzle span S is laid out as N * bytes / S column panels of
/// [R, S bytes], one after another (the SMEM of consecutive TMA boxes of S
/// bytes); inside a panel, address bits [4, 4+B) are XORed with bits
/// [7, 7+B) (B = log2(S / 16)), the layout TMA reads with the same swizzle.
/// For the wgmma D fragment this makes the 8 rows a warp writes per store
/// land in 8 different 16-byte bank groups, where an unswizzled 256-byte row
/// pitch puts them all on the same 4 banks.
struct TileLayout {
  Value slot;         // the slot's first byte
  unsigned swizzle;   // 0, 32, 64 or 128
  int64_t pitch;      // bytes between rows inside a panel
  int64_t panelBytes; // bytes between column panels
};

/// f32 (and the general form): pairs of adjacent columns are converted
/// together and stored as one 2-element vector (8 bytes for f32, 2 for
/// e4m3).
void storePairs(OpBuilder &b, Location loc, Value acc, int64_t n, Type elt,
                Value row0, const TileLayout &t) {
  int64_t eb = elementBytes(elt);
  Value col0 = fragmentCol0(b, loc);
  for (int64_t j = 0; j < n / 8; ++j) {
    // The 8 columns of group j (8 * eb <= 32 bytes) lie in one panel.
    int64_t groupBytes = 8 * j * eb;
    int64_t panel = groupBytes / t.pitch;
    for (int h = 0; h < 2; ++h) {
      Value row =
          h ? arith::AddIOp::create(b, loc, row0, i32Const(b, loc, 8)) : row0;
      Value colBytes = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, col0, i32Const(b, loc, eb)),
          i32Const(b, loc, groupBytes - panel * t.pitch));
      Value off = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, row, i32Const(b, loc, t.pitch)),
          colBytes);
      if (t.swizzle)
        off = arith::XOrIOp::create(b, loc, off,
                                    swizzleBits(b, loc, off, t.swizzle));
      if (panel)
        off = arith::AddIOp::create(b, loc, off,
                                    i32Const(b, loc, panel * t.panelBytes));
      LLVM::StoreOp::create(b, loc, storedPair(b, loc, acc, 4 * j + 2 * h, elt),
                            smemOffset(b, loc, t.slot, off), 2 * eb);
    }
  }
}

/// A lane's stmatrix row address in a tile: `rowOff` (a multiple of the
/// swizzle span) plus its byte column, XOR-swizzled by the row.
Value swizzledRowAddress(OpBuilder &b, Location loc, Value rowOff,
                         Value colBytes, const TileLayout &t) {
  if (!t.swizzle)
    return arith::AddIOp::create(b, loc, rowOff, colBytes);
  return arith::AddIOp::create(
      b, loc, rowOff,
      arith::XOrIOp::create(b, loc, colBytes,
                            swizzleBits(b, loc, rowOff, t.swizzle)));
}

/// The b32 registers of one stmatrix of 8-column groups [j, j + count)
/// (count 1 or 2): matrix m is fragment elements 4 j + 2 m and + 1.
SmallVector<Value, 4> matrixRegisters(OpBuilder &b, Location loc, Value acc,
                                      int64_t j, int64_t count, Type elt) {
  SmallVector<Value, 4> regs;
  for (int64_t m = 0; m < 2 * count; ++m)
    regs.push_back(LLVM::BitcastOp::create(
        b, loc, b.getI32Type(), fragmentPair(b, loc, acc, 4 * j + 2 * m, elt)));
  return regs;
}

/// bf16/f16: one `stmatrix.m8n8.x4.b16` per two 8-column groups (j, j+1)
/// stores the warp's 16 rows as four 8x8 matrices, in fragment order: m0 =
/// rows 0-7 of group j, m1 = rows 8-15 of group j, m2/m3 the same for group
/// j+1. Matrix m's per-thread part is exactly the thread's fragment
/// elements 4j + 2m, 4j + 2m + 1 (row lane/4, columns 2 * (lane % 4) + {0,
/// 1}), packed into one b32. Lane t gives the address of row t % 8 of
/// matrix t / 8, i.e. warp row lane & 15, byte column 16 * j + (lane & 16):
/// each such row is 16 bytes, one swizzle chunk, so it stays contiguous
/// under the XOR. An odd last group is stored with `.x2` (lanes 0-15).
void storeMatrices(OpBuilder &b, Location loc, Value acc, int64_t n, Type elt,
                   Value rowArg, const TileLayout &t) {
  Value tid = threadInWarpgroup(b, loc);
  Value warpRow0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, tid, i32Const(b, loc, 32)),
      i32Const(b, loc, 16));
  Value lane = NVVM::LaneIdOp::create(b, loc, b.getI32Type());
  Value row = arith::AddIOp::create(
      b, loc, warpRow0,
      arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 15)));
  row = arith::AddIOp::create(b, loc, row, rowArg);
  Value rowOff = arith::MulIOp::create(b, loc, row, i32Const(b, loc, t.pitch));
  Value laneCol = arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 16));
  // Swizzled, the row offset (a multiple of S) and the in-panel column
  // (< S) have disjoint bits, and the column of group j (j even: a multiple
  // of 32) and laneCol have disjoint bits, so the address of every store is
  // one XOR of a per-lane base: rowOff + (laneCol ^ swz) ^ col(j).
  Value base = swizzledRowAddress(b, loc, rowOff, laneCol, t);
  auto shape = NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8);
  int64_t groups = n / 8;
  for (int64_t j = 0; j < groups; j += 2) {
    int64_t count = std::min<int64_t>(groups - j, 2);
    int64_t groupBytes = 16 * j;
    // j and j + 1 lie in one panel: a panel holds S / 16 >= 2 groups.
    int64_t panel = groupBytes / t.pitch;
    int64_t col = groupBytes - panel * t.pitch;
    Value off = base;
    if (col)
      off = t.swizzle ? (Value)arith::XOrIOp::create(b, loc, off,
                                                     i32Const(b, loc, col))
                      : (Value)arith::AddIOp::create(b, loc, off,
                                                     i32Const(b, loc, col));
    if (panel)
      off = arith::AddIOp::create(b, loc, off,
                                  i32Const(b, loc, panel * t.panelBytes));
    NVVM::StMatrixOp::create(b, loc, smemOffset(b, loc, t.slot, off),
                             matrixRegisters(b, loc, acc, j, count, elt),
                             NVVM::MMALayout::row, shape,
                             NVVM::LdStMatrixEltType::B16);
  }
}

/// acc.store transpose: the same four 8x8 matrices per two 8-column groups
/// as storeMatrices, with `stmatrix.trans`, which writes column i of
/// matrix m to the row whose address lane 8 m + i gives. Matrix m of
/// groups (j, j + 1) covers accumulator rows 16 warp + 8 (m % 2) + [0, 8)
/// and columns 8 (j + m / 2) + [0, 8), so lane L addresses tile row `row +
/// 8 (j + L / 16) + L % 8` at byte column 32 warp + 16 ((L / 8) % 2): one
/// 16-byte swizzle chunk of a one-panel row. Rows of group pairs are 16
/// apart (whole swizzle atoms: the XOR pattern of a lane stays), so every
/// store is the lane's base plus a constant.
void storeMatricesTransposed(OpBuilder &b, Location loc, Value acc, int64_t n,
                             Type elt, Value rowArg, const TileLayout &t) {
  Value tid = threadInWarpgroup(b, loc);
  Value warp = arith::DivUIOp::create(b, loc, tid, i32Const(b, loc, 32));
  Value lane = NVVM::LaneIdOp::create(b, loc, b.getI32Type());
  Value row = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, lane, i32Const(b, loc, 16)),
          i32Const(b, loc, 8)),
      arith::RemUIOp::create(b, loc, lane, i32Const(b, loc, 8)));
  row = arith::AddIOp::create(b, loc, row, rowArg);
  // 16 ((L / 8) % 2) = 2 (L & 8): the lane's half of the warp's 32 bytes.
  Value colBytes = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warp, i32Const(b, loc, 32)),
      arith::MulIOp::create(
          b, loc, arith::AndIOp::create(b, loc, lane, i32Const(b, loc, 8)),
          i32Const(b, loc, 2)));
  Value rowOff = arith::MulIOp::create(b, loc, row, i32Const(b, loc, t.pitch));
  Value base = swizzledRowAddress(b, loc, rowOff, colBytes, t);
  auto shape = NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8);
  int64_t groups = n / 8;
  for (int64_t j = 0; j < groups; j += 2) {
    int64_t count = std::min<int64_t>(groups - j, 2);
    Value off = base;
    if (j)
      off = arith::AddIOp::create(b, loc, off, i32Const(b, loc, 8 * j * t.pitch));
    NVVM::StMatrixOp::create(b, loc, smemOffset(b, loc, t.slot, off),
                             matrixRegisters(b, loc, acc, j, count, elt),
                             NVVM::MMALayout::col, shape,
                             NVVM::LdStMatrixEltType::B16);
  }
}

struct AccStoreLowering : OpConversionPattern<AccStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AccStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmemType bufType = op.getBuffer().getType();
    Type elt = bufType.getElementType();
    if (!(elt.isBF16() || elt.isF16() || elt.isF32() ||
          isa<Float8E4M3FNType>(elt)))
      return op.emitError("accumulator store supports bf16, f16, f32 and "
                          "f8E4M3FN buffers");
    if (bufType.getShape().size() != 2)
      return op.emitError("accumulator store needs a 2-D buffer");
    int64_t eb = elementBytes(elt);
    int64_t rows = bufType.getShape()[0];
    int64_t rowBytes = bufType.getShape()[1] * eb;
    unsigned swizzle = bufType.getSwizzle();
    if (swizzle && rowBytes % swizzle != 0)
      return op.emitError("swizzled accumulator store needs a row of a "
                          "multiple of the swizzle width; got ")
             << rowBytes << " bytes with swizzle " << swizzle;
    if (swizzle && rowBytes > swizzle && rows % 8 != 0)
      return op.emitError("swizzled accumulator store with several column "
                          "panels needs a multiple of 8 rows (whole swizzle "
                          "atoms per panel); got ")
             << rows << " rows";
    Location loc = op.getLoc();
    TileLayout layout;
    layout.slot = slotAddress(rewriter, loc, bufType, adaptor.getBuffer(),
                              adaptor.getStage());
    layout.swizzle = swizzle;
    layout.pitch = swizzle ? swizzle : rowBytes;
    layout.panelBytes = rows * layout.pitch;
    int64_t n = op.getAcc().getType().getN();
    Value rowArg = toI32(rewriter, loc, adaptor.getRow());
    // stmatrix needs 16-byte aligned rows of 8 elements: b16 rows of n % 8
    // == 0 elements in 16-byte aligned slots always are.
    if (op.getTranspose()) {
      if (rowBytes != layout.pitch)
        return op.emitError("transposed accumulator store needs one-panel "
                            "rows (the accumulator's m columns within the "
                            "swizzle span); got ")
               << rowBytes << " bytes with swizzle " << swizzle;
      storeMatricesTransposed(rewriter, loc, adaptor.getAcc(), n, elt, rowArg,
                              layout);
    } else if (eb == 2) {
      storeMatrices(rewriter, loc, adaptor.getAcc(), n, elt, rowArg, layout);
    } else {
      Value row0 = arith::AddIOp::create(rewriter, loc,
                                         fragmentRow0(rewriter, loc), rowArg);
      storePairs(rewriter, loc, adaptor.getAcc(), n, elt, row0, layout);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void warpspec::populateWarpSpecMmaSm90Patterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<AccZeroLowering, MmaSm90Lowering, MmaWaitLowering,
               AccRowScalesLowering, AccPromoteLowering, AccFenceLowering,
               AccStoreLowering>(
      converter, patterns.getContext());
}
