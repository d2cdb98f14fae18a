//===- WarpSpecTileOps.cpp - tile loop, SMEM views, epilogue tiles --------===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "WarpSpecVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::warpspec;
using namespace mlir::warpspec::checks;

//===----------------------------------------------------------------------===//
// tile_loop
//===----------------------------------------------------------------------===//

namespace {
/// Every role walks the same tiles: a role that skipped one would leave its
/// partners waiting on a pipeline stage forever. A kernel may walk several
/// tile spaces one after the other (the fused L1 + L2 kernel): then every
/// role walks the same sequence of tile loops (`tile_loop` or `wave_loop`),
/// and `loop` must be the same op, with the same m_blocks value and
/// attributes, as the loop at its position in every other role.
LogicalResult verifySameTileLoops(Operation *loop) {
  auto kernel = loop->getParentOfType<KernelOp>();
  auto role = loop->getParentOfType<RoleOp>();
  if (!kernel || !role)
    return success();
  auto loopsOf = [](Operation *root) {
    SmallVector<Operation *> loops;
    root->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<TileLoopOp, WaveLoopOp>(op))
        loops.push_back(op);
    });
    return loops;
  };
  SmallVector<Operation *> mine = loopsOf(role);
  size_t position = llvm::find(mine, loop) - mine.begin();
  WalkResult walk = kernel.walk([&](RoleOp other) {
    if (other == role)
      return WalkResult::advance();
    SmallVector<Operation *> theirs = loopsOf(other);
    if (theirs.empty())
      return WalkResult::advance();
    if (theirs.size() != mine.size()) {
      loop->emitOpError("is one of ")
          << mine.size() << " tile loops of role \"" << role.getName()
          << "\", role \"" << other.getName() << "\" walks " << theirs.size()
          << ": every role of a kernel must walk the same tiles";
      return WalkResult::interrupt();
    }
    Operation *peer = theirs[position];
    if (peer->getName() != loop->getName() ||
        peer->getOperands() != loop->getOperands() ||
        peer->getAttrDictionary() != loop->getAttrDictionary()) {
      loop->emitOpError("walks another tile order than the tile loop at ")
          << peer->getLoc()
          << ": every role of a kernel must walk the same tiles (same "
             "m_blocks value, n_blocks, raster, cluster and k_split, or the "
             "same wave loop)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// A tile loop's region (block arguments `args`, already typed) and
/// attribute dictionary: the end of both loops' custom syntax.
ParseResult parseLoopBody(OpAsmParser &parser, OperationState &result,
                          ArrayRef<OpAsmParser::Argument> args) {
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}
} // namespace

// warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 { ... }
ParseResult TileLoopOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument, 2> args;
  OpAsmParser::UnresolvedOperand mBlocks;
  int64_t nBlocks = 0, raster = 0;
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("m_blocks") || parser.parseLParen() ||
      parser.parseOperand(mBlocks) || parser.parseRParen() ||
      parser.parseKeyword("n_blocks") || parser.parseInteger(nBlocks) ||
      parser.parseKeyword("raster") || parser.parseInteger(raster))
    return failure();
  int64_t cluster = 0, kSplit = 0;
  if (succeeded(parser.parseOptionalKeyword("cluster")) &&
      parser.parseInteger(cluster))
    return failure();
  int64_t kSplitTiles = 0;
  if (succeeded(parser.parseOptionalKeyword("k_split")) &&
      (parser.parseInteger(kSplit) || parser.parseKeyword("tiles") ||
       parser.parseInteger(kSplitTiles)))
    return failure();
  size_t expected = kSplit ? 3 : 2;
  if (args.size() != expected)
    return parser.emitError(parser.getCurrentLocation(),
                            kSplit ? "expects three block arguments (m-block, "
                                     "n-block, split unit)"
                                   : "expects two block arguments (m-block, "
                                     "n-block)");
  Builder &b = parser.getBuilder();
  for (OpAsmParser::Argument &arg : args)
    arg.type = b.getIndexType();
  if (kSplit)
    args[2].type = b.getI32Type();
  if (parser.resolveOperand(mBlocks, b.getI32Type(), result.operands))
    return failure();
  result.addAttribute(getNBlocksAttrName(result.name),
                      b.getI64IntegerAttr(nBlocks));
  result.addAttribute(getRasterAttrName(result.name),
                      b.getI64IntegerAttr(raster));
  if (cluster)
    result.addAttribute(getClusterAttrName(result.name),
                        b.getI64IntegerAttr(cluster));
  if (kSplit) {
    result.addAttribute(getKSplitAttrName(result.name),
                        b.getI64IntegerAttr(kSplit));
    result.addAttribute(getKSplitTilesAttrName(result.name),
                        b.getI64IntegerAttr(kSplitTiles));
  }
  return parseLoopBody(parser, result, args);
}

