//===- Epilogues.cpp - what a GEMM does with a finished tile --------------===//
#include "Epilogues.h"
#include "../MoeKernelUtil.h"

#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Kernels/MoeMath.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cassert>
#include <functional>

using namespace mlir;
using namespace megamoe::collectives;
namespace ws = mlir::warpspec;
namespace moe = megamoe::moe;

namespace {
constexpr int64_t kWarpgroupRows = 64;
using megamoe::config::kOutputPanelBytes;

using megamoe::moe::indexConst;
using megamoe::moe::indexToI32;
using megamoe::moe::i32Const;
} // namespace

namespace {
/// The epilogue's `slots` x [blockM, width] tile of `element`:
/// 128B-swizzled (conflict-free acc.store), hence 1024-byte aligned.
Value declareTile(OpBuilder &b, Location loc, int64_t blockM, int64_t width,
                  int64_t slots, Type element) {
  return ws::SmemAllocOp::create(
      b, loc,
      ws::SmemType::get(b.getContext(), {blockM, width}, element,
                        static_cast<unsigned>(slots), 1024, kOutputPanelBytes),
      "d_tiles", IntegerAttr());
}
} // namespace

Value EpilogueTile::allocatePanels(OpBuilder &b, Location loc, int64_t blockM,
                                   int64_t columns, int64_t panelColumns,
                                   Type element) {
  assert(panelColumns * element.getIntOrFloatBitWidth() / 8 ==
             kOutputPanelBytes &&
         "a panel is one swizzle span");
  assert(columns % panelColumns == 0 && "the tile is whole panels");
  // Slot p is the bytes of panel p of the one-slot [blockM, columns] tile.
  return declareTile(b, loc, blockM, panelColumns, columns / panelColumns,
                     element);
}

Value EpilogueTile::allocateTransposed(OpBuilder &b, Location loc,
                                       int64_t blockM, int64_t warpgroups,
                                       int64_t panelColumns, Type element) {
  assert(panelColumns * element.getIntOrFloatBitWidth() / 8 ==
             kOutputPanelBytes &&
         "a row is one swizzle span");
  return declareTile(b, loc, blockM, panelColumns, warpgroups, element);
}

Value EpilogueTile::allocate(OpBuilder &b, Location loc, int64_t blockM,
                             int64_t blockN, Type element) {
  return declareTile(b, loc, blockM, blockN, 1, element);
}

namespace {
/// The SMEM-tile-then-TMA sequence of an epilogue: once the TMA stores
/// (issued where `isStorer`) that read the SMEM to be written have done so
/// (all but the `inFlight` most recent commit groups), the warpgroup writes
/// it (`writeTile`, generic proxy), makes the writes visible to the async
/// proxy, meets, and the storer issues `issueStores`.
void stageAndStore(OpBuilder &b, Location loc, const EpilogueTile &e,
                   Value isStorer, function_ref<void(OpBuilder &)> writeTile,
                   function_ref<void(OpBuilder &)> issueStores,
                   Value owned = {}, unsigned inFlight = 0) {
  moe::ifThen(b, loc, isStorer, [&](OpBuilder &ib) {
    ws::TmaStoreWaitOp::create(ib, loc, inFlight, true);
  });
  ws::BarrierSyncOp::create(b, loc, e.barrier);
  writeTile(b);
  ws::FenceAsyncSharedOp::create(b, loc);
  ws::BarrierSyncOp::create(b, loc, e.barrier);
  moe::ifThen(b, loc,
              owned ? arith::AndIOp::create(b, loc, isStorer, owned)
                    : isStorer,
              issueStores);
}
} // namespace

