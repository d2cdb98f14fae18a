//===- MoeLayout.cpp - moe_layout: exchange counts, lay out the pool ------===//
//
// Kernel 2 of the unfused schedule (docs/UnfusedSchedule.md), one CTA:
//  1. every thread takes global experts e (block-stride): send_count[e] goes
//     to the owner rank's recv_count[rank][e % L]; send_count[e] is zeroed
//     (workspace words are restored within the call);
//  2. fence.sc.sys, block sync, thread 0 crosses the ranks' barrier
//     (barriers[0]), block sync: every peer's counts and src_token_index
//     entries for this call have landed;
//  3. warp 0 lays out the pool: lane i owns local experts [i c, (i + 1) c)
//     (c = ceil(L / 32)), loads all their counts at once, sums each over
//     the source ranks and pads it to BLOCK_M; the in-lane prefix of the
//     padded sizes plus a warp scan (shfl.up) of the lanes' sums gives each
//     expert's first row; each lane writes its experts' pool_row_start rows
//     and pool_block_expert entries; lane 0 writes pool_info.
//     With half blocks (expert_align 64 < BLOCK_M 128) the segments are
//     padded to 64 rows and pool_block_expert has one entry per 64-row unit
//     (what moe_pull reads); a second scan of the m-blocks per expert
//     (ceil(padded / 128)) places each expert's m-blocks in pool_block_row:
//     the first row, bit 31 set when the block is a 64-row half block (the
//     expert's last, when its padded rows leave 64); pool_info[0] counts the
//     m-blocks that lie wholly inside the pool. With expert blocks (the L2
//     GEMM's, config::kExpertBlockRows) a third scan places each expert's
//     ceil(padded / 256) blocks in pool_expert_block: the first row and the
//     64-row units of the block's m-blocks that are inside the pool;
//     pool_info[2] counts them.
//
// Counts from peers are clamped to T * K (what one rank can send), and rows
// past the pool's P rows are not used (pool_info says min(rows, P)), so
// corrupted counts cannot make a later kernel leave its regions. A pool that
// overflows (only possible when a token lists one expert twice and K > L)
// is counted in errors[1].
//
//===----------------------------------------------------------------------===//
#include "Collectives/PhaseProfile.h"
#include "MoeKernelUtil.h"
#include "MoeStages.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::moe;
namespace ws = mlir::warpspec;

namespace {

constexpr int64_t kThreads = 128;
// One CTA of 128 threads: registers are plentiful. Each lane holds its
// ceil(L / 32) experts' counts, padded sizes and prefixes at once (V4-Pro's
// 12 per lane with half blocks spilled 40 bytes at 64 registers).
constexpr int64_t kMaxRegisters = 128;
constexpr int64_t kWarpSize = 32;


/// Shapes of the kernel, from the layer and the plan: `align` rows per
/// pool_block_expert entry (= blockM, or 64 with half blocks).
struct LayoutShape {
  int64_t E, L, R, slotsPerRank, blockM, poolRows, align;
  /// The L2 GEMM's expert blocks (Variant::l2ExpertBlocks; half blocks).
  bool expertBlocks = false;
  /// The L1 kernel's clusters of 2 (Variant::l1Cluster; half blocks): the
  /// m-block table pairs each expert's m-blocks (pairedBlockPosition).
  bool pairBlocks = false;
  bool halfBlocks() const { return align < blockM; }
};


/// Step 1: publish this rank's per-expert counts to the experts' owners.
void sendCounts(OpBuilder &b, Location loc, const LayoutShape &s,
                const BoundKernel &args, int64_t ctaThreads) {
  forLoop(
      b, loc, threadIdX(b, loc), i32Const(b, loc, s.E),
      i32Const(b, loc, ctaThreads), [&](OpBuilder &lb, Value e) {
        Value count = loadAt(lb, loc, lb.getI32Type(), args.arg("send_count"), e, 4);
        Value owner =
            arith::DivUIOp::create(lb, loc, e, i32Const(lb, loc, s.L));
        Value local =
            arith::RemUIOp::create(lb, loc, e, i32Const(lb, loc, s.L));
        Value index = arith::AddIOp::create(
            lb, loc,
            arith::MulIOp::create(lb, loc, args.arg("rank"), i32Const(lb, loc, s.L)),
            local);
        Value mine =
            elementPtr(lb, loc, args.arg("recv_count"), lb.getI32Type(), index);
        Value remote =
            ws::PeerPtrOp::create(lb, loc, mine, owner, args.arg("peer_offsets"));
        store(lb, loc, count, remote, 4);
        storeAt(lb, loc, i32Const(lb, loc, 0), args.arg("send_count"), e, 4);
      });
}

/// min(recv_count[r][l], T * K): what source rank r sends to expert l.
Value receivedFrom(OpBuilder &b, Location loc, const LayoutShape &s,
                   const BoundKernel &args, Value r, Value l) {
  Value index = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, r, i32Const(b, loc, s.L)), l);
  Value count = loadAt(b, loc, b.getI32Type(), args.arg("recv_count"), index, 4);
  return umin(b, loc, count, i32Const(b, loc, s.slotsPerRank));
}

