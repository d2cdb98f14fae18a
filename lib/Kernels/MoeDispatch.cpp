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

void megamoe::buildMoeDispatchKernel(OpBuilder &b, Location loc,
                                     const MoeKernelContext &ctx) {
  if (!checkRouteRegions(loc, ctx) || !checkLayoutRegions(loc, ctx) ||
      !checkPullRegions(loc, ctx) ||
      !checkRegion(loc, ctx, "barriers", kBarrierSlots * 4))
    return;
  MLIRContext *mc = b.getContext();
  SmallVector<KernelParam> params = routeParams(mc);
  appendParams(params, layoutParams(mc, ctx));
  appendParams(params, pullParams(mc, ctx));
  buildStageKernel(
      b, loc, ctx, kDispatchKernel, params, kThreads, kMaxRegisters,
      persistentGrid(b), [&](OpBuilder &b, const BoundKernel &kernel) {
        std::string name = ctx.kernelName(kDispatchKernel);
        auto barrier = [&](int64_t slot, StringRef what) {
          Value counter = elementPtr(b, loc, kernel.arg("barriers"), b.getI32Type(),
                                     i32Const(b, loc, slot));
          gridBarrier(b, loc, counter,
                      name + ": barriers[" + std::to_string(slot) + "], " +
                          what.str(),
                      ctx.barrierTimeoutCycles);
        };

        buildRouteBody(b, loc, ctx, kernel, kThreads);
        // The route's threads fenced their remote stores (sys scope); the
        // barrier's release/acquire makes send_count complete for CTA 0.
        barrier(kDispatchRoutedSlot, "after the route");
        Value isCta0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             blockIdX(b, loc), i32Const(b, loc, 0));
        ifThen(b, loc, isCta0, [&](OpBuilder &tb) {
          buildLayoutBody(tb, loc, ctx, kernel, kThreads, kDispatchKernel);
        });
        // pool_info, pool_row_start and pool_block_expert are written.
        barrier(kDispatchLaidOutSlot, "after the layout");
        buildPullBody(b, loc, ctx, kernel, kThreads);
      });
}
