//===- MoeLayout.cpp - moe_layout: exchange counts, lay out the pool ------===//
//
// Kernel 2 of the unfused schedule (docs/UnfusedSchedule.md), one CTA:
//  1. every thread takes global experts e (block-stride): send_count[e] goes
//     to the owner rank's recv_count[rank][e % L]; send_count[e] is zeroed
//     (workspace words are restored within the call);
//  2. fence.sc.sys, block sync, thread 0 crosses the ranks' barrier
//     (barriers[0]), block sync: every peer's counts and src_token_index
//     entries for this call have landed;
//  3. warp 0 lays out the pool: 32 local experts at a time, each lane sums
//     its expert's counts over the source ranks and pads them to BLOCK_M;
//     a warp scan (shfl.up) of the padded sizes, carried across the chunks,
//     gives each expert's first row; each lane writes its expert's
//     pool_row_start row and pool_block_expert entries; lane 0 writes
//     pool_info.
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
constexpr int64_t kMaxRegisters = 64;
constexpr int64_t kWarpSize = 32;


/// Shapes of the kernel, from the layer and the plan.
struct LayoutShape {
  int64_t E, L, R, slotsPerRank, blockM, poolRows;
};

/// Step 1: publish this rank's per-expert counts to the experts' owners.
void sendCounts(OpBuilder &b, Location loc, const LayoutShape &s,
                const BoundKernel &args) {
  forLoop(
      b, loc, threadIdX(b, loc), i32Const(b, loc, s.E),
      i32Const(b, loc, kThreads), [&](OpBuilder &lb, Value e) {
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

/// N_l = sum over source ranks of the (clamped) counts of expert l.
Value expertRows(OpBuilder &b, Location loc, const LayoutShape &s,
                 const BoundKernel &args, Value l) {
  auto loop = scf::ForOp::create(
      b, loc, i32Const(b, loc, 0), i32Const(b, loc, s.R), i32Const(b, loc, 1),
      ValueRange{i32Const(b, loc, 0)},
      [&](OpBuilder &lb, Location ll, Value r, ValueRange acc) {
        Value sum = arith::AddIOp::create(lb, ll, acc[0],
                                          receivedFrom(lb, ll, s, args, r, l));
        scf::YieldOp::create(lb, ll, sum);
      });
  return loop.getResult(0);
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
  Value bm = i32Const(b, loc, s.blockM);
  Value firstBlock = arith::DivUIOp::create(b, loc, start, bm);
  Value endBlock =
      umin(b, loc,
           arith::DivUIOp::create(
               b, loc, arith::AddIOp::create(b, loc, start, padded), bm),
           i32Const(b, loc, s.poolRows / s.blockM));
  forLoop(b, loc, firstBlock, endBlock, i32Const(b, loc, 1),
          [&](OpBuilder &lb, Value block) {
            storeAt(lb, loc, l, args.arg("pool_block_expert"), block, 4);
          });
}

/// Step 3, run by warp 0: the pool layout of docs/UnfusedSchedule.md.
void layOutPool(OpBuilder &b, Location loc, const LayoutShape &s,
                const BoundKernel &args) {
  Value lane = laneId(b, loc);
  Value zero = i32Const(b, loc, 0);
  auto chunks = scf::ForOp::create(
      b, loc, zero, i32Const(b, loc, s.L), i32Const(b, loc, kWarpSize),
      ValueRange{zero},
      [&](OpBuilder &lb, Location ll, Value base, ValueRange carry) {
        Value l = arith::AddIOp::create(lb, ll, base, lane);
        Value valid = arith::CmpIOp::create(lb, ll, arith::CmpIPredicate::ult,
                                            l, i32Const(lb, ll, s.L));
        auto rows = scf::IfOp::create(
            lb, ll, valid,
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(tb, tl, expertRows(tb, tl, s, args, l));
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, i32Const(eb, el, 0));
            });
        Value bm = i32Const(lb, ll, s.blockM);
        Value padded = arith::MulIOp::create(
            lb, ll,
            arith::DivUIOp::create(
                lb, ll,
                arith::AddIOp::create(lb, ll, rows.getResult(0),
                                      i32Const(lb, ll, s.blockM - 1)),
                bm),
            bm);
        Value inclusive = warpInclusiveScan(lb, ll, lane, padded);
        Value start = arith::SubIOp::create(
            lb, ll, arith::AddIOp::create(lb, ll, carry[0], inclusive), padded);
        ifThen(lb, ll, valid, [&](OpBuilder &tb) {
          writeExpert(tb, ll, s, args, l, start, padded);
        });
        Value chunkRows =
            gpu::ShuffleOp::create(lb, ll, inclusive, kWarpSize - 1, kWarpSize,
                                   gpu::ShuffleMode::IDX)
                .getShuffleResult();
        scf::YieldOp::create(
            lb, ll,
            ValueRange{arith::AddIOp::create(lb, ll, carry[0], chunkRows)});
      });
  Value totalRows = chunks.getResult(0);
  Value isLane0 =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  ifThen(b, loc, isLane0, [&](OpBuilder &tb) {
    Value poolRows = i32Const(tb, loc, s.poolRows);
    Value used = umin(tb, loc, totalRows, poolRows);
    storeAt(tb, loc,
            arith::DivUIOp::create(tb, loc, used, i32Const(tb, loc, s.blockM)),
            args.arg("pool_info"), i32Const(tb, loc, 0), 4);
    storeAt(tb, loc, used, args.arg("pool_info"), i32Const(tb, loc, 1), 4);
    Value overflow = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::ugt,
                                           totalRows, poolRows);
    ifThen(tb, loc, overflow, [&](OpBuilder &ob) {
      Value counter = elementPtr(ob, loc, args.arg("errors"), ob.getI32Type(),
                                 i32Const(ob, loc, 1));
      atomicAdd(ob, loc, counter, i32Const(ob, loc, 1));
    });
  });
}

} // namespace

