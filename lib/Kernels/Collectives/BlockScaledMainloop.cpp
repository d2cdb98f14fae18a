//===- BlockScaledMainloop.cpp - the FP8 block-scaled GEMM mainloop -------===//
#include "BlockScaledMainloop.h"
#include "../MoeKernelUtil.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cassert>

using namespace mlir;
using namespace megamoe::collectives;
namespace ws = mlir::warpspec;

namespace {
using megamoe::moe::indexConst;
using megamoe::moe::indexToI32;
using megamoe::moe::i32Const;

/// The element a weight-scale load reads: one float, or with two scales per
/// tile the pair as one 8-byte vector.
Type weightScalesType(OpBuilder &b, const MainloopPhase &c) {
  Type f32 = b.getF32Type();
  if (c.bScalesPerTile == 1)
    return f32;
  return VectorType::get({c.bScalesPerTile}, f32);
}

/// The weight scales of one (tile, K block): entry `index` (i64) of the
/// tile's scale row `row` (a pointer to weightScalesType elements).
SmallVector<Value, 2> loadWeightScales(OpBuilder &b, Location loc,
                                       const MainloopPhase &c, Value row,
                                       Value index) {
  Type type = weightScalesType(b, c);
  if (c.bScalesPerTile == 1)
    return {megamoe::moe::loadAt(b, loc, type, row, index)};
  Value all = megamoe::moe::loadAt(b, loc, type, row, index,
                                   /*align=*/4 * c.bScalesPerTile);
  SmallVector<Value, 2> out;
  for (int64_t i = 0; i < c.bScalesPerTile; ++i)
    out.push_back(vector::ExtractOp::create(b, loc, all, ArrayRef<int64_t>{i}));
  return out;
}
/// The 128-row weight-scale block of tile nBlock's first column (i32):
/// nBlock * BLOCK_N / 128 (a straddling tile's may start mid-block).
Value firstScaleBlock(OpBuilder &b, Location loc, const MainloopConfig &c,
                      Value nBlock) {
  if (!c.straddlesScaleBlocks)
    return megamoe::moe::blockStart(b, loc, nBlock, c.blockN / 128);
  return arith::DivUIOp::create(
      b, loc, megamoe::moe::blockStart(b, loc, nBlock, c.blockN),
      i32Const(b, loc, 128));
}
} // namespace

MainloopConfig MainloopConfig::fromPlan(const megamoe::config::KernelPlan &plan,
                                        int64_t k) {
  MainloopConfig m;
  m.blockM = plan.blockM;
  m.blockN = plan.blockN;
  m.blockK = plan.blockK;
  m.kBlocks = k / plan.blockK;
  m.stages = plan.stages;
  m.releaseLag = plan.releaseLag;
  m.releaseFence = plan.releaseFence;
  m.producerWarps =
      plan.producerRole().warpEnd - plan.producerRole().warpBegin;
  m.consumerWarps = 0;
  // A column block is one MMA n (config::columnBlockRows).
  m.columnBlocks = megamoe::config::columnBlocks(plan.blockN);
  m.rowBlocks = plan.rowBlocks;
  m.bBlocks = plan.splitN ? 2 : m.columnBlocks;
  m.clusterM = plan.clusterM;
  m.bWeightTiles = plan.bWeightTiles;
  m.scalePrefetch = plan.scalePrefetch;
  m.aScaleGroups = plan.aScaleGroups;
  m.swapAB = plan.swapAB;
  m.straddlesScaleBlocks = megamoe::config::straddlesScaleBlocks(plan.blockN);
  for (const megamoe::config::RolePlan &r : plan.roles)
    if (r.mma)
      m.consumerWarps += r.warpEnd - r.warpBegin;
  return m;
}

SmallVector<Value, 4> MainloopConfig::bCoords(OpBuilder &b, Location loc,
                                              Value k0, Value row) const {
  if (!bWeightTiles)
    return {k0, row};
  using megamoe::config::kWeightTileK;
  using megamoe::config::kWeightTileRows;
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32).getResult();
  };
  return {c(0), arith::RemUIOp::create(b, loc, row, c(kWeightTileRows)),
          arith::DivUIOp::create(b, loc, k0, c(kWeightTileK)),
          arith::DivUIOp::create(b, loc, row, c(kWeightTileRows))};
}