namespace {
/// The pieces of the SMEM tile's slot width a warpgroup's tile goes
/// through, in column order, each with its first column in the tile: the
/// column blocks (`totals`), each halved until a piece is one slot wide, or
/// sliced into slots where a block is not a power of two of them (BLOCK_N
/// 192): a register renumbering either way, no data movement.
SmallVector<std::pair<Value, int64_t>, 8>
tilePieces(OpBuilder &b, Location loc, const EpilogueTile &e,
           ValueRange totals, const TilePosition &at) {
  int64_t width = cast<ws::SmemType>(e.tile.getType()).getShape()[1];
  int64_t blockColumns = at.blockN / static_cast<int64_t>(totals.size());
  assert(blockColumns % width == 0 && "a column block is whole slots");
  bool halve = llvm::isPowerOf2_64(blockColumns / width);
  SmallVector<std::pair<Value, int64_t>, 8> pieces;
  std::function<void(Value, int64_t)> split = [&](Value acc, int64_t first) {
    auto type = cast<ws::AccType>(acc.getType());
    if (type.getN() == width) {
      pieces.push_back({acc, first});
      return;
    }
    if (!halve) {
      auto sliceType = ws::AccType::get(b.getContext(), type.getM(), width,
                                        type.getElementType());
      for (int64_t c = 0; c < type.getN(); c += width)
        pieces.push_back(
            {ws::AccSliceOp::create(b, loc, sliceType, acc, c), first + c});
      return;
    }
    int64_t half = type.getN() / 2;
    auto halfType = ws::AccType::get(b.getContext(), type.getM(), half,
                                     type.getElementType());
    auto halves =
        ws::AccDeinterleaveOp::create(b, loc, halfType, halfType, acc, half);
    split(halves.getFirst(), first);
    split(halves.getSecond(), first + half);
  };
  for (auto [i, total] : llvm::enumerate(totals))
    split(total, static_cast<int64_t>(i) * blockColumns);
  return pieces;
}
} // namespace

void megamoe::collectives::storeTileWithTma(OpBuilder &b, Location loc,
                                            const EpilogueTile &e,
                                            ValueRange totals, Value desc,
                                            const TilePosition &at,
                                            Value isStorer, Value owned) {
  Value row = indexConst(b, loc, kWarpgroupRows * e.rowBlock);
  auto tileType = cast<ws::SmemType>(e.tile.getType());
  const int64_t slots = tileType.getSlots();
  SmallVector<std::pair<Value, int64_t>, 8> pieces =
      tilePieces(b, loc, e, totals, at);
  assert(static_cast<int64_t>(pieces.size()) % slots == 0 &&
         "every tile starts at slot 0");
  // Piece j (one panel) goes through slot j % slots, so its writes wait
  // only for the store of piece j - slots to have read that slot: the
  // stores of the other slots' pieces stay in flight (slots - 1 commit
  // groups) while the warpgroup converts and writes the next one.
  SmallVector<Value, 4> slotIndex;
  for (int64_t s = 0; s < slots; ++s)
    slotIndex.push_back(indexConst(b, loc, s));
  for (auto [j, entry] : llvm::enumerate(pieces)) {
    auto [piece, first] = entry;
    Value slot = slotIndex[j % slots];
    stageAndStore(
        b, loc, e, isStorer,
        [&, piece = piece](OpBuilder &wb) {
          ws::AccStoreOp::create(wb, loc, piece, e.tile, slot, row);
        },
        [&, first = first](OpBuilder &sb) {
          Value m0 = arith::AddIOp::create(
              sb, loc, at.row0,
              i32Const(sb, loc,
                       kWarpgroupRows * at.rowBlock.value_or(e.rowBlock)));
          Value n0 = moe::blockStart(sb, loc, at.nBlock, at.blockN);
          if (first)
            n0 = arith::AddIOp::create(sb, loc, n0, i32Const(sb, loc, first));
          ws::TileStoreOp::create(sb, loc, e.tile, slot, row, kWarpgroupRows,
                                  desc, n0, m0);
        },
        owned, static_cast<unsigned>(slots - 1));
  }
}