void megamoe::buildMoeLayoutKernel(OpBuilder &b, Location loc,
                                   const MoeKernelContext &ctx) {
  const config::LayerConfig &c = ctx.config;
  LayoutShape s{c.experts,  c.localExperts(),
                c.ranks,    c.maxTokensPerRank * c.topk,
                ctx.blockM, ctx.plan.poolTokens};
  if (s.blockM <= 0 || s.poolRows % s.blockM != 0) {
    emitError(loc) << "moe_layout: the pool's " << s.poolRows
                   << " rows are not a multiple of BLOCK_M " << s.blockM;
    return;
  }
  if (!checkRegion(loc, ctx, "send_count", s.E * 4) ||
      !checkRegion(loc, ctx, "recv_count", s.R * s.L * 4) ||
      !checkRegion(loc, ctx, "pool_row_start", s.L * (s.R + 1) * 4) ||
      !checkRegion(loc, ctx, "pool_block_expert", s.poolRows / s.blockM * 4) ||
      !checkRegion(loc, ctx, "pool_info", 2 * 4) ||
      !checkRegion(loc, ctx, "barriers", 4) ||
      !checkRegion(loc, ctx, "errors", 2 * 4))
    return;
  MLIRContext *mc = b.getContext();
  Type i32 = b.getI32Type();
  SmallVector<KernelParam> params = {regionParam(mc, "send_count", i32),
                                     regionParam(mc, "recv_count", i32),
                                     regionParam(mc, "pool_row_start", i32),
                                     regionParam(mc, "pool_block_expert", i32),
                                     regionParam(mc, "pool_info", i32),
                                     regionParam(mc, "barriers", i32),
                                     regionParam(mc, "errors", i32),
                                     peerOffsetsParam(mc),
                                     valueParam(mc, "rank")};
  OpBuilder::InsertionGuard guard(b);
  addProfileParam(params, ctx, kLayoutKernel);
  BoundKernel kernel = createBoundKernel(
      b, loc, ctx.kernelName(kLayoutKernel), params, kThreads, kMaxRegisters,
      config::toString(c.chip), singleCtaGrid(b));
  collectives::PhaseProfile profile =
      kernelProfile(kernel, ctx, kLayoutKernel);
  profile.stampCta(b, loc, /*end=*/false);
  const BoundKernel &args = kernel;

  // A rank outside [0, R) would address peers that do not exist: such a
  // launch does nothing (uniform, so the block syncs inside stay matched).
  Value rankOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       args.arg("rank"), i32Const(b, loc, s.R));
  ifThen(b, loc, rankOk, [&](OpBuilder &rb) {
    sendCounts(rb, loc, s, args);
    systemFence(rb, loc);
    gpu::BarrierOp::create(rb, loc);
    Value tid = threadIdX(rb, loc);
    Value isThread0 = arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::eq,
                                            tid, i32Const(rb, loc, 0));
    ifThen(rb, loc, isThread0, [&](OpBuilder &tb) {
      ws::CrossRankBarrierOp::create(
          tb, loc, args.arg("barriers"), args.arg("rank"), i32Const(tb, loc, s.R),
          args.arg("peer_offsets"), ws::Scope::sys,
          tb.getStringAttr(ctx.kernelName(kLayoutKernel) +
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
  profile.stampCta(b, loc, /*end=*/true);
  ws::ReturnOp::create(b, loc);
}
