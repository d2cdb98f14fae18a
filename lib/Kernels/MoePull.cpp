//===- MoePull.cpp - moe_pull: fill the pool rows from the source ranks ---===//
//
// Kernel 3 of the unfused schedule (docs/UnfusedSchedule.md). One warp per
// used pool row (rows < pool_info[1], grid-stride over warps), each row
// copied by the PoolPull collective (Collectives/PoolPull.h: the row's
// source rank and slot, its x row, scales, router weight and source).
// With megamoe-expand's weight-prefetch-mib, every thread first issues its
// share of the L2 prefetch of the touched experts' L1 weights
// (Collectives/WeightPrefetch.h).
//
//===----------------------------------------------------------------------===//
#include "Collectives/PhaseProfile.h"
#include "Collectives/PoolPull.h"
#include "Collectives/WeightPrefetch.h"
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

// One CTA per SM (grid num_sms): 32 warps keep 32 rows of NVLink reads in
// flight per SM; 64 registers x 1024 threads fill the register file.
constexpr int64_t kThreads = 1024;
constexpr int64_t kMaxRegisters = 64;
constexpr int64_t kWarpSize = 32;
// 16-byte vectors in flight per lane: 8 x 4 registers of the 64. At decode
// a row's copy is a chain of round trips (its metadata, then the x row in
// H / (512 x unroll) trips): V4-Pro's 7 KiB rows took 9.5 us with 2 per
// lane per trip against V4-Flash's 5.5 us with 4 (bench/RESULTS.md
// 2026-12-02, "decode").
constexpr int64_t kMaxUnroll = 8;

/// The copy's shapes in context `ctx`.
collectives::PoolPullShape pullShape(const MoeKernelContext &ctx) {
  const config::LayerConfig &c = ctx.config;
  const int64_t H = c.hidden, T = c.maxTokensPerRank, K = c.topk;
  const int64_t sfBlock = c.recipe.inputScaleBlock;
  return {H,
          K,
          c.localExperts(),
          c.ranks,
          T * K,
          sfBlock > 0 ? H / sfBlock : 0,
          ctx.expertAlign,
          ctx.plan.poolTokens,
          collectives::PoolPullShape::chooseUnroll(H, kMaxUnroll)};
}

} // namespace

SmallVector<KernelParam> megamoe::moe::pullParams(MLIRContext *mc,
                                                  const MoeKernelContext &ctx) {
  // fp8 rows are bytes (x, l1_pool); scales and weights f32.
  Type i8 = IntegerType::get(mc, 8), i32 = IntegerType::get(mc, 32),
       f32 = Float32Type::get(mc);
  SmallVector<KernelParam> params = {regionParam(mc, "src_token_index", i32),
                                     regionParam(mc, "pool_row_start", i32),
                                     regionParam(mc, "pool_block_expert", i32),
                                     regionParam(mc, "pool_info", i32),
                                     regionParam(mc, "l1_pool", i8),
                                     regionParam(mc, "l1_pool_sf", f32),
                                     regionParam(mc, "l1_pool_weight", f32),
                                     regionParam(mc, "pool_source", i32),
                                     regionParam(mc, "x", i8),
                                     regionParam(mc, "x_sf", f32),
                                     regionParam(mc, "topk_weights", f32),
                                     peerOffsetsParam(mc)};
  // The L1 weights [L, 2I, H] (fp8 bytes), with the weight prefetch.
  if (ctx.weightPrefetchBytes > 0)
    params.push_back({"l1_weight", "input:l1_weight", globalType(i8)});
  return params;
}

