//===- LowerTiles.cpp - tile loop, SMEM views, epilogue tile store/load ---===//
//
// The layouts here are the ones `acc.store` writes (LowerMmaSm90.cpp): a
// swizzled 2-D tile whose rows are wider than the swizzle span S is a row of
// column panels of [rows, S bytes]; inside a panel the 16-byte chunk index is
// XORed with swizzleBits of the byte offset. Unswizzled tiles are one panel of
// plain rows.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/TileOrder.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

/// The panel geometry of a 2-D tile buffer (verified by the ops).
struct Panels {
  int64_t rows;       // rows of the tile
  int64_t pitch;      // bytes between rows inside a panel
  int64_t panelBytes; // bytes between column panels
  int64_t columns;    // elements per panel row
  int64_t count;      // panels per tile row
  unsigned swizzle;
};

Panels panelsOf(SmemType tile) {
  int64_t eb = (tile.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  Panels p;
  p.rows = tile.getShape()[0];
  p.swizzle = tile.getSwizzle();
  p.pitch = p.swizzle ? p.swizzle : tile.getShape()[1] * eb;
  p.panelBytes = p.rows * p.pitch;
  p.columns = p.pitch / eb;
  p.count = tile.getShape()[1] * eb / p.pitch;
  return p;
}

struct SmemViewLowering : OpConversionPattern<SmemViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SmemViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A view starts at its source's first byte.
    rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

/// One TMA store (+ commit_group) per column panel of rows [row, row +
/// rows), each issued by lane 0 of the executing warp.
struct TileStoreLowering : OpConversionPattern<TileStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmemType tile = op.getBuffer().getType();
    Panels p = panelsOf(tile);
    Value slot = slotAddress(rewriter, loc, tile, adaptor.getBuffer(),
                             adaptor.getStage());
    Value rowBytes =
        arith::MulIOp::create(rewriter, loc, toI32(rewriter, loc, adaptor.getRow()),
                              i32Const(rewriter, loc, p.pitch));
    for (int64_t panel = 0; panel < p.count; ++panel) {
      Value bytes = arith::AddIOp::create(
          rewriter, loc, rowBytes, i32Const(rewriter, loc, panel * p.panelBytes));
      Value src = smemOffset(rewriter, loc, slot, bytes);
      Value col = adaptor.getCol();
      if (panel)
        col = arith::AddIOp::create(rewriter, loc, col,
                                    i32Const(rewriter, loc, panel * p.columns));
      emitTmaStore(rewriter, loc, adaptor.getDesc(), src,
                   ValueRange{col, adaptor.getM()});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The chunk at byte column 16 * chunk of `row`: panel chunk / (S / 16),
/// in-panel offset row * S + 16 * (chunk % (S / 16)), swizzled.
struct TileLoadLowering : OpConversionPattern<TileLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmemType tile = op.getBuffer().getType();
    Panels p = panelsOf(tile);
    int64_t chunksPerPanel = p.pitch / 16;
    Value chunk = adaptor.getChunk();
    // The swizzle repeats every 8 rows (one 1024-byte atom for every span),
    // so `row = base + c` with a constant c that is a multiple of 8 is the
    // address of `base` plus c rows: an epilogue walking a tile in steps of 8
    // rows computes the swizzle once.
    Value row = adaptor.getRow();
    int64_t atomRows = 0;
    if (auto add = op.getRow().getDefiningOp<arith::AddIOp>())
      if (std::optional<int64_t> c = getConstantIntValue(add.getRhs()))
        if (*c % 8 == 0) {
          row = add.getLhs();
          atomRows = *c;
        }
    Value inPanel = chunk, panel;
    if (p.swizzle) {
      inPanel = arith::RemUIOp::create(rewriter, loc, chunk,
                                       i32Const(rewriter, loc, chunksPerPanel));
      panel = arith::DivUIOp::create(rewriter, loc, chunk,
                                     i32Const(rewriter, loc, chunksPerPanel));
    }
    Value off = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, row,
                              i32Const(rewriter, loc, p.pitch)),
        arith::MulIOp::create(rewriter, loc, inPanel,
                              i32Const(rewriter, loc, 16)));
    if (p.swizzle) {
      off = arith::XOrIOp::create(rewriter, loc, off,
                                  swizzleBits(rewriter, loc, off, p.swizzle));
      off = arith::AddIOp::create(
          rewriter, loc, off,
          arith::MulIOp::create(rewriter, loc, panel,
                                i32Const(rewriter, loc, p.panelBytes)));
    }
    Value slot = slotAddress(rewriter, loc, tile, adaptor.getBuffer(),
                             adaptor.getStage());
    Value addr = smemOffset(rewriter, loc, slot, off);
    addr = smemOffset(rewriter, loc, addr, atomRows * p.pitch);
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, op.getResult().getType(),
                                              addr, /*alignment=*/16);
    return success();
  }
};

} // namespace