void MainloopConfig::interleaveWeightScales(MLIRContext *ctx, int64_t g) {
  bScalesPerTile = 2;
  AffineExpr col = getAffineDimExpr(0, ctx);
  bScaleMap = AffineMap::get(1, 0, col.floorDiv(g) % 2, ctx);
}

TileOperands megamoe::collectives::groupedTileOperands(
    OpBuilder &b, Location loc, const MainloopConfig &c, Value aDesc,
    Value aScalesDesc, Value bDesc, Value aRow, Value nBlock, Value expert,
    int64_t n) {
  TileOperands t{aDesc, aScalesDesc, bDesc};
  t.aRow = aRow;
  t.bRow = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, expert, i32Const(b, loc, n)),
      megamoe::moe::blockStart(b, loc, nBlock, c.blockN));
  if (c.columnBlocks == 2)
    t.bRow1 = arith::AddIOp::create(b, loc, t.bRow,
                                    i32Const(b, loc, c.bBlockRows()));
  return t;
}

Value megamoe::collectives::groupedWeightScalesRow(OpBuilder &b, Location loc,
                                                   const MainloopConfig &c,
                                                   Value expert, Value nBlock,
                                                   int64_t n, int64_t k) {
  return arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, expert, i32Const(b, loc, n / 128)),
          firstScaleBlock(b, loc, c, nBlock)),
      i32Const(b, loc, k / 128));
}

StraddlingScales megamoe::collectives::groupedStraddlingScales(
    OpBuilder &b, Location loc, const MainloopConfig &c, Value nBlock,
    int64_t n, int64_t k) {
  if (!c.straddlesScaleBlocks)
    return {};
  assert(c.blockN % 64 == 0 && "a straddling tile starts at 0 or 64 mod 128");
  Value first = megamoe::moe::blockStart(b, loc, nBlock, c.blockN);
  Value within = arith::RemUIOp::create(b, loc, first, i32Const(b, loc, 128));
  StraddlingScales s;
  s.shift = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, within,
                                  i32Const(b, loc, 0));
  Value block = firstScaleBlock(b, loc, c, nBlock);
  Value hasNext = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult,
      arith::AddIOp::create(b, loc, block, i32Const(b, loc, 1)),
      i32Const(b, loc, n / 128));
  s.second = arith::SelectOp::create(b, loc, hasNext,
                                     i32Const(b, loc, k / 128),
                                     i32Const(b, loc, 0));
  return s;
}

BlockScaledMainloop BlockScaledMainloop::create(OpBuilder &b, Location loc,
                                                const MainloopConfig &c) {
  MLIRContext *ctx = b.getContext();
  Type fp8 = b.getType<Float8E4M3FNType>();
  unsigned st = static_cast<unsigned>(c.stages);
  BlockScaledMainloop m;
  m.cfg = c;
  // 128B-swizzled K-major tiles (one swizzle atom of BLOCK_K fp8 per row),
  // 1024-byte aligned so every slot starts on a swizzle atom.
  m.aTiles = ws::SmemAllocOp::create(
      b, loc, ws::SmemType::get(ctx, {c.blockM, c.blockK}, fp8, st, 1024, 128),
      "a_tiles", IntegerAttr());
  for (int64_t i = 0; i < c.bBlocks; ++i)
    m.bTiles.push_back(ws::SmemAllocOp::create(
        b, loc,
        ws::SmemType::get(ctx, {c.bBlockRows(), c.blockK}, fp8, st, 1024, 128),
        i ? "b_tiles" + std::to_string(i) : std::string("b_tiles"),
        IntegerAttr()));
  // [BLOCK_M] scales per slot, or [groups, BLOCK_M] (one TMA box of the
  // groups' rows of the MN-major scales).
  SmallVector<int64_t, 2> scalesShape{c.blockM};
  if (c.aScaleGroups > 1)
    scalesShape.insert(scalesShape.begin(), c.aScaleGroups);
  m.aScales = ws::SmemAllocOp::create(
      b, loc, ws::SmemType::get(ctx, scalesShape, b.getF32Type(), st, 128, 0),
      "a_scales", IntegerAttr());
  m.ring = ws::PipelineCreateOp::create(
      b, loc, ws::PipelineType::get(ctx, st), "ab",
      static_cast<uint32_t>(c.producerWarps),
      static_cast<uint32_t>(c.consumerWarps),
      llvm::to_vector(llvm::concat<Value>(ValueRange{m.aTiles}, m.bTiles,
                                          ValueRange{m.aScales})),
      IntegerAttr(),
      c.clusterM > 1 ? b.getI32IntegerAttr(static_cast<int32_t>(c.clusterM))
                     : IntegerAttr());
  return m;
}

