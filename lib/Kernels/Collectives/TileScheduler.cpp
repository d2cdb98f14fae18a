//===- TileScheduler.cpp - the persistent tile order of a GEMM ------------===//
#include "TileScheduler.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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

void megamoe::collectives::forEachWaveTile(
    OpBuilder &b, Location loc, const TileScheduler &first,
    const TileScheduler &second, int64_t waveMBlocks, int64_t lag,
    function_ref<void(OpBuilder &, int, Value, Value)> body) {
  assert(first.cluster == 1 && second.cluster == 1 && first.kSplit == 1 &&
         second.kSplit == 1 && "a wave loop has no cluster and no K split");
  auto loop = ws::WaveLoopOp::create(
      b, loc, first.numMBlocks,
      b.getDenseI64ArrayAttr({first.nBlocks, second.nBlocks}),
      b.getDenseI64ArrayAttr({first.raster, second.raster}),
      b.getI64IntegerAttr(waveMBlocks), b.getI64IntegerAttr(lag));
  Block &tile = loop.getBody().emplaceBlock();
  for (int i = 0; i < 3; ++i)
    tile.addArgument(b.getIndexType(), loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&tile);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, loop.getPhase(),
                            arith::ConstantIndexOp::create(b, loc, 0));
  auto branch = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/true);
  OpBuilder then = branch.getThenBodyBuilder();
  body(then, 0, loop.getMBlock(), loop.getNBlock());
  OpBuilder otherwise = branch.getElseBodyBuilder();
  body(otherwise, 1, loop.getMBlock(), loop.getNBlock());
}