void warpspec::populateWarpSpecTilePatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<SmemViewLowering, TileStoreLowering, TileLoadLowering>(
      converter, patterns.getContext());
}

namespace {
/// The arithmetic policy of megamoe/Conversion/WarpSpecToNVVM/TileOrder.h
/// that emits the ops: unsigned arith on `type` (index or i32), a branch as
/// an scf.if with results.
struct IrArith {
  using V = Value;
  using P = Value;
  OpBuilder &b;
  Location loc;
  Type type;

  V c(int64_t v) {
    if (type.isIndex())
      return arith::ConstantIndexOp::create(b, loc, v);
    return arith::ConstantIntOp::create(b, loc, type, v);
  }
  V add(V x, V y) { return arith::AddIOp::create(b, loc, x, y); }
  V sub(V x, V y) { return arith::SubIOp::create(b, loc, x, y); }
  V mul(V x, V y) { return arith::MulIOp::create(b, loc, x, y); }
  V div(V x, V y) { return arith::DivUIOp::create(b, loc, x, y); }
  V rem(V x, V y) { return arith::RemUIOp::create(b, loc, x, y); }
  V max(V x, V y) { return arith::MaxUIOp::create(b, loc, x, y); }
  P ult(V x, V y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  P uge(V x, V y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, x, y);
  }
  V select(P p, V x, V y) { return arith::SelectOp::create(b, loc, p, x, y); }
  V fromPred(P p) {
    if (type.isIndex())
      return arith::IndexCastUIOp::create(b, loc, type, p);
    return arith::ExtUIOp::create(b, loc, type, p);
  }
  template <size_t N, typename Then, typename Else>
  std::array<V, N> branch(P cond, Then then, Else otherwise) {
    SmallVector<Type, 3> types(N, type);
    auto ifOp = scf::IfOp::create(b, loc, types, cond,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    std::array<V, N> t = then();
    scf::YieldOp::create(b, loc, ValueRange(ArrayRef<V>(t)));
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    std::array<V, N> e = otherwise();
    scf::YieldOp::create(b, loc, ValueRange(ArrayRef<V>(e)));
    std::array<V, N> results;
    for (size_t i = 0; i < N; ++i)
      results[i] = ifOp.getResult(i);
    return results;
  }
};
} // namespace

/// tiles t = blockIdx.x, blockIdx.x + gridDim.x, ... below m_blocks *
/// n_blocks, in rasters (megamoe::tileorder::rasterTile). With k_split the
/// iterations past the whole tiles are the last wave's split units
/// (TileLoopOp's description).
LogicalResult warpspec::expandTileLoops(gpu::GPUModuleOp module) {
  SmallVector<TileLoopOp> loops;
  module.walk([&](TileLoopOp op) { loops.push_back(op); });
  for (TileLoopOp op : loops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto index = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), v)
          .getResult();
    };
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // With a cluster of C CTAs the loop hands out groups of C m-blocks
    // round-robin over the clusters; rank r takes m-block C * group + r.
    int64_t ctas = op.getCluster().value_or(1);
    Value first, step, rank;
    if (ctas > 1) {
      first = index(NVVM::ClusterIdXOp::create(b, loc, b.getI32Type()));
      step = index(NVVM::ClusterDimXOp::create(b, loc, b.getI32Type()));
      rank = index(NVVM::BlockInClusterIdXOp::create(b, loc, b.getI32Type()));
    } else {
      first = index(NVVM::BlockIdXOp::create(b, loc, b.getI32Type()));
      step = index(NVVM::GridDimXOp::create(b, loc, b.getI32Type()));
    }
    Value mBlocks = index(op.getMBlocks());
    if (ctas > 1) // ceil(m_blocks / C), still negative for a negative count
      mBlocks = arith::DivSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, mBlocks, c(ctas - 1)),
          c(ctas));
    Value numTiles = arith::MulIOp::create(b, loc, mBlocks, c(op.getNBlocks()));
    Value tilesPerRaster =
        arith::MulIOp::create(b, loc, mBlocks, c(op.getRaster()));
    // k_split P: the last wave's r = T mod G tiles become r P units after
    // the T - r whole tiles when r P <= (P - 1) G (fewer waves than P).
    Value whole = numTiles, iterations = numTiles;
    std::optional<uint64_t> kSplit = op.getKSplit();
    if (kSplit) {
      int64_t parts = *kSplit;
      Value tiles = arith::MaxSIOp::create(b, loc, numTiles, c(0));
      Value r = arith::RemUIOp::create(b, loc, tiles, step);
      Value fits = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule,
          arith::MulIOp::create(b, loc, r, c(parts)),
          arith::MulIOp::create(b, loc, step, c(parts - 1)));
      // ... and the partial sums' workspace holds r tiles.
      Value held = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule, r,
          c(static_cast<int64_t>(op.getKSplitTiles().value_or(0))));
      Value split = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, r, c(0)),
          arith::AndIOp::create(b, loc, fits, held));
      whole = arith::SelectOp::create(
          b, loc, split, arith::SubIOp::create(b, loc, tiles, r), tiles);
      iterations = arith::SelectOp::create(
          b, loc, split,
          arith::AddIOp::create(b, loc, whole,
                                arith::MulIOp::create(b, loc, r, c(parts))),
          tiles);
    }
    auto loop = scf::ForOp::create(b, loc, first, iterations, step);
    b.setInsertionPointToStart(loop.getBody());
    Value tile = loop.getInductionVar();
    Value unit;
    if (kSplit) {
      Value i = tile;
      Value isUnit =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, i, whole);
      Value u = arith::SubIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, i, whole), whole);
      tile = arith::SelectOp::create(
          b, loc, isUnit,
          arith::AddIOp::create(
              b, loc, whole,
              arith::DivUIOp::create(b, loc, u, c(*kSplit))),
          i);
      unit = arith::SelectOp::create(
          b, loc, isUnit,
          arith::IndexCastOp::create(b, loc, b.getI32Type(), u),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
    }
    IrArith ar{b, loc, b.getIndexType()};
    auto [mBlock, nBlock] = megamoe::tileorder::rasterTile(
        ar, tile, tilesPerRaster, op.getNBlocks(), op.getRaster());
    // A cluster's CTA of rank r takes m-block C * group + r.
    if (ctas > 1)
      mBlock = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, mBlock, c(ctas)), rank);
    Block &body = op.getBody().front();
    body.getArgument(0).replaceAllUsesWith(mBlock);
    body.getArgument(1).replaceAllUsesWith(nBlock);
    if (unit)
      body.getArgument(2).replaceAllUsesWith(unit);
    Block *target = loop.getBody();
    target->getOperations().splice(std::prev(target->end()),
                                   body.getOperations());
    op.erase();
  }
  return success();
}