/// N_l = sum over source ranks of the (clamped) counts of expert l. The
/// R loads are independent straight-line code (no loop, no branch), so that
/// all of a lane's experts' counts are in flight at once: the layout is one
/// memory round trip, not one per expert.
Value expertRows(OpBuilder &b, Location loc, const LayoutShape &s,
                 const BoundKernel &args, Value l) {
  Value sum = i32Const(b, loc, 0);
  for (int64_t r = 0; r < s.R; ++r)
    sum = arith::AddIOp::create(
        b, loc, sum, receivedFrom(b, loc, s, args, i32Const(b, loc, r), l));
  return sum;
}

/// Inclusive prefix sum of `value` over the 32 lanes (all lanes active).
Value warpInclusiveScan(OpBuilder &b, Location loc, Value lane, Value value) {
  for (int64_t d = 1; d < kWarpSize; d *= 2) {
    Value up = gpu::ShuffleOp::create(b, loc, value, d, kWarpSize,
                                      gpu::ShuffleMode::UP)
                   .getShuffleResult();
    Value hasSource = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                            lane, i32Const(b, loc, d));
    value = arith::SelectOp::create(
        b, loc, hasSource, arith::AddIOp::create(b, loc, value, up), value);
  }
  return value;
}

/// Expert l owns rows [start, start + padded): its pool_row_start row (one
/// start per source rank, then the first padding row) and the expert of
/// each of its blocks that fits the pool.
void writeExpert(OpBuilder &b, Location loc, const LayoutShape &s,
                 const BoundKernel &args, Value l, Value start, Value padded) {
  Value rowBase = arith::MulIOp::create(b, loc, l, i32Const(b, loc, s.R + 1));
  auto loop = scf::ForOp::create(
      b, loc, i32Const(b, loc, 0), i32Const(b, loc, s.R), i32Const(b, loc, 1),
      ValueRange{start},
      [&](OpBuilder &lb, Location ll, Value r, ValueRange acc) {
        storeAt(lb, ll, acc[0], args.arg("pool_row_start"),
                arith::AddIOp::create(lb, ll, rowBase, r), 4);
        Value next = arith::AddIOp::create(lb, ll, acc[0],
                                           receivedFrom(lb, ll, s, args, r, l));
        scf::YieldOp::create(lb, ll, next);
      });
  storeAt(b, loc, loop.getResult(0), args.arg("pool_row_start"),
          arith::AddIOp::create(b, loc, rowBase, i32Const(b, loc, s.R)), 4);
  Value bm = i32Const(b, loc, s.align);
  Value firstBlock = arith::DivUIOp::create(b, loc, start, bm);
  Value endBlock =
      umin(b, loc,
           arith::DivUIOp::create(
               b, loc, arith::AddIOp::create(b, loc, start, padded), bm),
           i32Const(b, loc, s.poolRows / s.align));
  forLoop(b, loc, firstBlock, endBlock, i32Const(b, loc, 1),
          [&](OpBuilder &lb, Value block) {
            storeAt(lb, loc, l, args.arg("pool_block_expert"), block, 4);
          });
}

