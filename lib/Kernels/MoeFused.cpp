//===- MoeFused.cpp - moe_fused: the whole layer in one kernel ------------===//
//
// megamoe-expand's `one-kernel` on the fused-gemm schedule
// (docs/FusedSchedule.md, "One kernel"): the fused GEMM kernel
// (GroupedGemm.cpp, buildFusedGemmKernel) with the dispatch before its roles
// and the combine after its math warpgroups' last tile, so a call is one
// launch per variant:
//
//   every thread   route                   | grid barrier barriers[2]
//   CTA 0          layout (cross-rank bar.) | grid barrier barriers[3]
//   every thread   pull                    | grid barrier barriers[5]
//   roles          L1 tiles, L2 tiles (the fused GEMM kernel's counters)
//   math threads   fence, grid barrier barriers[6]: every row scattered
//   CTA 0, thread  cross-rank barrier (barriers[1]), then every CTA meets
//                  at barriers[4]
//   math threads   top-k reduce into y
//
// The stage bodies are those of the stage kernels (MoeStages.h) and the
// GEMM tiles those of moe_fused_gemm, in the same order, each grid barrier
// standing where a kernel boundary was: the numbers are the fused-gemm
// schedule's, bitwise. What it saves is the launches and the drains
// between them.
//
// All CTAs must be resident at once (one per SM, grid num_sms): the grid
// barriers wait for every CTA, and with R ranks on one GPU every rank's
// grid (plan num-sms = SMs / R). Every wait is bounded by
// barrier-timeout-cycles.
//
//===----------------------------------------------------------------------===//
#include "MoeKernelUtil.h"
#include "MoeStages.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"
#include "megamoe/Kernels/GroupedGemm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::moe;
namespace ws = mlir::warpspec;

namespace {
/// The names of the combine's own copies of its parameters.
constexpr char kCombinePrefix[] = "combine.";
} // namespace

void megamoe::buildMoeFusedKernel(OpBuilder &b, Location loc,
                                  const MoeKernelContext &ctx,
                                  const GroupedGemmConfig &l1,
                                  const GroupedGemmConfig &l2,
                                  FusedGemmBinds binds) {
  if (!checkRouteRegions(loc, ctx) || !checkLayoutRegions(loc, ctx) ||
      !checkPullRegions(loc, ctx) || !checkCombineReduceShape(loc, ctx) ||
      !checkRegion(loc, ctx, "barriers", kBarrierSlots * 4))
    return;
  MLIRContext *mc = b.getContext();
  std::string name = ctx.kernelName(kFusedKernel);
  config::KernelPlan plan = config::planFusedGemmKernel(l1, l2);
  const int64_t threads = plan.threads;
  auto barrierName = [&](int64_t slot, StringRef what) {
    return name + ": barriers[" + std::to_string(slot) + "], " + what.str();
  };
  auto counter = [&](OpBuilder &b, const BoundKernel &kernel, int64_t slot) {
    return elementPtr(b, loc, kernel.arg("barriers"), b.getI32Type(),
                      i32Const(b, loc, slot));
  };

  FusedKernelFrame frame;
  frame.params = routeParams(mc);
  appendParams(frame.params, layoutParams(mc, ctx));
  appendParams(frame.params, pullParams(mc, ctx));
  // The combine's operands are parameters of their own (`combine.` names,
  // the same bindings): a kernel argument that both the dispatch and the
  // math warpgroups read is loaded once at entry and held in registers
  // through the roles, which made the math warpgroups spill (V4-Flash
  // BLOCK_M 128: 112 bytes).
  SmallVector<KernelParam> combine = combineBarrierParams(mc);
  appendParams(combine, combineReduceParams(mc));
  for (KernelParam &p : combine)
    p.name = kCombinePrefix + p.name;
  appendParams(frame.params, combine);

  frame.prologue = [&](OpBuilder &b, const BoundKernel &kernel) {
    OpaqueSpecialRegisters opaque;
    auto barrier = [&](int64_t slot, StringRef what) {
      gridBarrier(b, loc, counter(b, kernel, slot), barrierName(slot, what),
                  ctx.barrierTimeoutCycles);
    };
    buildRouteBody(b, loc, ctx, kernel, threads);
    barrier(kDispatchRoutedSlot, "after the route");
    Value isCta0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         blockIdX(b, loc), i32Const(b, loc, 0));
    ifThen(b, loc, isCta0, [&](OpBuilder &tb) {
      buildLayoutBody(tb, loc, ctx, kernel, threads, kFusedKernel);
    });
    barrier(kDispatchLaidOutSlot, "after the layout");
    buildPullBody(b, loc, ctx, kernel, threads);
    // The pool rows are generic-proxy stores that other SMs' TMA loads (the
    // async proxy) read: each writer fences the proxies before the barrier's
    // release, each reader after its acquire.
    ws::FenceAsyncGlobalOp::create(b, loc);
    barrier(kFusedPulledSlot, "after the pull");
    ws::FenceAsyncGlobalOp::create(b, loc);
  };

  frame.mathEpilogue = [&](OpBuilder &b, const BoundKernel &gemmKernel,
                           Value thread, int64_t mathThreads,
                           Value mathBarrier) {
    BoundKernel kernel = gemmKernel.preferring(kCombinePrefix);
    // Every math thread fenced its scattered rows (sys scope) before this.
    gridBarrier(b, loc, counter(b, kernel, kFusedScatteredSlot),
                barrierName(kFusedScatteredSlot, "after the L2 tiles"),
                ctx.barrierTimeoutCycles, mathBarrier, thread);
    Value isFirst = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              blockIdX(b, loc), i32Const(b, loc, 0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread,
                              i32Const(b, loc, 0)));
    ifThen(b, loc, isFirst, [&](OpBuilder &tb) {
      buildCombineBarrierBody(tb, loc, ctx, kernel, kFusedKernel);
    });
    gridBarrier(
        b, loc, counter(b, kernel, kCombineArrivedSlot),
        barrierName(kCombineArrivedSlot, "after the cross-rank barrier"),
        ctx.barrierTimeoutCycles, mathBarrier, thread);
    buildCombineReduceBody(b, loc, ctx, kernel, mathThreads, thread);
  };

  binds.frame = &frame;
  buildFusedGemmKernel(b, loc, name, l1, l2, binds);
}
