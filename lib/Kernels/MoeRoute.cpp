//===- MoeRoute.cpp - moe_route: send every slot's index to its expert ----===//
//
// Kernel 1 of the unfused schedule (docs/UnfusedSchedule.md). One thread per
// slot s = t * K + k (grid-stride): the slot's expert e gets a position from
// an atomic counter (send_count[e]) and the slot's index is stored at that
// position of the owner rank's src_token_index[l][rank]. Arrival order is
// not deterministic; moe_pull reads positions, and the math that follows is
// per row, so results do not depend on it.
//
//===----------------------------------------------------------------------===//
#include "Collectives/PhaseProfile.h"
#include "MoeKernelUtil.h"
#include "MoeStages.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::moe;
namespace ws = mlir::warpspec;

namespace {

// One CTA per SM: 512 threads cover T * K slots of typical layers in one or
// two passes of the grid-stride loop.
constexpr int64_t kThreads = 512;
constexpr int64_t kMaxRegisters = 64;


/// Slot `s` with a valid expert `e` (i32): takes the next position of
/// (this rank, e) and writes s there in the owner rank's src_token_index.
void sendSlot(OpBuilder &b, Location loc, const config::LayerConfig &c,
              const BoundKernel &args, Value slot, Value expert) {
  const int64_t L = c.localExperts();
  const int64_t slotsPerRank = c.maxTokensPerRank * c.topk; // T * K
  Value owner = arith::DivUIOp::create(b, loc, expert, i32Const(b, loc, L));
  Value local = arith::RemUIOp::create(b, loc, expert, i32Const(b, loc, L));
  // Relaxed: the position only has to be unique; the values are published
  // by the fence at the end and the barrier of moe_layout.
  Value counter = elementPtr(b, loc, args.arg("send_count"), b.getI32Type(), expert);
  Value pos = atomicAdd(b, loc, counter, i32Const(b, loc, 1));
  // A rank sends at most T * K slots; the bound only guards a corrupted
  // counter from writing outside the region.
  Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, pos,
                                         i32Const(b, loc, slotsPerRank));
  ifThen(b, loc, inBounds, [&](OpBuilder &tb) {
    // src_token_index[l][rank][pos], i64 element offset.
    Value row = arith::AddIOp::create(
        tb, loc,
        arith::MulIOp::create(tb, loc, local, i32Const(tb, loc, c.ranks)),
        args.arg("rank"));
    Value index = arith::AddIOp::create(
        tb, loc,
        arith::MulIOp::create(tb, loc, widen(tb, loc, row),
                              i64Const(tb, loc, slotsPerRank)),
        widen(tb, loc, pos));
    Value mine =
        elementPtr(tb, loc, args.arg("src_token_index"), tb.getI32Type(), index);
    Value remote =
        ws::PeerPtrOp::create(tb, loc, mine, owner, args.arg("peer_offsets"));
    store(tb, loc, slot, remote, 4);
  });
}

} // namespace

SmallVector<KernelParam> megamoe::moe::routeParams(MLIRContext *mc) {
  Type i32 = IntegerType::get(mc, 32), i64 = IntegerType::get(mc, 64);
  return {regionParam(mc, "topk_idx", i64),
          regionParam(mc, "send_count", i32),
          regionParam(mc, "src_token_index", i32),
          regionParam(mc, "errors", i32),
          peerOffsetsParam(mc),
          valueParam(mc, "rank"),
          valueParam(mc, "num_tokens")};
}

bool megamoe::moe::checkRouteRegions(Location loc,
                                     const MoeKernelContext &ctx) {
  const config::LayerConfig &c = ctx.config;
  const int64_t E = c.experts, K = c.topk, R = c.ranks, T = c.maxTokensPerRank;
  const int64_t L = c.localExperts();
  return checkRegion(loc, ctx, "topk_idx", T * K * 8) &&
         checkRegion(loc, ctx, "send_count", E * 4) &&
         checkRegion(loc, ctx, "src_token_index", L * R * T * K * 4) &&
         checkRegion(loc, ctx, "errors", 4);
}

void megamoe::moe::buildRouteBody(OpBuilder &b, Location loc,
                                  const MoeKernelContext &ctx,
                                  const BoundKernel &args,
                                  int64_t ctaThreads) {
  const config::LayerConfig &c = ctx.config;
  const int64_t E = c.experts, K = c.topk, R = c.ranks, T = c.maxTokensPerRank;
  // A rank outside [0, R) would index src_token_index out of bounds: such a
  // launch does nothing (the runtime passes its own rank).
  Value rankOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       args.arg("rank"), i32Const(b, loc, R));
  ifThen(b, loc, rankOk, [&](OpBuilder &rb) {
    // num_tokens outside [0, T] is clamped so no slot index leaves [T, K].
    Value tokens = arith::MinSIOp::create(
        rb, loc,
        arith::MaxSIOp::create(rb, loc, args.arg("num_tokens"), i32Const(rb, loc, 0)),
        i32Const(rb, loc, T));
    Value slots = arith::MulIOp::create(rb, loc, tokens, i32Const(rb, loc, K));
    Value threads = i32Const(rb, loc, ctaThreads);
    Value first = arith::AddIOp::create(
        rb, loc, arith::MulIOp::create(rb, loc, blockIdX(rb, loc), threads),
        threadIdX(rb, loc));
    Value stride = arith::MulIOp::create(rb, loc, gridDimX(rb, loc), threads);
    forLoop(rb, loc, first, slots, stride, [&](OpBuilder &lb, Value slot) {
      Value e64 = loadAt(lb, loc, lb.getI64Type(), args.arg("topk_idx"), slot, 8);
      Value valid = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult,
                                          e64, i64Const(lb, loc, E));
      Value masked = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq,
                                           e64, i64Const(lb, loc, -1));
      ifThen(
          lb, loc, valid,
          [&](OpBuilder &tb) {
            Value e = arith::TruncIOp::create(tb, loc, tb.getI32Type(), e64);
            sendSlot(tb, loc, c, args, slot, e);
          },
          [&](OpBuilder &eb) {
            // Outside [-1, E): counted in errors[0], then skipped.
            Value invalid = arith::XOrIOp::create(
                eb, loc, masked, arith::ConstantIntOp::create(eb, loc, 1, 1));
            ifThen(eb, loc, invalid, [&](OpBuilder &ib) {
              atomicAdd(ib, loc, args.arg("errors"), i32Const(ib, loc, 1));
            });
          });
    });
    // A thread that handled a slot (first < slots) may have stored into a
    // peer: its remote stores reach the owners before moe_layout's barrier
    // publishes them. Only those threads fence: a system-scope fence costs
    // about as much as the whole kernel at decode sizes when all 67,584
    // threads issue one (V4-Flash, 8 tokens/rank: 31.6 us for 48 slots).
    Value handledSlot =
        arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::slt, first, slots);
    ifThen(rb, loc, handledSlot, [&](OpBuilder &fb) { systemFence(fb, loc); });
  });
}

void megamoe::buildMoeRouteKernel(OpBuilder &b, Location loc,
                                  const MoeKernelContext &ctx) {
  if (!checkRouteRegions(loc, ctx))
    return;
  buildStageKernel(b, loc, ctx, kRouteKernel, routeParams(b.getContext()),
                   kThreads, kMaxRegisters, persistentGrid(b),
                   [&](OpBuilder &kb, const BoundKernel &kernel) {
                     buildRouteBody(kb, loc, ctx, kernel, kThreads);
                   });
}