void megamoe::collectives::storeTransposedTileWithTma(
    OpBuilder &b, Location loc, const EpilogueTile &e, Value total, Value desc,
    const TilePosition &at, Value isStorer) {
  auto tileType = cast<ws::SmemType>(e.tile.getType());
  int64_t rows = tileType.getShape()[0];
  int64_t columns = tileType.getShape()[1];
  Value slot = indexConst(b, loc, e.warpgroup);
  Value zero = indexConst(b, loc, 0);
  stageAndStore(
      b, loc, e, isStorer,
      [&](OpBuilder &wb) {
        auto store = ws::AccStoreOp::create(wb, loc, total, e.tile, slot, zero);
        store.setTranspose(true);
      },
      [&](OpBuilder &sb) {
        Value n0 = arith::AddIOp::create(
            sb, loc, moe::blockStart(sb, loc, at.nBlock, at.blockN),
            i32Const(sb, loc, columns * e.warpgroup));
        ws::TileStoreOp::create(sb, loc, e.tile, slot, zero, rows, desc, n0,
                                at.row0);
      });
}

void megamoe::collectives::drainTileStores(OpBuilder &b, Location loc,
                                           Value isStorer) {
  auto drainIf = scf::IfOp::create(b, loc, isStorer, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(drainIf.thenBlock());
  ws::TmaStoreWaitOp::create(b, loc, 0u, false);
}

namespace {
/// The destination of one of a thread's rows in the combine scatter.
struct ScatterTarget {
  Value valid; // i1: rank in [0, R), token in [0, T), slot in [0, K')
  Value dst;   // the chunk's 16 bytes in the source rank's combine row
};
} // namespace

/// Thread t of the warpgroup copies 16-byte chunk t % C of rows t / C + (128
/// / C) p of each piece (C chunks per row of the SMEM tile: 16 for a
/// 128-column tile, 8 for 64). The sources are read before the barrier
/// (they do not depend on the GEMM), and all SMEM reads of a piece are
/// issued before its stores so that a thread has 4-8 NVLink writes in
/// flight. The leading barrier of the next piece or tile keeps acc.store
/// from overwriting rows still being read.
void megamoe::collectives::scatterTileToPeers(OpBuilder &b, Location loc,
                                              const EpilogueTile &e,
                                              ValueRange totals,
                                              const CombineScatter &c,
                                              const TilePosition &at) {
  constexpr int64_t kChunkBytes = 16, kThreads = 128;
  SmallVector<std::pair<Value, int64_t>, 4> pieces =
      tilePieces(b, loc, e, totals, at);
  const int64_t width = cast<ws::SmemType>(e.tile.getType()).getShape()[1];
  const int64_t chunksPerRow = width * 2 / kChunkBytes;
  const int64_t rowsPerPass = kThreads / chunksPerRow;
  const int64_t passes = kWarpgroupRows / rowsPerPass;
  assert(kThreads % chunksPerRow == 0 && kWarpgroupRows % rowsPerPass == 0 &&
         "scatter needs a 64- or 128-column BF16 tile");
  Type i32 = b.getI32Type(), v4i32 = moe::vector16BytesType(b);
  Value zeroStage = indexConst(b, loc, 0);

  // This thread's chunk and first row (tile rows, i32).
  Value warp = indexToI32(b, loc, ws::RoleWarpIdOp::create(b, loc));
  Value tid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warp, i32Const(b, loc, 32)),
      moe::laneId(b, loc));
  Value chunk =
      arith::RemUIOp::create(b, loc, tid, i32Const(b, loc, chunksPerRow));
  Value threadRow =
      arith::DivUIOp::create(b, loc, tid, i32Const(b, loc, chunksPerRow));
  Value tileRow = arith::AddIOp::create(
      b, loc, i32Const(b, loc, kWarpgroupRows * e.rowBlock), threadRow);

  // Sources: pool_source[row] = (rank, token, slot); -1 on padding rows.
  // The totals are row block at.rowBlock of the tile (staged through the
  // warpgroup's rows of the SMEM tile), or the warpgroup's.
  Value poolRow0 = arith::AddIOp::create(
      b, loc, at.row0,
      arith::AddIOp::create(
          b, loc,
          i32Const(b, loc, kWarpgroupRows * at.rowBlock.value_or(e.rowBlock)),
          threadRow));
  Value colBytes = moe::widen(
      b, loc,
      arith::AddIOp::create(
          b, loc, moe::blockStart(b, loc, at.nBlock, at.blockN * 2),
          arith::MulIOp::create(b, loc, chunk, i32Const(b, loc, kChunkBytes))));
  Value zero = i32Const(b, loc, 0);
  SmallVector<ScatterTarget> targets;
  for (int64_t p = 0; p < passes; ++p) {
    Value poolRow = arith::AddIOp::create(b, loc, poolRow0,
                                          i32Const(b, loc, p * rowsPerPass));
    // pool_source rows are (rank, token, slot) triples of i32.
    Value source = moe::elementPtr(b, loc, c.poolSource, i32,
                                   arith::MulIOp::create(
                                       b, loc, poolRow, i32Const(b, loc, 3)));
    Value rank = moe::loadAt(b, loc, i32, source, i32Const(b, loc, 0), 4);
    Value token = moe::loadAt(b, loc, i32, source, i32Const(b, loc, 1), 4);
    Value slot = moe::loadAt(b, loc, i32, source, i32Const(b, loc, 2), 4);
    Value valid = arith::AndIOp::create(
        b, loc,
        arith::AndIOp::create(
            b, loc, moe::inRange(b, loc, rank, zero, i32Const(b, loc, c.ranks)),
            moe::inRange(b, loc, token, zero, i32Const(b, loc, c.tokens))),
        moe::inRange(b, loc, slot, zero, i32Const(b, loc, c.topk)));
    // Invalid rows are not stored; their rank/token/slot become 0 so that
    // the peer-table read stays in bounds.
    auto safe = [&](Value v) {
      return arith::SelectOp::create(b, loc, valid, v, zero).getResult();
    };
    Value remote = ws::PeerPtrOp::create(b, loc, c.combine.getType(),
                                         c.combine, safe(rank), c.peerOffsets);
    Value combineRow = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, moe::widen(b, loc, safe(slot)),
                              moe::i64Const(b, loc, c.tokens)),
        moe::widen(b, loc, safe(token)));
    Value dst = moe::byteOffset(
        b, loc, moe::rowPtr(b, loc, remote, combineRow, c.n * 2), colBytes);
    targets.push_back({valid, dst});
  }

  for (auto [piece, first] : pieces) {
    ws::BarrierSyncOp::create(b, loc, e.barrier);
    ws::AccStoreOp::create(b, loc, piece, e.tile, zeroStage,
                           indexConst(b, loc, kWarpgroupRows * e.rowBlock));
    // stmatrix and the reads below are both generic proxy: no fence.
    ws::BarrierSyncOp::create(b, loc, e.barrier);

    SmallVector<Value> data;
    for (int64_t p = 0; p < passes; ++p) {
      Value row = p ? arith::AddIOp::create(b, loc, tileRow,
                                            i32Const(b, loc, p * rowsPerPass))
                          .getResult()
                    : tileRow;
      data.push_back(
          ws::TileLoadOp::create(b, loc, v4i32, e.tile, zeroStage, row, chunk));
    }
    for (int64_t p = 0; p < passes; ++p) {
      auto ifValid = scf::IfOp::create(b, loc, targets[p].valid, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifValid.thenBlock());
      // The piece's columns follow the first piece's in the combine row.
      Value dst = first ? moe::byteOffset(b, loc, targets[p].dst,
                                          moe::i64Const(b, loc, first * 2))
                        : targets[p].dst;
      moe::store(b, loc, data[p], dst, kChunkBytes);
    }
  }
}