void TileLoopOp::print(OpAsmPrinter &p) {
  p << " (" << getMBlock() << ", " << getNBlock();
  if (Value unit = getUnit())
    p << ", " << unit;
  p << ") m_blocks(" << getMBlocks() << ") n_blocks " << getNBlocks()
    << " raster " << getRaster() << " ";
  if (std::optional<uint64_t> cluster = getCluster())
    p << "cluster " << *cluster << " ";
  if (std::optional<uint64_t> kSplit = getKSplit())
    p << "k_split " << *kSplit << " tiles " << getKSplitTiles().value_or(0)
      << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getNBlocksAttrName(), getRasterAttrName(), getClusterAttrName(),
       getKSplitAttrName(), getKSplitTilesAttrName()});
}

LogicalResult TileLoopOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  Block &body = getBody().front();
  std::optional<uint64_t> kSplit = getKSplit();
  if (!kSplit && (body.getNumArguments() != 2 ||
                  !llvm::all_of(body.getArgumentTypes(),
                                [](Type t) { return t.isIndex(); })))
    return emitOpError("body must take two index arguments (m-block, "
                       "n-block)");
  if (kSplit && (body.getNumArguments() != 3 ||
                 !body.getArgument(0).getType().isIndex() ||
                 !body.getArgument(1).getType().isIndex() ||
                 !body.getArgument(2).getType().isInteger(32)))
    return emitOpError("with k_split the body must take (m-block: index, "
                       "n-block: index, split unit: i32)");
  if (kSplit.has_value() != getKSplitTiles().has_value())
    return emitOpError("k_split and k_split_tiles come together (the split "
                       "units' count and the capacity of their partial sums)");
  if (kSplit && getCluster())
    return emitOpError("k_split and cluster exclude each other: the CTAs of "
                       "a cluster share each stage, the units of a split "
                       "tile do not run in one cluster");
  int64_t n = getNBlocks(), raster = getRaster();
  if (raster > n)
    return emitOpError("raster ")
           << raster << " is more than n_blocks " << n
           << " (a raster is a group of n-blocks of the grid)";
  if (std::optional<uint64_t> ctas = getCluster())
    if (failed(verifyKernelCluster(*this, *ctas, "tile loop")))
      return failure();
  return verifySameTileLoops(*this);
}

//===----------------------------------------------------------------------===//
// wave_loop
//===----------------------------------------------------------------------===//

// warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32]
//     raster [16, 8] wave 8 lag 1 { ... }
ParseResult WaveLoopOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument, 3> args;
  OpAsmParser::UnresolvedOperand mBlocks;
  int64_t wave = 0, lag = 0;
  Builder &b = parser.getBuilder();
  auto parsePair = [&](StringRef keyword,
                       SmallVectorImpl<int64_t> &values) -> ParseResult {
    if (parser.parseKeyword(keyword))
      return failure();
    return parser.parseCommaSeparatedList(
        OpAsmParser::Delimiter::Square,
        [&]() { return parser.parseInteger(values.emplace_back()); });
  };
  SmallVector<int64_t, 2> nBlocks, raster;
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("m_blocks") || parser.parseLParen() ||
      parser.parseOperand(mBlocks) || parser.parseRParen() ||
      failed(parsePair("n_blocks", nBlocks)) ||
      failed(parsePair("raster", raster)) || parser.parseKeyword("wave") ||
      parser.parseInteger(wave) || parser.parseKeyword("lag") ||
      parser.parseInteger(lag))
    return failure();
  if (args.size() != 3)
    return parser.emitError(parser.getCurrentLocation(),
                            "expects three block arguments (phase, m-block, "
                            "n-block)");
  for (OpAsmParser::Argument &arg : args)
    arg.type = b.getIndexType();
  if (parser.resolveOperand(mBlocks, b.getI32Type(), result.operands))
    return failure();
  result.addAttribute(getNBlocksAttrName(result.name),
                      b.getDenseI64ArrayAttr(nBlocks));
  result.addAttribute(getRasterAttrName(result.name),
                      b.getDenseI64ArrayAttr(raster));
  result.addAttribute(getWaveAttrName(result.name), b.getI64IntegerAttr(wave));
  result.addAttribute(getLagAttrName(result.name), b.getI64IntegerAttr(lag));
  return parseLoopBody(parser, result, args);
}

void WaveLoopOp::print(OpAsmPrinter &p) {
  auto pair = [&](ArrayRef<int64_t> values) {
    p << "[";
    llvm::interleaveComma(values, p);
    p << "]";
  };
  p << " (" << getPhase() << ", " << getMBlock() << ", " << getNBlock()
    << ") m_blocks(" << getMBlocks() << ") n_blocks ";
  pair(getNBlocks());
  p << " raster ";
  pair(getRaster());
  p << " wave " << getWave() << " lag " << getLag() << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getNBlocksAttrName(), getRasterAttrName(),
                                      getWaveAttrName(), getLagAttrName()});
}