/// Where block j of an expert goes in its table: `first` + j, or where
/// the paired order puts it (pairedBlockPosition).
using BlockPosition = function_ref<Value(OpBuilder &, Location, Value j)>;

/// The loop of both block tables over an expert's rows [start, start +
/// padded) in blocks of `blockRows`, the first the layout's `first`-th:
/// block j starts at `row` = start + j blockRows with `left` = padded - j
/// blockRows of the expert's rows from there; `block(row, left)` gives
/// whether it is written and its entry (built in the loop body); written
/// entries go to `table`[first + j], or [`position`(j)] when given. Returns
/// how many are written.
Value writeBlockTable(
    OpBuilder &b, Location loc, Value table, Value first, Value blocks,
    Value start, Value padded, int64_t blockRows,
    function_ref<std::pair<Value, Value>(OpBuilder &, Location, Value row,
                                         Value left)>
        block,
    BlockPosition position = nullptr) {
  auto loop = scf::ForOp::create(
      b, loc, i32Const(b, loc, 0), blocks, i32Const(b, loc, 1),
      ValueRange{i32Const(b, loc, 0)},
      [&](OpBuilder &lb, Location ll, Value j, ValueRange acc) {
        Value offset =
            arith::MulIOp::create(lb, ll, j, i32Const(lb, ll, blockRows));
        auto [written, entry] =
            block(lb, ll, arith::AddIOp::create(lb, ll, start, offset),
                  arith::SubIOp::create(lb, ll, padded, offset));
        ifThen(lb, ll, written, [&](OpBuilder &tb) {
          Value at = position ? position(tb, ll, j)
                              : arith::AddIOp::create(tb, ll, first, j);
          storeAt(tb, ll, entry, table, at, 4);
        });
        Value count = arith::AddIOp::create(
            lb, ll, acc[0],
            arith::ExtUIOp::create(lb, ll, lb.getI32Type(), written));
        scf::YieldOp::create(lb, ll, count);
      });
  return loop.getResult(0);
}

/// With half blocks: expert l's m-blocks, the `first`-th of the layout on:
/// block j starts at row start + 128 j and is a half block when the padded
/// rows leave it 64. Only blocks wholly inside the pool are written (they are
/// a prefix of the layout's, rows grow with the index); returns how many.
Value writeExpertBlocks(OpBuilder &b, Location loc, const LayoutShape &s,
                        const BoundKernel &args, Value first, Value start,
                        Value padded, Value blocks,
                        BlockPosition position = nullptr) {
  return writeBlockTable(
      b, loc, args.arg("pool_block_row"), first, blocks, start, padded,
      s.blockM,
      [&](OpBuilder &lb, Location ll, Value row,
          Value left) -> std::pair<Value, Value> {
        auto c = [&](int64_t v) { return i32Const(lb, ll, v); };
        Value half = arith::CmpIOp::create(lb, ll, arith::CmpIPredicate::ult,
                                           left, c(s.blockM));
        Value rows = arith::SelectOp::create(lb, ll, half, c(s.align),
                                             c(s.blockM));
        Value inPool = arith::CmpIOp::create(
            lb, ll, arith::CmpIPredicate::ule,
            arith::AddIOp::create(lb, ll, row, rows), c(s.poolRows));
        Value entry = arith::OrIOp::create(
            lb, ll, row,
            arith::SelectOp::create(
                lb, ll, half,
                c(static_cast<int32_t>(config::kHalfBlockBit)), c(0)));
        return {inPool, entry};
      },
      position);
}