//===----------------------------------------------------------------------===//
// SwiGLU + requantization
//===----------------------------------------------------------------------===//

namespace {
constexpr int64_t kActivationColumns = 64; // per column block of the pair
constexpr unsigned kActivationSwizzle = 64; // a 64-byte e4m3 row

/// An acc.map of `accs` with per-row `rows` whose body `fn` computes one
/// element from the f32 block arguments.
Value mapAcc(OpBuilder &b, Location loc, ValueRange accs, ValueRange rows,
             function_ref<Value(OpBuilder &, ValueRange)> fn) {
  auto op = ws::AccMapOp::create(b, loc, accs.front().getType(), accs, rows);
  OpBuilder::InsertionGuard g(b);
  Block *body = b.createBlock(&op.getBody());
  for (size_t i = 0; i < accs.size() + rows.size(); ++i)
    body->addArgument(b.getF32Type(), loc);
  ws::AccYieldOp::create(b, loc, fn(b, body->getArguments()));
  return op.getResult();
}

/// The same for per-row values (acc_rows.map).
Value mapRows(OpBuilder &b, Location loc, ValueRange rows,
              function_ref<Value(OpBuilder &, ValueRange)> fn) {
  auto op = ws::AccRowsMapOp::create(b, loc, rows.front().getType(), rows);
  OpBuilder::InsertionGuard g(b);
  Block *body = b.createBlock(&op.getBody());
  for (size_t i = 0; i < rows.size(); ++i)
    body->addArgument(b.getF32Type(), loc);
  ws::AccYieldOp::create(b, loc, fn(b, body->getArguments()));
  return op.getResult();
}
} // namespace

