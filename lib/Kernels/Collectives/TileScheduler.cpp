//===- TileScheduler.cpp - the persistent tile order of a GEMM ------------===//
#include "TileScheduler.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

using namespace mlir;
namespace ws = mlir::warpspec;

void megamoe::collectives::TileScheduler::forEachTile(
    OpBuilder &b, Location loc,
    function_ref<void(OpBuilder &, Value, Value)> body) const {
  auto loop = ws::TileLoopOp::create(b, loc, numMBlocks, nBlocks, raster);
  Block &tile = loop.getBody().emplaceBlock();
  tile.addArgument(b.getIndexType(), loc);
  tile.addArgument(b.getIndexType(), loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&tile);
  body(b, loop.getMBlock(), loop.getNBlock());
}