Type BlockScaledMainloop::accumulatorType(MLIRContext *ctx) const {
  // Swapped: 64 weight rows x all BLOCK_M activation rows.
  return ws::AccType::get(ctx, 64, cfg.swapAB ? cfg.blockM : cfg.bBlockRows(),
                          Float32Type::get(ctx));
}

/// The K blocks a tile walks: `range`, or all of the phase's.
static std::pair<Value, Value> kBounds(OpBuilder &b, Location loc,
                                       const MainloopPhase &phase,
                                       const KRange &range) {
  if (range.begin)
    return {range.begin, range.end};
  return {indexConst(b, loc, 0), indexConst(b, loc, phase.kBlocks)};
}

void BlockScaledMainloop::produceTile(OpBuilder &b, Location loc, Value warp,
                                      const TileOperands &t,
                                      const MainloopPhase &phase,
                                      const KRange &range) const {
  assert(phase.bBlocks <= cfg.bBlocks && "more B blocks than the ring has");
  assert(phase.aScaleGroups <= cfg.aScaleGroups &&
         "more activation-scale groups than the ring's slots hold");
  auto isWarp = [&](OpBuilder &ob, int64_t w) -> Value {
    return arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq, warp,
                                 indexConst(ob, loc, w));
  };
  auto [kBegin, kEnd] = kBounds(b, loc, phase, range);
  scf::ForOp::create(
      b, loc, kBegin, kEnd, indexConst(b, loc, 1), ValueRange{},
      [&](OpBuilder &kb, Location l, Value kBlock, ValueRange) {
        Value kb32 = indexToI32(kb, l, kBlock);
        Value k0 = arith::MulIOp::create(kb, l, kb32,
                                         i32Const(kb, l, cfg.blockK));
        Value stage = ws::ProducerAcquireOp::create(kb, l, ring);
        // The A scales' row of K block k: k, or k * groups (their first);
        // the phase's box fills the first `groups` rows of the slot.
        Value scalesRow =
            phase.aScaleGroups > 1
                ? arith::MulIOp::create(kb, l, kb32,
                                        i32Const(kb, l, phase.aScaleGroups))
                      .getResult()
                : kb32;
        // One branch per warp: its copy and its commit, whose transaction
        // bytes the ring derives from that copy.
        auto loadAndCommit = [&](OpBuilder &ob, Value desc, ValueRange coords,
                                 Value buffer) {
          ws::TmaLoadOp::create(ob, l, desc, coords, buffer, stage, ring,
                                IntegerAttr(), IntegerAttr());
          ws::ProducerCommitOp::create(ob, l, ring, stage, IntegerAttr());
        };
        // In a cluster each B column block comes in clusterM boxes: shared
        // by the cluster, this CTA's box multicast to all (warpspec.tma.load
        // multicast picks the box by cluster rank); else all of them here.
        // Either way the stage receives the whole column block: the bytes
        // returned. `commit`: each branch commits its own copies.
        auto loadClusterB = [&](OpBuilder &ob, Value buffer, Value bRow,
                                bool commit = true) -> int64_t {
          auto shared = scf::IfOp::create(ob, l, t.shareB, true);
          OpBuilder mb = shared.getThenBodyBuilder();
          ws::TmaLoadOp::create(
              mb, l, t.bDesc, cfg.bCoords(mb, l, k0, bRow), buffer, stage, ring,
              IntegerAttr(),
              mb.getI32IntegerAttr(static_cast<int32_t>(cfg.clusterM)));
          if (commit)
            ws::ProducerCommitOp::create(mb, l, ring, stage, IntegerAttr());
          OpBuilder ob2 = shared.getElseBodyBuilder();
          int64_t rows = cfg.bBlockRows() / cfg.clusterM;
          int64_t bytes = 0;
          for (int64_t i = 0; i < cfg.clusterM; ++i) {
            Value row = arith::AddIOp::create(ob2, l, bRow,
                                              i32Const(ob2, l, i * rows));
            bytes += ws::TmaLoadOp::create(
                         ob2, l, t.bDesc, cfg.bCoords(ob2, l, k0, row), buffer,
                         stage, ring,
                         i ? ob2.getI64IntegerAttr(i * rows * cfg.blockK)
                           : IntegerAttr(),
                         IntegerAttr())
                         .getDeliveredBytes();
          }
          if (commit)
            ws::ProducerCommitOp::create(ob2, l, ring, stage, IntegerAttr());
          return bytes;
        };
        auto loadB = [&](OpBuilder &ob, Value buffer, Value bRow) {
          if (cfg.clusterM > 1)
            loadClusterB(ob, buffer, bRow);
          else
            loadAndCommit(ob, t.bDesc, cfg.bCoords(ob, l, k0, bRow), buffer);
        };
        if (cfg.producerWarps == 1) {
          // One warp issues every copy of the stage and one commit for all
          // their bytes, stated: a cluster's B copies sit in the branches
          // of shareB, where the commit cannot see them.
          int64_t bytes =
              ws::TmaLoadOp::create(kb, l, t.aDesc, ValueRange{k0, t.aRow},
                                    aTiles, stage, ring, IntegerAttr(),
                                    IntegerAttr())
                  .getDeliveredBytes() +
              ws::TmaLoadOp::create(kb, l, t.aScalesDesc,
                                    ValueRange{t.aRow, scalesRow}, aScales,
                                    stage, ring, IntegerAttr(), IntegerAttr())
                  .getDeliveredBytes();
          for (int64_t j = 0; j < phase.bBlocks; ++j) {
            Value bRow = j ? t.bRow1 : t.bRow;
            if (cfg.clusterM > 1)
              bytes += loadClusterB(kb, bTiles[j], bRow, /*commit=*/false);
            else
              bytes += ws::TmaLoadOp::create(
                           kb, l, t.bDesc, cfg.bCoords(kb, l, k0, bRow),
                           bTiles[j], stage, ring, IntegerAttr(), IntegerAttr())
                           .getDeliveredBytes();
          }
          ws::ProducerCommitOp::create(
              kb, l, ring, stage,
              kb.getI32IntegerAttr(static_cast<int32_t>(bytes)));
          scf::YieldOp::create(kb, l);
          return;
        }
        if (cfg.producerWarps == 2) {
          // Two warps (the other two of the warpgroup dispatch): A and its
          // scales, then the B block(s); one commit each for all its bytes.
          assert(cfg.clusterM == 1 && "two producer warps have no cluster");
          auto ifA = scf::IfOp::create(kb, l, isWarp(kb, 0), true);
          OpBuilder ab = ifA.getThenBodyBuilder();
          ws::TmaLoadOp::create(ab, l, t.aDesc, ValueRange{k0, t.aRow}, aTiles,
                                stage, ring, IntegerAttr(), IntegerAttr());
          ws::TmaLoadOp::create(ab, l, t.aScalesDesc, ValueRange{t.aRow, scalesRow},
                                aScales, stage, ring, IntegerAttr(),
                                IntegerAttr());
          ws::ProducerCommitOp::create(ab, l, ring, stage, IntegerAttr());
          OpBuilder bb = ifA.getElseBodyBuilder();
          for (int64_t j = 0; j < phase.bBlocks; ++j)
            ws::TmaLoadOp::create(bb, l, t.bDesc,
                                  cfg.bCoords(bb, l, k0, j ? t.bRow1 : t.bRow),
                                  bTiles[j], stage, ring, IntegerAttr(),
                                  IntegerAttr());
          ws::ProducerCommitOp::create(bb, l, ring, stage, IntegerAttr());
          scf::YieldOp::create(kb, l);
          return;
        }
        auto ifA = scf::IfOp::create(kb, l, isWarp(kb, 0), true);
        OpBuilder ab = ifA.getThenBodyBuilder();
        loadAndCommit(ab, t.aDesc, ValueRange{k0, t.aRow}, aTiles);
        OpBuilder ea = ifA.getElseBodyBuilder();
        auto ifS = scf::IfOp::create(ea, l, isWarp(ea, 1), true);
        OpBuilder sb = ifS.getThenBodyBuilder();
        loadAndCommit(sb, t.aScalesDesc, ValueRange{t.aRow, scalesRow}, aScales);
        OpBuilder es = ifS.getElseBodyBuilder();
        auto ifB = scf::IfOp::create(es, l, isWarp(es, 2), true);
        OpBuilder bb = ifB.getThenBodyBuilder();
        loadB(bb, bTiles[0], t.bRow);
        OpBuilder eb = ifB.getElseBodyBuilder();
        // Warp 3: the second column block's B tile, or only its arrival.
        if (phase.bBlocks == 2)
          loadB(eb, bTiles[1], t.bRow1);
        else
          ws::ProducerCommitOp::create(eb, l, ring, stage, IntegerAttr());
        scf::YieldOp::create(kb, l);
      });
}