namespace {
/// The values whose e4m3 conversion gives the bytes of
/// buildRequantInput(act, sf) for every element of `acts`: the products by
/// 1 / sf, unless a warp holds an element where that cannot be shown
/// (buildRequantIsAmbiguous, about one warp in thirty), which then divides.
/// The divisions were the epilogue's latency: each IEEE division branches
/// to a slow path, so ptxas could not interleave a thread's elements.
SmallVector<Value, 2> requantize(OpBuilder &b, Location loc, ValueRange acts,
                                 Value sf) {
  Value rcp = mapRows(b, loc, ValueRange{sf},
                      [&](OpBuilder &mb, ValueRange v) {
                        return megamoe::buildRequantReciprocal(mb, loc, v[0]);
                      });
  SmallVector<Value, 2> products, ambiguous;
  for (Value act : acts) {
    products.push_back(mapAcc(b, loc, ValueRange{act}, ValueRange{rcp, sf},
                              [&](OpBuilder &mb, ValueRange v) {
                                return megamoe::buildRequantProduct(
                                    mb, loc, v[0], v[1], v[2]);
                              }));
    ambiguous.push_back(mapAcc(b, loc, ValueRange{products.back()},
                               ValueRange{rcp, sf},
                               [&](OpBuilder &mb, ValueRange v) {
                                 return megamoe::buildRequantIsAmbiguous(
                                     mb, loc, v[0], v[1], v[2]);
                               }));
  }
  Value divide = ws::AccAnyOp::create(b, loc, ambiguous);
  SmallVector<Type, 2> types(acts.size(), acts.front().getType());
  auto choice = scf::IfOp::create(b, loc, types, divide, /*else=*/true);
  {
    OpBuilder tb = choice.getThenBodyBuilder();
    SmallVector<Value, 2> exact;
    for (Value act : acts)
      exact.push_back(mapAcc(tb, loc, ValueRange{act}, ValueRange{sf},
                             [&](OpBuilder &mb, ValueRange v) {
                               return megamoe::buildRequantInput(mb, loc, v[0],
                                                                 v[1]);
                             }));
    scf::YieldOp::create(tb, loc, exact);
    OpBuilder eb = choice.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, products);
  }
  return SmallVector<Value, 2>(choice.getResults().begin(),
                               choice.getResults().end());
}
} // namespace

Value SwiGLURequant::allocate(OpBuilder &b, Location loc, int64_t blockM) {
  return ws::SmemAllocOp::create(
      b, loc,
      ws::SmemType::get(b.getContext(), {blockM, kActivationColumns},
                        b.getType<Float8E4M3FNType>(), 2, 1024,
                        kActivationSwizzle),
      "act_tiles", IntegerAttr());
}