/// The wave loop (WaveLoopOp's description): each tile's position in the
/// sequence mapped in closed form from t and M alone
/// (megamoe::tileorder::waveTile), in i32. M and the tile's coordinates pass
/// through opaque moves, so that nothing derived from M is hoisted out of the
/// loop and the coordinates are one register each through the tile. The fused
/// GEMM kernel's BLOCK_M 128 math warpgroups still spill with this mapping
/// (V4-Flash 48 bytes, V4-Pro 72; with a trivial mapping in the math roles, 0;
/// hoisted invariants or a segment carried from tile to tile spilled 28-232):
/// the cost is the mapping's code itself, where those warpgroups have no
/// registers left.
LogicalResult warpspec::expandWaveLoops(gpu::GPUModuleOp module) {
  SmallVector<WaveLoopOp> loops;
  module.walk([&](WaveLoopOp op) { loops.push_back(op); });
  for (WaveLoopOp op : loops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type i32 = b.getI32Type(), idx = b.getIndexType();
    IrArith ar{b, loc, i32};
    auto index = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, idx, v).getResult();
    };
    auto opaque = [&](Value v) {
      return inlinePtx(b, loc, i32, ValueRange{v}, "mov.b32 $0, $1;", "=r,r",
                       /*sideEffects=*/true);
    };
    ArrayRef<int64_t> nBlocks = op.getNBlocks(), raster = op.getRaster();
    megamoe::tileorder::WaveShape shape{{nBlocks[0], nBlocks[1]},
                                        {raster[0], raster[1]},
                                        static_cast<int64_t>(op.getWave()),
                                        static_cast<int64_t>(op.getLag())};
    Value first = index(NVVM::BlockIdXOp::create(b, loc, i32));
    Value step = index(NVVM::GridDimXOp::create(b, loc, i32));
    Value mBlocks = arith::MaxSIOp::create(b, loc, op.getMBlocks(), ar.c(0));
    Value numTiles = index(ar.mul(mBlocks, ar.c(nBlocks[0] + nBlocks[1])));
    auto loop = scf::ForOp::create(b, loc, first, numTiles, step);
    b.setInsertionPointToStart(loop.getBody());
    Value t = arith::IndexCastUIOp::create(b, loc, i32, loop.getInductionVar());
    // t < M (N0 + N1), so M >= 1 here.
    std::array<Value, 3> tile =
        megamoe::tileorder::waveTile(ar, t, opaque(mBlocks), shape);
    Block &body = op.getBody().front();
    for (int i = 0; i < 3; ++i)
      body.getArgument(i).replaceAllUsesWith(
          arith::IndexCastUIOp::create(b, loc, idx, opaque(tile[i]))
              .getResult());
    Block *target = loop.getBody();
    target->getOperations().splice(std::prev(target->end()),
                                   body.getOperations());
    op.erase();
  }
  return success();
}