/// An expert's `blocks` m-blocks as those in pairs (blocks & ~1) and the
/// odd one out (blocks & 1).
std::pair<Value, Value> pairedAndSingle(OpBuilder &b, Location loc,
                                        Value blocks) {
  Value single = arith::AndIOp::create(b, loc, blocks, i32Const(b, loc, 1));
  return {arith::SubIOp::create(b, loc, blocks, single), single};
}

/// With the L1 kernel's clusters of 2 (a cluster computes m-blocks 2g and
/// 2g + 1, sharing the weight tiles when both are one expert's): the
/// m-block table lists first every expert's m-blocks in pairs (its
/// m-blocks but the last of an odd count, in expert order, from 0), then
/// those last ones (after every pair), so that each pair is one expert's
/// and a cluster shares its weights; the m-blocks are the same, in another
/// order, and each is computed as before. An expert with `pairs` blocks in
/// pairs puts block j at `pairFirst` + j, the one after them at
/// `singleAt`. Its order needs every m-block written (a table with holes
/// would lose blocks): the worst-case pool, which l1-cluster's plan has
/// (a ring has no half blocks).
Value pairedBlockPosition(OpBuilder &b, Location loc, Value j, Value pairs,
                          Value pairFirst, Value singleAt) {
  Value inPair =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, pairs);
  return arith::SelectOp::create(b, loc, inPair,
                                 arith::AddIOp::create(b, loc, pairFirst, j),
                                 singleAt);
}

/// With expert blocks: expert l's blocks of up to 256 rows, the `first`-th
/// of the layout on. Block j starts at row start + 256 j and holds the
/// 64-row units of its two m-blocks (writeExpertBlocks' 2j and 2j + 1) that
/// lie wholly inside the pool, so that the L2 GEMM computes exactly the
/// units the L1 GEMM does; a block with none is not written (such blocks
/// end the layout). Returns how many are written.
Value writeExpertL2Blocks(OpBuilder &b, Location loc, const LayoutShape &s,
                          const BoundKernel &args, Value first, Value start,
                          Value padded, Value blocks) {
  return writeBlockTable(
      b, loc, args.arg("pool_expert_block"), first, blocks, start, padded,
      config::kExpertBlockRows,
      [&](OpBuilder &lb, Location ll, Value row,
          Value left) -> std::pair<Value, Value> {
        auto c = [&](int64_t v) { return i32Const(lb, ll, v); };
        // The rows of its first and second m-block (64 or 128; 0 when the
        // expert's rows end before the second) and whether each lies
        // inside the pool.
        Value rowsA = umin(lb, ll, left, c(s.blockM));
        Value rowsB = arith::SubIOp::create(
            lb, ll, umin(lb, ll, left, c(2 * s.blockM)), rowsA);
        Value pool = c(s.poolRows);
        Value inA = arith::CmpIOp::create(
            lb, ll, arith::CmpIPredicate::ule,
            arith::AddIOp::create(lb, ll, row, rowsA), pool);
        Value inB = arith::CmpIOp::create(
            lb, ll, arith::CmpIPredicate::ule,
            arith::AddIOp::create(
                lb, ll, arith::AddIOp::create(lb, ll, row, c(s.blockM)), rowsB),
            pool);
        Value zero = c(0);
        Value rowsIn = arith::SelectOp::create(
            lb, ll, inA,
            arith::AddIOp::create(
                lb, ll, rowsA,
                arith::SelectOp::create(lb, ll, inB, rowsB, zero)),
            zero);
        Value units =
            arith::DivUIOp::create(lb, ll, rowsIn, c(config::kHalfBlockRows));
        Value written = arith::CmpIOp::create(lb, ll, arith::CmpIPredicate::ugt,
                                              units, zero);
        Value entry = arith::OrIOp::create(
            lb, ll, row,
            arith::ShLIOp::create(lb, ll,
                                  arith::SubIOp::create(lb, ll, units, c(1)),
                                  c(config::kExpertBlockUnitsShift)));
        return {written, entry};
      });
}