namespace {
/// The warpgroup's first pool row of the tile starting at `row0` (i32).
Value warpgroupRow0(OpBuilder &b, Location loc, const EpilogueTile &e,
                    Value row0) {
  return arith::AddIOp::create(b, loc, row0,
                               i32Const(b, loc, kWarpgroupRows * e.rowBlock));
}
} // namespace

Value megamoe::collectives::loadSwiGLURowWeights(OpBuilder &b, Location loc,
                                                 const EpilogueTile &e,
                                                 const SwiGLURequant &s,
                                                 Value row0) {
  auto rowsType =
      ws::AccRowsType::get(b.getContext(), kWarpgroupRows, b.getF32Type());
  return ws::AccRowsLoadOp::create(
      b, loc, rowsType,
      ws::GlobalOffsetOp::create(b, loc, s.rowWeights,
                                 warpgroupRow0(b, loc, e, row0)));
}

Value megamoe::collectives::swigluBlock(OpBuilder &b, Location loc,
                                        Value gateUp, Value weights,
                                        const SwiGLURequant &s) {
  auto halfType = ws::AccType::get(b.getContext(), kWarpgroupRows,
                                   kActivationColumns, b.getF32Type());
  auto split = ws::AccDeinterleaveOp::create(b, loc, halfType, halfType,
                                             gateUp, config::kGateUpInterleave);
  return mapAcc(b, loc, ValueRange{split.getFirst(), split.getSecond()},
                ValueRange{weights}, [&](OpBuilder &mb, ValueRange v) {
                  return megamoe::buildSwiGLU(mb, loc, v[0], v[1], v[2],
                                              s.clamp, s.fastMath);
                });
}

Value megamoe::collectives::allocateRowExchange(OpBuilder &b, Location loc) {
  return ws::SmemAllocOp::create(
      b, loc,
      ws::SmemType::get(b.getContext(), {kWarpgroupRows}, b.getF32Type(), 2,
                        16, 0),
      "row_exchange", IntegerAttr());
}