SmallVector<Value, 2>
BlockScaledMainloop::consumeTile(OpBuilder &b, Location loc, Value row,
                                 Value bScales, Value bScalesRow,
                                 int64_t bBlock, const MainloopPhase &phase,
                                 Value releaseCount,
                                 const StraddlingScales &straddle,
                                 const KRange &range,
                                 const MmaTurn &turn) const {
  auto [kBegin, kEnd] = kBounds(b, loc, phase, range);
  Type accType = accumulatorType(b.getContext());
  Value zero = ws::AccZeroOp::create(b, loc, accType);
  AffineMapAttr scaleMap;
  if (phase.bScaleMap)
    scaleMap = AffineMapAttr::get(*phase.bScaleMap);
  // A straddling tile: region c / 64 of the columns uses b_scales[c / 64].
  bool straddles = cfg.straddlesScaleBlocks;
  assert((!straddles || (straddle.shift && cfg.columnBlocks == 1 &&
                         phase.bScalesPerTile == 1 && !phase.bScaleMap)) &&
         "a straddling tile is one column block of plain scales");
  if (straddles)
    scaleMap = AffineMapAttr::get(AffineMap::get(
        1, 0, getAffineDimExpr(0, b.getContext()).floorDiv(64)));
  // With release lag 1 a stage is handed back one K block later, after the
  // next stage's MMA consumed the previous total: its scale reads are then
  // retired, so the release needs no async-proxy fence (`reads_retired`).
  // With release lag 0 the release right after the MMA keeps the fence,
  // unless the plan drops it (KernelPlan::releaseFence: the row scales are
  // read before the MMA, so nothing of the slot is read after its wait).
  bool lag = cfg.releaseLag == 1;
  // One accumulator per (row block, column block), row block major.
  int64_t blocks = cfg.columnBlocks;
  int64_t rowBlocks = phase.rowBlocks ? phase.rowBlocks : cfg.rowBlocks;
  assert(rowBlocks <= cfg.rowBlocks && "at most the ring's row blocks");
  int64_t accumulators = rowBlocks * blocks;
  // Column block j's weight scales of K block `kBlock` are K / 128 entries
  // after block j - 1's (and so are a straddling tile's second block's).
  // The tile's scale row is addressed once; the K loop indexes it with the
  // 64-bit K block, so that the loads of an unrolled group share one address
  // register (immediate offsets) instead of a 32-bit sum, a widening multiply
  // and an add per load (~10 instructions per K block on every math warp).
  int64_t loadedBlocks = straddles ? 2 : blocks;
  Value scaleRow = megamoe::moe::elementPtr(
      b, loc, bScales, weightScalesType(b, phase), bScalesRow);
  Type i64 = b.getI64Type();
  SmallVector<Value, 2> blockEntries{Value()};
  for (int64_t j = 1; j < loadedBlocks; ++j)
    blockEntries.push_back(
        straddles ? arith::ExtUIOp::create(b, loc, i64, straddle.second)
                        .getResult()
                  : megamoe::moe::i64Const(b, loc, j * phase.kBlocks));
  auto loadScales = [&](OpBuilder &ob, Location l, Value kBlock) {
    Value entry = arith::IndexCastUIOp::create(ob, l, i64, kBlock);
    SmallVector<Value> all;
    for (int64_t j = 0; j < loadedBlocks; ++j)
      llvm::append_range(
          all, loadWeightScales(
                   ob, l, phase, scaleRow,
                   j ? arith::AddIOp::create(ob, l, entry, blockEntries[j])
                           .getResult()
                     : entry));
    return all;
  };
  int64_t perBlock = phase.bScalesPerTile;
  auto splitScales = [&](OpBuilder &ob, Location l, ValueRange all) {
    SmallVector<SmallVector<Value, 3>, 2> sb;
    if (straddles) {
      // Regions [0, 64) and [128, 192) are the first and second block's;
      // [64, 128) the second's when the tile starts 64 columns into the
      // first.
      Value middle =
          arith::SelectOp::create(ob, l, straddle.shift, all[1], all[0]);
      sb.push_back({all[0], middle, all[1]});
      return sb;
    }
    for (int64_t j = 0; j < blocks; ++j)
      sb.emplace_back(all.slice(j * perBlock, perBlock));
    return sb;
  };
  // Iteration values: the totals, the stage to release (lag 1), then with
  // scalePrefetch this K block's weight scales (read one K block earlier).
  SmallVector<Value> inits(accumulators, zero);
  // The first row of each row block in the A tile.
  SmallVector<Value, 2> blockRows{row};
  for (int64_t r = 1; r < rowBlocks; ++r)
    blockRows.push_back(
        arith::AddIOp::create(b, loc, row, indexConst(b, loc, 64 * r)));
  if (lag)
    inits.push_back(indexConst(b, loc, 0));
  int64_t scalesAt = inits.size();
  if (cfg.scalePrefetch)
    llvm::append_range(inits, loadScales(b, loc, kBegin));
  // One K block: `iter` holds the iteration values, `known` the stage when
  // the loop is unrolled over the stages (MainloopConfig::unrollStages).
  auto step = [&](OpBuilder &kb, Location l, Value kBlock, ValueRange iter,
                  std::optional<int64_t> known) {
    // Without prefetch the weight scales are read before waiting so their
    // latency hides behind the TMA wait (which a full stage does not have);
    // with it, the next K block's are read here (the last K block reads its
    // own again: in bounds, unused).
    SmallVector<Value> current, upcoming;
    if (cfg.scalePrefetch) {
      current.assign(iter.begin() + scalesAt, iter.end());
      Value next = arith::MinUIOp::create(
          kb, l, arith::AddIOp::create(kb, l, kBlock, indexConst(kb, l, 1)),
          indexConst(kb, l, phase.kBlocks - 1));
      upcoming = loadScales(kb, l, next);
    } else {
      current = loadScales(kb, l, kBlock);
    }
    SmallVector<SmallVector<Value, 3>, 2> sb = splitScales(kb, l, current);
    auto wait = ws::ConsumerWaitOp::create(kb, l, ring);
    if (known)
      wait.setKnownStage(*known);
    Value stage = wait;
    // One block after the other: each MMA's scratch accumulator is
    // promoted (and dead) before the next block's MMA starts.
    // Unrolled with two blocks (or one of 192: 2 x 96 registers), the
    // hoisted descriptor words would not fit beside the totals: their K
    // steps are added where they issue (at BLOCK_N 192, cluster 1, K 2048:
    // 124 bytes of spills without).
    bool remat = known && (accumulators == 2 || straddles);
    SmallVector<Value> next;
    for (int64_t r = 0; r < rowBlocks; ++r) {
      for (int64_t j = 0; j < blocks; ++j) {
        auto mma = ws::MmaBlockScaledOp::create(
            kb, l, aTiles, stage, blockRows[r],
            bTiles[blocks == 1 ? bBlock : j], aScales, iter[r * blocks + j],
            sb[j], turn.turn, turn.pass, scaleMap, remat, cfg.swapAB,
            // A phase of fewer groups than the ring's slots reads their
            // first.
            phase.aScaleGroups != cfg.aScaleGroups
                ? kb.getI64IntegerAttr(phase.aScaleGroups)
                : IntegerAttr());
        next.push_back(mma);
      }
    }
    if (!lag) {
      ws::ConsumerReleaseOp::create(kb, l, ring, stage, releaseCount,
                                    /*reads_retired=*/!cfg.releaseFence);
    } else if (known && *known > 0) {
      // Inside an unrolled group the previous K block exists.
      ws::ConsumerReleaseOp::create(kb, l, ring, iter[accumulators],
                                    releaseCount, /*reads_retired=*/true);
      next.push_back(stage);
    } else {
      Value notFirst = arith::CmpIOp::create(
          kb, l, arith::CmpIPredicate::ugt, kBlock, kBegin);
      auto releaseIf = scf::IfOp::create(kb, l, notFirst, false);
      OpBuilder rb = releaseIf.getThenBodyBuilder();
      ws::ConsumerReleaseOp::create(rb, l, ring, iter[accumulators],
                                    releaseCount, /*reads_retired=*/true);
      next.push_back(stage);
    }
    llvm::append_range(next, upcoming);
    return next;
  };
  // Unrolled over the stages, K block k of a group uses stage k: every tile
  // (and skipped tile) of the ring consumes a multiple of the stage count,
  // so the role's iterator is a multiple of it at each tile's start.
  int64_t unroll = cfg.unrollStages ? cfg.stages : 1;
  assert((unroll == 1 || phase.kBlocks % unroll == 0) &&
         "unrollStages needs K blocks that are a multiple of the stages");
  auto kLoop = scf::ForOp::create(
      b, loc, kBegin, kEnd, indexConst(b, loc, unroll), inits,
      [&](OpBuilder &kb, Location l, Value kBlock, ValueRange iter) {
        SmallVector<Value> values(iter.begin(), iter.end());
        for (int64_t j = 0; j < unroll; ++j) {
          Value k = j ? arith::AddIOp::create(kb, l, kBlock,
                                              indexConst(kb, l, j))
                            .getResult()
                      : kBlock;
          values = step(kb, l, k, values,
                        unroll > 1 ? std::optional<int64_t>(j) : std::nullopt);
        }
        scf::YieldOp::create(kb, l, values);
      });
  if (lag)
    ws::ConsumerReleaseOp::create(b, loc, ring, kLoop.getResult(accumulators),
                                  releaseCount, /*reads_retired=*/true);
  return SmallVector<Value, 2>(kLoop.getResults().take_front(accumulators));
}

void BlockScaledMainloop::skipTile(OpBuilder &b, Location loc,
                                   const MainloopPhase &phase,
                                   const KRange &range) const {
  // No MMA reads the stage, so it goes back at once (no lag, no proxy
  // fence: this warpgroup's generic accesses did not touch it).
  auto [kBegin, kEnd] = kBounds(b, loc, phase, range);
  scf::ForOp::create(
      b, loc, kBegin, kEnd, indexConst(b, loc, 1), ValueRange{},
      [&](OpBuilder &kb, Location l, Value, ValueRange) {
        Value stage = ws::ConsumerWaitOp::create(kb, l, ring);
        ws::ConsumerReleaseOp::create(kb, l, ring, stage, Value(),
                                      /*reads_retired=*/true);
        scf::YieldOp::create(kb, l);
      });
}

void BlockScaledMainloop::skipTileStages(OpBuilder &b, Location loc,
                                         const MainloopPhase &phase,
                                         int64_t tiles) const {
  ws::ConsumerSkipOp::create(b, loc, ring, phase.kBlocks * tiles);
}