/// The value of lane 31 (every lane gets it).
Value lastLane(OpBuilder &b, Location loc, Value value) {
  return gpu::ShuffleOp::create(b, loc, value, kWarpSize - 1, kWarpSize,
                                gpu::ShuffleMode::IDX)
      .getShuffleResult();
}

/// Step 3, run by warp 0: the pool layout of docs/UnfusedSchedule.md.
/// Lane i owns the `per` consecutive local experts [i per, (i + 1) per)
/// (per = ceil(L / 32)): it loads all their counts first (at a clamped,
/// always valid index: no branch between the loads), pads them, sums them
/// in order, and one warp scan of the lanes' sums gives each lane its first
/// row. So the layout waits for memory once, whatever L (one wait per chunk
/// of 32 experts took 0.6-0.8 us each: 5.3 us for V4-Flash's 256 experts,
/// 8.6 us for V4-Pro's 384, bench/RESULTS.md 2026-12-02 "decode").
void layOutPool(OpBuilder &b, Location loc, const LayoutShape &s,
                const BoundKernel &args) {
  Value lane = laneId(b, loc);
  const int64_t per = (s.L + kWarpSize - 1) / kWarpSize;
  Value first = arith::MulIOp::create(b, loc, lane, i32Const(b, loc, per));
  Value lastExpert = i32Const(b, loc, s.L - 1);
  auto roundUp = [&](Value v, int64_t to) {
    return arith::DivUIOp::create(
               b, loc, arith::AddIOp::create(b, loc, v, i32Const(b, loc, to - 1)),
               i32Const(b, loc, to))
        .getResult();
  };
  SmallVector<Value> experts, valid, counts;
  for (int64_t j = 0; j < per; ++j) {
    Value l = arith::AddIOp::create(b, loc, first, i32Const(b, loc, j));
    experts.push_back(l);
    valid.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          l, i32Const(b, loc, s.L)));
    counts.push_back(
        expertRows(b, loc, s, args, umin(b, loc, l, lastExpert)));
  }
  // Each expert's padded rows (0 past L) and, with half blocks, its
  // m-blocks; their in-lane prefix sums, in expert order.
  Value zero = i32Const(b, loc, 0);
  SmallVector<Value> padded, blocks, rowsBefore, blocksBefore;
  SmallVector<Value> l2Blocks, l2BlocksBefore;
  Value laneRows = zero, laneBlocks = zero, laneL2Blocks = zero;
  Value lanePairs = zero, laneSingles = zero;
  for (int64_t j = 0; j < per; ++j) {
    Value rows = arith::SelectOp::create(b, loc, valid[j], counts[j], zero);
    padded.push_back(arith::MulIOp::create(b, loc, roundUp(rows, s.align),
                                           i32Const(b, loc, s.align)));
    rowsBefore.push_back(laneRows);
    laneRows = arith::AddIOp::create(b, loc, laneRows, padded[j]);
    if (s.halfBlocks()) {
      blocks.push_back(roundUp(padded[j], s.blockM));
      blocksBefore.push_back(laneBlocks);
      laneBlocks = arith::AddIOp::create(b, loc, laneBlocks, blocks[j]);
    }
    if (s.pairBlocks) {
      // Its m-blocks in pairs (an even count) and the odd one out (0 or
      // 1); the write loop below recomputes both and keeps running sums
      // (arrays of them per expert spilled in moe_dispatch at V4-Pro).
      auto [paired, single] = pairedAndSingle(b, loc, blocks[j]);
      lanePairs = arith::AddIOp::create(b, loc, lanePairs, paired);
      laneSingles = arith::AddIOp::create(b, loc, laneSingles, single);
    }
    if (s.expertBlocks) {
      l2Blocks.push_back(roundUp(padded[j], config::kExpertBlockRows));
      l2BlocksBefore.push_back(laneL2Blocks);
      laneL2Blocks = arith::AddIOp::create(b, loc, laneL2Blocks, l2Blocks[j]);
    }
  }
  // Exclusive prefix over the lanes = inclusive scan minus the lane's own.
  Value rowsIncl = warpInclusiveScan(b, loc, lane, laneRows);
  Value rowBase = arith::SubIOp::create(b, loc, rowsIncl, laneRows);
  Value totalRows = lastLane(b, loc, rowsIncl);
  Value blockBase, l2BlockBase;
  if (s.halfBlocks()) {
    Value blocksIncl = warpInclusiveScan(b, loc, lane, laneBlocks);
    blockBase = arith::SubIOp::create(b, loc, blocksIncl, laneBlocks);
  }
  if (s.expertBlocks) {
    Value blocksIncl = warpInclusiveScan(b, loc, lane, laneL2Blocks);
    l2BlockBase = arith::SubIOp::create(b, loc, blocksIncl, laneL2Blocks);
  }
  // Paired: the lanes' first paired block and first single, the singles
  // after every pair.
  Value pairBase, singleBase;
  if (s.pairBlocks) {
    Value pairsIncl = warpInclusiveScan(b, loc, lane, lanePairs);
    pairBase = arith::SubIOp::create(b, loc, pairsIncl, lanePairs);
    Value singlesIncl = warpInclusiveScan(b, loc, lane, laneSingles);
    singleBase = arith::AddIOp::create(
        b, loc, lastLane(b, loc, pairsIncl),
        arith::SubIOp::create(b, loc, singlesIncl, laneSingles));
  }
  // Write each expert's rows and blocks; with half blocks count the m-blocks
  // that lie wholly inside the pool (a prefix of the layout's).
  Value laneWritten = zero, laneL2Written = zero;
  // Paired: where the next expert's pairs and single go.
  Value pairAt = pairBase, singleAt = singleBase;
  for (int64_t j = 0; j < per; ++j) {
    Value start = arith::AddIOp::create(b, loc, rowBase, rowsBefore[j]);
    if (!s.halfBlocks()) {
      ifThen(b, loc, valid[j], [&](OpBuilder &tb) {
        writeExpert(tb, loc, s, args, experts[j], start, padded[j]);
      });
      continue;
    }
    Value firstBlock = arith::AddIOp::create(b, loc, blockBase, blocksBefore[j]);
    Value firstL2Block =
        s.expertBlocks
            ? arith::AddIOp::create(b, loc, l2BlockBase, l2BlocksBefore[j])
                  .getResult()
            : Value();
    auto written = scf::IfOp::create(
        b, loc, valid[j],
        [&](OpBuilder &tb, Location tl) {
          writeExpert(tb, tl, s, args, experts[j], start, padded[j]);
          auto paired = [&](OpBuilder &pb, Location pl, Value jb) {
            return pairedBlockPosition(
                pb, pl, jb, pairedAndSingle(pb, pl, blocks[j]).first, pairAt,
                singleAt);
          };
          SmallVector<Value, 2> counts = {writeExpertBlocks(
              tb, tl, s, args, firstBlock, start, padded[j], blocks[j],
              s.pairBlocks ? BlockPosition(paired) : nullptr)};
          if (s.expertBlocks)
            counts.push_back(writeExpertL2Blocks(
                tb, tl, s, args, firstL2Block, start, padded[j], l2Blocks[j]));
          scf::YieldOp::create(tb, tl, counts);
        },
        [&](OpBuilder &eb, Location el) {
          SmallVector<Value, 2> none(s.expertBlocks ? 2 : 1,
                                     i32Const(eb, el, 0));
          scf::YieldOp::create(eb, el, none);
        });
    laneWritten = arith::AddIOp::create(b, loc, laneWritten, written.getResult(0));
    if (s.pairBlocks) {
      auto [paired, single] = pairedAndSingle(b, loc, blocks[j]);
      pairAt = arith::AddIOp::create(b, loc, pairAt, paired);
      singleAt = arith::AddIOp::create(b, loc, singleAt, single);
    }
    if (s.expertBlocks)
      laneL2Written =
          arith::AddIOp::create(b, loc, laneL2Written, written.getResult(1));
  }
  Value writtenBlocks, writtenL2Blocks;
  if (s.halfBlocks())
    writtenBlocks = lastLane(b, loc, warpInclusiveScan(b, loc, lane, laneWritten));
  if (s.expertBlocks)
    writtenL2Blocks =
        lastLane(b, loc, warpInclusiveScan(b, loc, lane, laneL2Written));
  Value isLane0 =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  ifThen(b, loc, isLane0, [&](OpBuilder &tb) {
    Value poolRows = i32Const(tb, loc, s.poolRows);
    Value used = umin(tb, loc, totalRows, poolRows);
    Value mBlocks =
        s.halfBlocks()
            ? writtenBlocks
            : arith::DivUIOp::create(tb, loc, used,
                                     i32Const(tb, loc, s.blockM))
                  .getResult();
    storeAt(tb, loc, mBlocks, args.arg("pool_info"), i32Const(tb, loc, 0), 4);
    storeAt(tb, loc, used, args.arg("pool_info"), i32Const(tb, loc, 1), 4);
    if (s.expertBlocks)
      storeAt(tb, loc, writtenL2Blocks, args.arg("pool_info"),
              i32Const(tb, loc, config::kExpertBlocksInfoIndex), 4);
    Value overflow = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::ugt,
                                           totalRows, poolRows);
    ifThen(tb, loc, overflow, [&](OpBuilder &ob) {
      Value counter = elementPtr(ob, loc, args.arg("errors"), ob.getI32Type(),
                                 i32Const(ob, loc, 1));
      atomicAdd(ob, loc, counter, i32Const(ob, loc, 1));
    });
  });
}

