//===- TileScheduler.cpp - the persistent tile order of a GEMM ------------===//
#include "TileScheduler.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
namespace ws = mlir::warpspec;

void megamoe::collectives::TileScheduler::forEachTile(
    OpBuilder &b, Location loc,
    function_ref<void(OpBuilder &, Value, Value, const ClusterTile *, Value)>
        body) const {
  bool split = kSplit > 1;
  auto loop = ws::TileLoopOp::create(
      b, loc, numMBlocks, nBlocks, raster,
      cluster > 1 ? b.getI64IntegerAttr(cluster) : IntegerAttr(),
      split ? b.getI64IntegerAttr(kSplit) : IntegerAttr(),
      split ? b.getI64IntegerAttr(kSplitTiles) : IntegerAttr());
  Block &tile = loop.getBody().emplaceBlock();
  tile.addArgument(b.getIndexType(), loc);
  tile.addArgument(b.getIndexType(), loc);
  if (split)
    tile.addArgument(b.getI32Type(), loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&tile);
  if (cluster == 1)
    return body(b, loop.getMBlock(), loop.getNBlock(), nullptr,
                loop.getUnit());
  // The tile loop gives rank r of the cluster m-block C * group + r, which
  // is past the last m-block in a last group of fewer than C.
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value count = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                           numMBlocks);
  Value last = arith::SubIOp::create(b, loc, count, c(1));
  Value m = loop.getMBlock();
  ClusterTile at;
  at.owned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, m, count);
  at.firstMBlock = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, m, c(cluster)), c(cluster));
  at.lastMBlock = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, at.firstMBlock, c(cluster - 1)),
      last);
  body(b, arith::MinUIOp::create(b, loc, m, last), loop.getNBlock(), &at,
       Value());
}
