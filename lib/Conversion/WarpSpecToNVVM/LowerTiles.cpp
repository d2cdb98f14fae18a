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
/// Tile `tile` (index) of a grid of m-blocks x `nBlocks` in rasters of
/// `raster` n-blocks, `tilesPerRaster` = m-blocks x raster: raster g = tile
/// / tilesPerRaster, i = tile % tilesPerRaster, m-block i / R, n-block g * R
/// + i % R. Past the F = nBlocks / R full rasters the last one is W =
/// nBlocks mod R wide: i = tile - tilesPerRaster * F, m-block i / W, n-block
/// F * R + i % W. With a cluster of `ctas` the m-block is that of a group:
/// C * group + rank.
std::pair<Value, Value> rasterTile(OpBuilder &b, Location loc, Value tile,
                                   Value tilesPerRaster, int64_t nBlocks,
                                   int64_t rasterWidth, int64_t ctas,
                                   Value rank) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value r = c(rasterWidth);
  Value raster = arith::DivUIOp::create(b, loc, tile, tilesPerRaster);
  Value inRaster = arith::RemUIOp::create(b, loc, tile, tilesPerRaster);
  Value mBlock = arith::DivUIOp::create(b, loc, inRaster, r);
  if (ctas > 1)
    mBlock = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, mBlock, c(ctas)), rank);
  Value nBlock = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, raster, r),
      arith::RemUIOp::create(b, loc, inRaster, r));
  if (int64_t width = nBlocks % rasterWidth) {
    // The narrower last raster; `tail` is only used where it is >= 0.
    int64_t full = nBlocks / rasterWidth;
    Value fullTiles = arith::MulIOp::create(b, loc, tilesPerRaster, c(full));
    Value inTail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         tile, fullTiles);
    Value tail = arith::SubIOp::create(b, loc, tile, fullTiles);
    Value w = c(width);
    Value tailM = arith::DivUIOp::create(b, loc, tail, w);
    if (ctas > 1)
      tailM = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, tailM, c(ctas)), rank);
    Value tailN = arith::AddIOp::create(
        b, loc, c(full * rasterWidth),
        arith::RemUIOp::create(b, loc, tail, w));
    mBlock = arith::SelectOp::create(b, loc, inTail, tailM, mBlock);
    nBlock = arith::SelectOp::create(b, loc, inTail, tailN, nBlock);
  }
  return {mBlock, nBlock};
}
} // namespace

/// tiles t = blockIdx.x, blockIdx.x + gridDim.x, ... below m_blocks *
/// n_blocks, in rasters (rasterTile). With k_split the iterations past the
/// whole tiles are the last wave's split units (TileLoopOp's description).
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
    auto [mBlock, nBlock] =
        rasterTile(b, loc, tile, tilesPerRaster, op.getNBlocks(),
                   op.getRaster(), ctas, rank);
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