LogicalResult WaveLoopOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  Block &body = getBody().front();
  if (body.getNumArguments() != 3 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError("body must take three index arguments (phase, "
                       "m-block, n-block)");
  ArrayRef<int64_t> n = getNBlocks(), raster = getRaster();
  if (n.size() != 2 || raster.size() != 2)
    return emitOpError("walks two phases: n_blocks and raster need two "
                       "values each, got ")
           << n.size() << " and " << raster.size();
  for (int64_t phase = 0; phase < 2; ++phase) {
    if (n[phase] <= 0 || raster[phase] <= 0)
      return emitOpError("phase ")
             << phase << " needs positive n_blocks and raster, got " << n[phase]
             << " and " << raster[phase];
    if (raster[phase] > n[phase])
      return emitOpError("phase ") << phase << "'s raster " << raster[phase]
                                   << " is more than its n_blocks " << n[phase];
  }
  return verifySameTileLoops(*this);
}

//===----------------------------------------------------------------------===//
// smem.view
//===----------------------------------------------------------------------===//

SmemAllocOp SmemViewOp::getAllocation() {
  Value source = getSource();
  while (auto view = source.getDefiningOp<SmemViewOp>())
    source = view.getSource();
  return source.getDefiningOp<SmemAllocOp>();
}

LogicalResult SmemViewOp::verify() {
  SmemType source = getSource().getType(), view = getResult().getType();
  if (!getAllocation())
    return emitOpError("source must be a warpspec.smem.alloc or another "
                       "view of one");
  int64_t sourceBytes = source.getSlots() * source.getSlotStride();
  int64_t viewBytes = view.getSlots() * view.getSlotStride();
  if (viewBytes > sourceBytes)
    return emitOpError("view of ")
           << viewBytes << " B (" << view.getSlots() << " slot(s) of "
           << view.getSlotStride() << " B) does not fit in the " << sourceBytes
           << " B of its source";
  if (source.getAlign() % view.getAlign() != 0)
    return emitOpError("view asks for ")
           << view.getAlign() << "-byte alignment but its source is only "
           << source.getAlign() << "-byte aligned";
  return success();
}

//===----------------------------------------------------------------------===//
// tile.store / tile.load
//===----------------------------------------------------------------------===//

namespace {
/// A 2-D epilogue tile and its column panels (one swizzle span of bytes, or
/// the whole row when unswizzled).
struct PanelShape {
  int64_t rows, rowBytes, panelColumns;
};

FailureOr<PanelShape> getPanelShape(Operation *op, SmemType tile) {
  if (tile.getShape().size() != 2)
    return op->emitOpError("tile must be 2-d [rows, columns], got ") << tile;
  int64_t eb = elementBytes(tile.getElementType());
  PanelShape p;
  p.rows = tile.getShape()[0];
  p.rowBytes = tile.getShape()[1] * eb;
  int64_t sw = tile.getSwizzle();
  if (sw && p.rowBytes % sw != 0)
    return op->emitOpError("tile rows span ")
           << p.rowBytes << " B, not a multiple of the swizzle span " << sw;
  p.panelColumns = (sw ? sw : p.rowBytes) / eb;
  return p;
}
} // namespace

LogicalResult TileStoreOp::verify() {
  if (failed(verifyInsideRole(*this)))
    return failure();
  SmemType tile = getBuffer().getType();
  FailureOr<PanelShape> p = getPanelShape(*this, tile);
  if (failed(p))
    return failure();
  TmaDescType desc = getDesc().getType();
  if (desc.getElementType() != tile.getElementType())
    return emitOpError("descriptor element type ")
           << desc.getElementType() << " does not match the tile's "
           << tile.getElementType();
  if (desc.getSwizzle() != tile.getSwizzle())
    return emitOpError("descriptor swizzle ")
           << desc.getSwizzle() << " does not match the tile's "
           << tile.getSwizzle();
  ArrayRef<int64_t> box = desc.getBox();
  if (box.size() != 2 || box[0] != getRows() || box[1] != p->panelColumns)
    return emitOpError("descriptor box must be [")
           << getRows() << ", " << p->panelColumns
           << "] (the stored rows x one column panel)";
  if (getRows() > p->rows)
    return emitOpError("stores ")
           << getRows() << " rows of a tile of " << p->rows;
  return verifyStageForBuffer(*this, getStage(), tile);
}

LogicalResult TileLoadOp::verify() {
  SmemType tile = getBuffer().getType();
  if (failed(getPanelShape(*this, tile)))
    return failure();
  auto type = cast<VectorType>(getResult().getType());
  int64_t bytes =
      type.getNumElements() * elementBytes(type.getElementType());
  if (bytes != 16)
    return emitOpError("loads one 16-byte chunk; result type ")
           << type << " has " << bytes << " bytes";
  return verifyStageForBuffer(*this, getStage(), tile);
}