/// The layout's shapes in context `ctx`.
LayoutShape layoutShape(const MoeKernelContext &ctx) {
  const config::LayerConfig &c = ctx.config;
  return {c.experts,       c.localExperts(),
          c.ranks,         c.maxTokensPerRank * c.topk,
          ctx.blockM,      config::poolLayoutRows(c, ctx.plan),
          ctx.expertAlign, ctx.l2ExpertBlocks, ctx.l1Cluster};
}

} // namespace

SmallVector<KernelParam> megamoe::moe::layoutParams(MLIRContext *mc,
                                                    const MoeKernelContext &ctx) {
  Type i32 = IntegerType::get(mc, 32);
  SmallVector<KernelParam> params = {regionParam(mc, "send_count", i32),
                                     regionParam(mc, "recv_count", i32),
                                     regionParam(mc, "pool_row_start", i32),
                                     regionParam(mc, "pool_block_expert", i32),
                                     regionParam(mc, "pool_info", i32),
                                     regionParam(mc, "barriers", i32),
                                     regionParam(mc, "errors", i32),
                                     peerOffsetsParam(mc),
                                     valueParam(mc, "rank")};
  if (layoutShape(ctx).halfBlocks())
    params.push_back(regionParam(mc, "pool_block_row", i32));
  if (layoutShape(ctx).expertBlocks)
    params.push_back(regionParam(mc, "pool_expert_block", i32));
  return params;
}

