//===- MoeDispatch.cpp - moe_dispatch: route, layout and pull, one kernel -===//
//
// The merged dispatch of megamoe-expand's `merge-stages`
// (docs/UnfusedSchedule.md, "Merged stages"): the bodies of moe_route,
// moe_layout and moe_pull in one persistent kernel, where a grid barrier
// takes the place of each kernel boundary:
//
//   route (every CTA)  | grid barrier barriers[2]: every slot index is
//                      |   stored and send_count complete
//   layout (CTA 0)     | grid barrier barriers[3]: the pool layout is
//                      |   written (the cross-rank barrier is inside it)
//   pull (every CTA)
//
// At decode the three kernels were mostly launch gaps and drains (about
// 13 us at 1 token for microseconds of work, bench/RESULTS.md 2026-12-03);
// a grid barrier is one atomic per CTA and a poll.
//
// All CTAs must be resident at once (grid num_sms, one CTA per SM, as every
// persistent kernel of the layer); the grid barriers' counters are never
// reset (warpspec.grid.sync derives the generation), and each wait is
// bounded by barrier-timeout-cycles.
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

// 16 warps per SM for the pull (moe_pull has 32 at 64 registers); the
// layout's lanes hold up to ceil(L / 32) experts' counts at once, which
// needs the 128 registers (V4-Pro's 12 per lane spilled at 64).
constexpr int64_t kThreads = 512;
constexpr int64_t kMaxRegisters = 128;

} // namespace

void megamoe::moe::slotGridBarrier(OpBuilder &b, Location loc,
                                   const MoeKernelContext &ctx,
                                   const BoundKernel &args,
                                   StringRef kernelBase, int64_t slot,
                                   StringRef what, Value ctaBarrier,
                                   Value thread) {
  Value counter = elementPtr(b, loc, args.arg("barriers"), b.getI32Type(),
                             i32Const(b, loc, slot));
  gridBarrier(b, loc, counter,
              ctx.kernelName(kernelBase) + ": barriers[" +
                  std::to_string(slot) + "], " + what.str(),
              ctx.barrierTimeoutCycles, ctaBarrier, thread);
}

SmallVector<KernelParam>
megamoe::moe::dispatchParams(MLIRContext *mc, const MoeKernelContext &c) {
  SmallVector<KernelParam> params = routeParams(mc);
  appendParams(params, layoutParams(mc, c));
  appendParams(params, pullParams(mc, c));
  return params;
}

void megamoe::moe::buildDispatchBody(OpBuilder &b, Location loc,
                                     const MoeKernelContext &ctx,
                                     const BoundKernel &args,
                                     int64_t ctaThreads, StringRef kernelBase) {
  buildRouteBody(b, loc, ctx, args, ctaThreads);
  // The route's threads fenced their remote stores (sys scope); the
  // barrier's release/acquire makes send_count complete for CTA 0.
  slotGridBarrier(b, loc, ctx, args, kernelBase, kDispatchRoutedSlot,
                  "after the route");
  Value isCta0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       blockIdX(b, loc), i32Const(b, loc, 0));
  ifThen(b, loc, isCta0, [&](OpBuilder &tb) {
    buildLayoutBody(tb, loc, ctx, args, ctaThreads, kernelBase);
  });
  // pool_info, pool_row_start and pool_block_expert are written.
  slotGridBarrier(b, loc, ctx, args, kernelBase, kDispatchLaidOutSlot,
                  "after the layout");
  buildPullBody(b, loc, ctx, args, ctaThreads);
}

void megamoe::buildMoeDispatchKernel(OpBuilder &b, Location loc,
                                     const MoeKernelContext &ctx) {
  if (!checkRouteRegions(loc, ctx) || !checkLayoutRegions(loc, ctx) ||
      !checkPullRegions(loc, ctx) ||
      !checkRegion(loc, ctx, "barriers", kBarrierSlots * 4))
    return;
  buildStageKernel(b, loc, ctx, kDispatchKernel,
                   dispatchParams(b.getContext(), ctx), kThreads,
                   kMaxRegisters, persistentGrid(b),
                   [&](OpBuilder &b, const BoundKernel &kernel) {
                     buildDispatchBody(b, loc, ctx, kernel, kThreads,
                                       kDispatchKernel);
                   });
}