void megamoe::collectives::requantStoreTile(
    OpBuilder &b, Location loc, const EpilogueTile &e, ValueRange acts,
    int64_t firstBlock, const SwiGLURequant &s, Value tileRow0, Value mBlock,
    Value pair, Value isStorer) {
  bool split = acts.size() == 1;
  assert((split ? bool(s.exchange) : acts.size() == 2) &&
         "a SwiGLU tile is a pair of column blocks");
  Value row = indexConst(b, loc, kWarpgroupRows * e.rowBlock);
  Value row0 = warpgroupRow0(b, loc, e, tileRow0);
  auto rowsType =
      ws::AccRowsType::get(b.getContext(), kWarpgroupRows, b.getF32Type());
  auto scaleOf = [&](OpBuilder &ob, Value amax) {
    return mapRows(ob, loc, ValueRange{amax},
                   [&](OpBuilder &mb, ValueRange v) {
                     return megamoe::buildRequantScale(mb, loc, v[0]);
                   });
  };
  // The scales, MN-major: outScales[group][row].
  auto storeScales = [&](OpBuilder &ob, Value sf, Value group) {
    Value sfIndex = arith::AddIOp::create(
        ob, loc,
        arith::MulIOp::create(ob, loc, indexToI32(ob, loc, group),
                              i32Const(ob, loc, s.rows)),
        row0);
    ws::AccRowsStoreOp::create(
        ob, loc, sf, ws::GlobalOffsetOp::create(ob, loc, s.outScales, sfIndex));
  };
  assert((s.requantBlock == 2 * kActivationColumns ||
          s.requantBlock == kActivationColumns) &&
         "a requantization group is the pair or one column block");
  bool perBlock = s.requantBlock == kActivationColumns;
  SmallVector<Value, 2> quantized;
  // (scale, group) to store once the tile's stores are issued.
  SmallVector<std::pair<Value, Value>, 2> scales;
  if (perBlock) {
    // Per 64 columns: each column block is a group of its own, group
    // 2 pair + block of the activation row.
    for (size_t i = 0; i < acts.size(); ++i) {
      Value amax = ws::AccRowReduceOp::create(
          b, loc, rowsType, ws::AccReduceKind::absmax, ValueRange{acts[i]});
      Value sf = scaleOf(b, amax);
      quantized.push_back(requantize(b, loc, ValueRange{acts[i]}, sf).front());
      Value group = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, pair, indexConst(b, loc, 2)),
          indexConst(b, loc, firstBlock + i));
      scales.push_back({sf, group});
    }
  } else {
    // One scale per row over the pair's 128 columns.
    Value amax = ws::AccRowReduceOp::create(b, loc, rowsType,
                                            ws::AccReduceKind::absmax, acts);
    if (split) {
      // The other block's amax: both store theirs, meet, read the other's,
      // meet again (the slot is rewritten at the next tile). max is exact in
      // any order, so this equals one reduction over both blocks.
      ws::AccRowsStoreSharedOp::create(b, loc, amax, s.exchange,
                                       indexConst(b, loc, firstBlock));
      ws::BarrierSyncOp::create(b, loc, s.pairBarrier);
      Value other = ws::AccRowsLoadSharedOp::create(
          b, loc, rowsType, s.exchange, indexConst(b, loc, 1 - firstBlock));
      ws::BarrierSyncOp::create(b, loc, s.pairBarrier);
      amax = mapRows(b, loc, ValueRange{amax, other},
                     [&](OpBuilder &mb, ValueRange v) -> Value {
                       return arith::MaxNumFOp::create(mb, loc, v[0], v[1]);
                     });
    }
    Value sf = scaleOf(b, amax);
    quantized = requantize(b, loc, acts, sf);
    // Both warpgroups of split columns hold the same scales: the first writes.
    if (firstBlock == 0)
      scales.push_back({sf, pair});
  }

  // acc.store converts to e4m3 (cvt.rn.satfinite.e4m3x2).
  Value col0 = moe::blockStart(b, loc, pair, 2 * kActivationColumns);
  stageAndStore(
      b, loc, e, isStorer,
      [&](OpBuilder &wb) {
        for (size_t i = 0; i < quantized.size(); ++i)
          ws::AccStoreOp::create(wb, loc, quantized[i], e.tile,
                                 indexConst(wb, loc, firstBlock + i), row);
      },
      [&](OpBuilder &sb) {
        for (size_t i = 0; i < quantized.size(); ++i) {
          int64_t h = firstBlock + i;
          ws::TileStoreOp::create(
              sb, loc, e.tile, indexConst(sb, loc, h), row, kWarpgroupRows,
              s.out,
              arith::AddIOp::create(sb, loc, col0,
                                    i32Const(sb, loc, h * kActivationColumns)),
              row0);
        }
      });
  for (auto [sf, group] : scales)
    storeScales(b, sf, group);
  if (!s.arrivals)
    return;
  // The arrival: every thread's scale stores are ordered before the
  // warpgroup barrier; the storer's TMA stores have completed (wait without
  // .read: the writes are performed); then one release by lane 0 of the
  // storer warp.
  ws::BarrierSyncOp::create(b, loc, e.barrier);
  moe::ifThen(b, loc, isStorer, [&](OpBuilder &ib) {
    ws::TmaStoreWaitOp::create(ib, loc, 0u, false);
    // The TMA (async-proxy) writes before the generic release.
    ws::FenceAsyncGlobalOp::create(ib, loc);
    Value lane0 = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq,
                                        moe::laneId(ib, loc),
                                        i32Const(ib, loc, 0));
    moe::ifThen(ib, loc, lane0, [&](OpBuilder &lb) {
      Value counter = ws::GlobalOffsetOp::create(
          lb, loc, s.arrivals, indexToI32(lb, loc, mBlock));
      ws::CounterAddOp::create(lb, loc, counter, i32Const(lb, loc, 1),
                               ws::Scope::gpu);
    });
  });
}