bool megamoe::moe::checkLayoutRegions(Location loc,
                                      const MoeKernelContext &ctx) {
  LayoutShape s = layoutShape(ctx);
  if (s.blockM <= 0 || s.poolRows % s.blockM != 0) {
    emitError(loc) << "moe_layout: the pool's " << s.poolRows
                   << " rows are not a multiple of BLOCK_M " << s.blockM;
    return false;
  }
  if (s.align <= 0 || s.blockM % s.align != 0 ||
      (s.halfBlocks() &&
       (s.align != config::kHalfBlockRows || 2 * s.align != s.blockM))) {
    emitError(loc) << "moe_layout: expert alignment " << s.align
                   << " must be BLOCK_M " << s.blockM
                   << " or half of it (half blocks)";
    return false;
  }
  if (s.expertBlocks && !s.halfBlocks()) {
    emitError(loc) << "moe_layout: expert blocks take the half-block "
                      "layout's 64-row units (BLOCK_M 128, expert alignment "
                      "64), got BLOCK_M "
                   << s.blockM << ", expert alignment " << s.align;
    return false;
  }
  return checkRegion(loc, ctx, "send_count", s.E * 4) &&
         checkRegion(loc, ctx, "recv_count", s.R * s.L * 4) &&
         checkRegion(loc, ctx, "pool_row_start", s.L * (s.R + 1) * 4) &&
         checkRegion(loc, ctx, "pool_block_expert", s.poolRows / s.align * 4) &&
         (!s.halfBlocks() ||
          checkRegion(loc, ctx, "pool_block_row", s.poolRows / s.align * 4)) &&
         (!s.expertBlocks || checkRegion(loc, ctx, "pool_expert_block",
                                         s.poolRows / s.align * 4)) &&
         checkRegion(loc, ctx, "pool_info",
                     (s.expertBlocks ? config::kExpertBlocksInfoIndex + 1 : 2) *
                         4) &&
         checkRegion(loc, ctx, "barriers", 4) &&
         checkRegion(loc, ctx, "errors", 2 * 4);
}