/// The wave loop (WaveLoopOp's description): tiles t = blockIdx.x,
/// blockIdx.x + gridDim.x, ... below m_blocks x (n_blocks[0] + n_blocks[1])
/// in a sequence of segments, segment k being phase 0 of wave k for k <=
/// lag, then (j = k - lag - 1) phase 1 of wave j / 2 for even j and phase 0
/// of wave lag + 1 + j / 2 for odd j. Each CTA carries the segment of its
/// last tile and that segment's first index from tile to tile, and moves on
/// while t is past the segment's end: its t only grows, so the walk is
/// amortized over its tiles. (A closed form of the same order, with the last
/// wave's segments placed by formula, kept more values live through the
/// tiles: V4-Pro's BLOCK_M 128 fused GEMM spilled 232 bytes with it, 28
/// with this walk.)
LogicalResult warpspec::expandWaveLoops(gpu::GPUModuleOp module) {
  SmallVector<WaveLoopOp> loops;
  module.walk([&](WaveLoopOp op) { loops.push_back(op); });
  for (WaveLoopOp op : loops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto index = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), v)
          .getResult();
    };
    auto c = [&](OpBuilder &ob, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ob, loc, v);
    };
    ArrayRef<int64_t> nBlocks = op.getNBlocks(), raster = op.getRaster();
    int64_t wave = op.getWave(), lag = op.getLag();
    Value first = index(NVVM::BlockIdXOp::create(b, loc, b.getI32Type()));
    Value step = index(NVVM::GridDimXOp::create(b, loc, b.getI32Type()));
    Value mBlocks =
        arith::MaxSIOp::create(b, loc, index(op.getMBlocks()), c(b, 0));
    Value numTiles =
        arith::MulIOp::create(b, loc, mBlocks, c(b, nBlocks[0] + nBlocks[1]));
    // Segment k: whether it is phase 1 (i1), and its wave.
    auto segment = [&](OpBuilder &ob, Value k) -> std::pair<Value, Value> {
      Value head = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ule,
                                         k, c(ob, lag));
      Value j = arith::SubIOp::create(
          ob, loc, arith::MaxUIOp::create(ob, loc, k, c(ob, lag + 1)),
          c(ob, lag + 1));
      Value half = arith::DivUIOp::create(ob, loc, j, c(ob, 2));
      Value even = arith::CmpIOp::create(
          ob, loc, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(ob, loc, j, c(ob, 2)), c(ob, 0));
      Value second = arith::AndIOp::create(
          ob, loc, even,
          arith::XOrIOp::create(
              ob, loc, head,
              arith::ConstantIntOp::create(ob, loc, ob.getI1Type(), 1)));
      Value tailWave = arith::SelectOp::create(
          ob, loc, even, half,
          arith::AddIOp::create(ob, loc, half, c(ob, lag + 1)));
      Value w = arith::SelectOp::create(ob, loc, head, k, tailWave);
      return {second, w};
    };
    // The m-blocks of wave w: min(max(M - w W, 0), W).
    auto waveMBlocks = [&](OpBuilder &ob, Value w) -> Value {
      Value left = arith::SubIOp::create(
          ob, loc, mBlocks, arith::MulIOp::create(ob, loc, w, c(ob, wave)));
      return arith::MinSIOp::create(
          ob, loc, arith::MaxSIOp::create(ob, loc, left, c(ob, 0)),
          c(ob, wave));
    };
    auto segmentTiles = [&](OpBuilder &ob, Value k) -> Value {
      auto [second, w] = segment(ob, k);
      Value n = arith::SelectOp::create(ob, loc, second, c(ob, nBlocks[1]),
                                        c(ob, nBlocks[0]));
      return arith::MulIOp::create(ob, loc, waveMBlocks(ob, w), n);
    };
    auto loop = scf::ForOp::create(b, loc, first, numTiles, step,
                                   ValueRange{c(b, 0), c(b, 0)});
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    Value tile = loop.getInductionVar();
    Type idx = lb.getIndexType();
    // Move on to the segment that holds `tile`.
    auto walk = scf::WhileOp::create(
        lb, loc, TypeRange{idx, idx}, loop.getRegionIterArgs(),
        [&](OpBuilder &wb, Location, ValueRange at) {
          Value end = arith::AddIOp::create(wb, loc, at[1],
                                            segmentTiles(wb, at[0]));
          Value past = arith::CmpIOp::create(
              wb, loc, arith::CmpIPredicate::uge, tile, end);
          scf::ConditionOp::create(wb, loc, past, at);
        },
        [&](OpBuilder &wb, Location, ValueRange at) {
          Value next = arith::AddIOp::create(wb, loc, at[0], c(wb, 1));
          Value start = arith::AddIOp::create(wb, loc, at[1],
                                              segmentTiles(wb, at[0]));
          scf::YieldOp::create(wb, loc, ValueRange{next, start});
        });
    Value k = walk.getResult(0), start = walk.getResult(1);
    auto [second, w] = segment(lb, k);
    Value inSegment = arith::SubIOp::create(lb, loc, tile, start);
    Value mCount = waveMBlocks(lb, w);
    // The segment's grid in its phase's rasters (the other phase's mapping
    // is computed too, and not selected).
    std::pair<Value, Value> at[2];
    for (int64_t phase = 0; phase < 2; ++phase)
      at[phase] = rasterTile(
          lb, loc, inSegment,
          arith::MulIOp::create(lb, loc, mCount, c(lb, raster[phase])),
          nBlocks[phase], raster[phase], /*ctas=*/1, Value());
    Value mInWave =
        arith::SelectOp::create(lb, loc, second, at[1].first, at[0].first);
    Value mBlock = arith::AddIOp::create(
        lb, loc, arith::MulIOp::create(lb, loc, w, c(lb, wave)), mInWave);
    Value nBlock =
        arith::SelectOp::create(lb, loc, second, at[1].second, at[0].second);
    Value phase = arith::IndexCastUIOp::create(lb, loc, idx, second);
    scf::YieldOp::create(lb, loc, ValueRange{k, start});
    Block &body = op.getBody().front();
    body.getArgument(0).replaceAllUsesWith(phase);
    body.getArgument(1).replaceAllUsesWith(mBlock);
    body.getArgument(2).replaceAllUsesWith(nBlock);
    Block *target = loop.getBody();
    target->getOperations().splice(std::prev(target->end()),
                                   body.getOperations());
    op.erase();
  }
  return success();
}