bool megamoe::moe::checkPullRegions(Location loc, const MoeKernelContext &ctx) {
  const config::LayerConfig &c = ctx.config;
  const int64_t H = c.hidden, T = c.maxTokensPerRank, K = c.topk;
  const int64_t sfBlock = c.recipe.inputScaleBlock;
  collectives::PoolPullShape s = pullShape(ctx);
  if (H % 128 != 0 || sfBlock <= 0 || H % sfBlock != 0) {
    emitError(loc) << "moe_pull: hidden (" << H
                   << ") must be a multiple of 128 and of the input scale "
                      "block ("
                   << sfBlock << ")";
    return false;
  }
  if (s.align <= 0 || s.poolRows % s.align != 0) {
    emitError(loc) << "moe_pull: the pool's " << s.poolRows
                   << " rows are not a multiple of the expert alignment "
                   << s.align;
    return false;
  }
  const int64_t P = s.poolRows;
  return checkRegion(loc, ctx, "src_token_index", s.L * s.R * T * K * 4) &&
         checkRegion(loc, ctx, "pool_row_start", s.L * (s.R + 1) * 4) &&
         checkRegion(loc, ctx, "pool_block_expert", P / s.align * 4) &&
         checkRegion(loc, ctx, "pool_info", 2 * 4) &&
         checkRegion(loc, ctx, "l1_pool", P * H) &&
         checkRegion(loc, ctx, "l1_pool_sf", s.scaleColumns * P * 4) &&
         checkRegion(loc, ctx, "l1_pool_weight", P * 4) &&
         checkRegion(loc, ctx, "pool_source", P * 3 * 4) &&
         checkRegion(loc, ctx, "x", T * H) &&
         checkRegion(loc, ctx, "x_sf", T * s.scaleColumns * 4) &&
         checkRegion(loc, ctx, "topk_weights", T * K * 4);
}

void megamoe::moe::buildPullBody(OpBuilder &b, Location loc,
                                 const MoeKernelContext &ctx,
                                 const BoundKernel &args, int64_t ctaThreads) {
  const config::LayerConfig &c = ctx.config;
  collectives::PoolPullShape s = pullShape(ctx);
  const int64_t P = s.poolRows;
  collectives::PoolPullOperands ops{
      args.arg("src_token_index"), args.arg("pool_row_start"),
      args.arg("pool_block_expert"), args.arg("l1_pool"),
      args.arg("l1_pool_sf"),      args.arg("l1_pool_weight"),
      args.arg("pool_source"),     args.arg("x"),
      args.arg("x_sf"),            args.arg("topk_weights"),
      args.arg("peer_offsets")};

  Value tid = threadIdX(b, loc);
  Value lane = laneId(b, loc);
  Value warp = arith::DivUIOp::create(b, loc, tid, i32Const(b, loc, kWarpSize));
  // Rows beyond the pool are never touched, whatever pool_info says.
  Value rows = umin(
      b, loc,
      loadAt(b, loc, b.getI32Type(), args.arg("pool_info"), i32Const(b, loc, 1), 4),
      i32Const(b, loc, P));
  Value warps = i32Const(b, loc, ctaThreads / kWarpSize);
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockIdX(b, loc), warps), warp);
  Value stride = arith::MulIOp::create(b, loc, gridDimX(b, loc), warps);
  // First, so the L2 cache fetches while the rows are copied and the L1
  // kernel launches.
  if (ctx.weightPrefetchBytes > 0) {
    Value threads = i32Const(b, loc, ctaThreads);
    collectives::prefetchExpertWeights(
        b, loc,
        {2 * c.intermediate, c.hidden, s.L, s.align, ctx.weightPrefetchBytes},
        args.arg("l1_weight"), args.arg("pool_block_expert"), rows,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, blockIdX(b, loc), threads),
            tid),
        arith::MulIOp::create(b, loc, gridDimX(b, loc), threads));
  }
  forLoop(b, loc, first, rows, stride, [&](OpBuilder &lb, Value row) {
    collectives::pullPoolRow(lb, loc, s, ops, lane, row);
  });
}

void megamoe::buildMoePullKernel(OpBuilder &b, Location loc,
                                 const MoeKernelContext &ctx) {
  if (!checkPullRegions(loc, ctx))
    return;
  buildStageKernel(b, loc, ctx, kPullKernel, pullParams(b.getContext(), ctx),
                   kThreads, kMaxRegisters, persistentGrid(b),
                   [&](OpBuilder &kb, const BoundKernel &kernel) {
                     buildPullBody(kb, loc, ctx, kernel, kThreads);
                   });
}
