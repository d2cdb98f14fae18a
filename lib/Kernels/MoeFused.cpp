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
  FusedKernelFrame frame;
  frame.params = dispatchParams(mc, ctx);
  // The combine's operands are parameters of their own (`combine.` names,
  // the same bindings): a kernel argument that both the dispatch and the
  // math warpgroups read is loaded once at entry and held in registers
  // through the roles, which made the math warpgroups spill (V4-Flash
  // BLOCK_M 128: 112 bytes).
  SmallVector<KernelParam> combine = combineParams(mc);
  for (KernelParam &p : combine)
    p.name = kCombinePrefix + p.name;
  appendParams(frame.params, combine);

  frame.prologue = [&](OpBuilder &b, const BoundKernel &kernel,
                       int64_t threads) {
    OpaqueSpecialRegisters opaque;
    buildDispatchBody(b, loc, ctx, kernel, threads, kFusedKernel);
    // The pool rows are generic-proxy stores that other SMs' TMA loads (the
    // async proxy) read: each writer fences the proxies before the barrier's
    // release, each reader after its acquire.
    ws::FenceAsyncGlobalOp::create(b, loc);
    slotGridBarrier(b, loc, ctx, kernel, kFusedKernel, kFusedPulledSlot,
                    "after the pull");
    ws::FenceAsyncGlobalOp::create(b, loc);
  };

  frame.mathEpilogue = [&](OpBuilder &b, const BoundKernel &gemmKernel,
                           Value thread, int64_t mathThreads,
                           Value mathBarrier) {
    BoundKernel kernel = gemmKernel.preferring(kCombinePrefix);
    // Every math thread fenced its scattered rows (sys scope) before this.
    slotGridBarrier(b, loc, ctx, kernel, kFusedKernel, kFusedScatteredSlot,
                    "after the L2 tiles", mathBarrier, thread);
    buildCombineBody(b, loc, ctx, kernel, kFusedKernel, mathThreads, thread,
                     mathBarrier);
  };

  binds.frame = &frame;
  buildFusedGemmKernel(b, loc, ctx.kernelName(kFusedKernel), l1, l2, binds);
}