void megamoe::moe::buildLayoutBody(OpBuilder &b, Location loc,
                                   const MoeKernelContext &ctx,
                                   const BoundKernel &args, int64_t ctaThreads,
                                   StringRef kernelBase) {
  LayoutShape s = layoutShape(ctx);
  // A rank outside [0, R) would address peers that do not exist: such a
  // launch does nothing (uniform, so the block syncs inside stay matched).
  Value rankOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       args.arg("rank"), i32Const(b, loc, s.R));
  ifThen(b, loc, rankOk, [&](OpBuilder &rb) {
    sendCounts(rb, loc, s, args, ctaThreads);
    systemFence(rb, loc);
    gpu::BarrierOp::create(rb, loc);
    Value tid = threadIdX(rb, loc);
    Value isThread0 = arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::eq,
                                            tid, i32Const(rb, loc, 0));
    ifThen(rb, loc, isThread0, [&](OpBuilder &tb) {
      ws::CrossRankBarrierOp::create(
          tb, loc, args.arg("barriers"), args.arg("rank"), i32Const(tb, loc, s.R),
          args.arg("peer_offsets"), ws::Scope::sys,
          tb.getStringAttr(ctx.kernelName(kernelBase) +
                           ": barriers[0], before the pull"),
          tb.getI64IntegerAttr(ctx.barrierTimeoutCycles));
    });
    // Thread 0's acquire plus this sync make the peers' stores visible to
    // warp 0's plain loads of recv_count.
    gpu::BarrierOp::create(rb, loc);
    Value isWarp0 = arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::ult,
                                          tid, i32Const(rb, loc, kWarpSize));
    ifThen(rb, loc, isWarp0,
           [&](OpBuilder &wb) { layOutPool(wb, loc, s, args); });
  });
}

void megamoe::buildMoeLayoutKernel(OpBuilder &b, Location loc,
                                   const MoeKernelContext &ctx) {
  if (!checkLayoutRegions(loc, ctx))
    return;
  buildStageKernel(
      b, loc, ctx, kLayoutKernel, layoutParams(b.getContext(), ctx), kThreads,
      kMaxRegisters, singleCtaGrid(b),
      [&](OpBuilder &kb, const BoundKernel &kernel) {
        buildLayoutBody(kb, loc, ctx, kernel, kThreads, kLayoutKernel);
      });
}
