//===- MoeCombine.cpp - moe_combine_barrier / _reduce ---------------------===//
//
// The last kernels of the unfused schedule (docs/UnfusedSchedule.md); the L2
// grouped GEMM's epilogue already pushed every row to its source rank:
//  - barrier: one cross-rank barrier, after which every peer's pushes to
//    this rank are visible;
//  - reduce: y[t] = bf16_rn(sum of the valid slots' f32 values, slot order);
//  - moe_combine (merge-stages): both in one kernel, a grid barrier between.
//
//===----------------------------------------------------------------------===//
#include "Collectives/PhaseProfile.h"
#include "MoeKernelUtil.h"
#include "MoeStages.h"
#include "megamoe/Kernels/KernelBuilder.h"
#include "megamoe/Kernels/MoeKernels.h"
#include "megamoe/Kernels/MoeMath.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace megamoe;
using namespace megamoe::moe;

namespace {

constexpr int64_t kThreads = 512;
constexpr int64_t kMaxRegisters = 128;
/// bf16 values per 16-byte vector.
constexpr int64_t kBf16PerVector = 8;
constexpr int64_t kVectorBytes = 16;

} // namespace

SmallVector<KernelParam> megamoe::moe::combineBarrierParams(MLIRContext *mc) {
  return {regionParam(mc, "barriers", IntegerType::get(mc, 32)),
          peerOffsetsParam(mc), valueParam(mc, "rank")};
}

void megamoe::moe::buildCombineBarrierBody(OpBuilder &b, Location loc,
                                           const MoeKernelContext &ctx,
                                           const BoundKernel &args,
                                           StringRef kernelBase) {
  Value counter = elementPtr(b, loc, args.arg("barriers"), b.getI32Type(),
                             i64Const(b, loc, kCombineBarrierSlot));
  warpspec::CrossRankBarrierOp::create(
      b, loc, counter, args.arg("rank"), i32Const(b, loc, ctx.config.ranks),
      args.arg("peer_offsets"), warpspec::Scope::sys,
      b.getStringAttr(ctx.kernelName(kernelBase) +
                      ": barriers[1], before the combine reduce"),
      b.getI64IntegerAttr(ctx.barrierTimeoutCycles));
}

void megamoe::buildMoeCombineBarrierKernel(OpBuilder &b, Location loc,
                                           const MoeKernelContext &ctx) {
  buildStageKernel(
      b, loc, ctx, kCombineBarrierKernel, combineBarrierParams(b.getContext()),
      /*threads=*/32, /*maxnreg=*/64, singleCtaGrid(b),
      [&](OpBuilder &b, const BoundKernel &kernel) {
        // The barrier is executed by one thread of the one CTA.
        Value isThread0 =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                  threadIdX(b, loc), i32Const(b, loc, 0));
        ifThen(b, loc, isThread0, [&](OpBuilder &tb) {
          buildCombineBarrierBody(tb, loc, ctx, kernel, kCombineBarrierKernel);
        });
      });
}

SmallVector<KernelParam> megamoe::moe::combineReduceParams(MLIRContext *mc) {
  return {regionParam(mc, "topk_idx", IntegerType::get(mc, 64)),
          regionParam(mc, "combine", BFloat16Type::get(mc)),
          {"y", "input:y", globalType(BFloat16Type::get(mc))},
          valueParam(mc, "num_tokens")};
}

bool megamoe::moe::checkCombineReduceShape(Location loc,
                                           const MoeKernelContext &ctx) {
  const config::LayerConfig &c = ctx.config;
  const int64_t hidden = c.hidden, tokens = c.maxTokensPerRank, topk = c.topk;
  const int64_t vectorsPerRow = hidden / kBf16PerVector;
  if (hidden % kBf16PerVector != 0 || tokens <= 0 || topk <= 0) {
    emitError(loc) << "moe_combine_reduce needs hidden % 8 == 0, tokens > 0 "
                      "and topk > 0; got hidden "
                   << hidden << ", tokens " << tokens << ", topk " << topk;
    return false;
  }
  if (tokens * vectorsPerRow > std::numeric_limits<int32_t>::max() / 2) {
    emitError(loc) << "moe_combine_reduce: " << tokens << " tokens x "
                   << vectorsPerRow
                   << " vectors per row exceed its 32-bit work index";
    return false;
  }
  return true;
}

void megamoe::moe::buildCombineReduceBody(OpBuilder &b, Location loc,
                                          const MoeKernelContext &ctx,
                                          const BoundKernel &kernel,
                                          int64_t ctaThreads, Value thread) {
  const config::LayerConfig &c = ctx.config;
  const int64_t hidden = c.hidden, tokens = c.maxTokensPerRank, topk = c.topk;
  const int64_t vectorsPerRow = hidden / kBf16PerVector;
  Type i64 = b.getI64Type();
  Type v4i32 = vector16BytesType(b);
  Value topkIdx = kernel.arg("topk_idx"), combine = kernel.arg("combine"),
        y = kernel.arg("y");
  Value numTokens = clampCount(b, loc, kernel.arg("num_tokens"), tokens);

  // One thread per 16-byte vector (8 channels) of a token's output row.
  Value items =
      arith::MulIOp::create(b, loc, numTokens, i32Const(b, loc, vectorsPerRow));
  Value first =
      arith::AddIOp::create(b, loc,
                            arith::MulIOp::create(b, loc, blockIdX(b, loc),
                                                  i32Const(b, loc, ctaThreads)),
                            thread ? thread : threadIdX(b, loc));
  Value step = arith::MulIOp::create(b, loc, gridDimX(b, loc),
                                     i32Const(b, loc, ctaThreads));
  forLoop(
      b, loc, first, items, step, [&](OpBuilder &b, Value item) {
        Value token = arith::DivUIOp::create(b, loc, item,
                                             i32Const(b, loc, vectorsPerRow));
        Value vector = arith::RemUIOp::create(b, loc, item,
                                              i32Const(b, loc, vectorsPerRow));
        Value token64 = widen(b, loc, token);
        Value vectorBytes = arith::MulIOp::create(
            b, loc, widen(b, loc, vector), i64Const(b, loc, kVectorBytes));
        SmallVector<Value> init(kBf16PerVector, f32Const(b, loc, 0.0));
        // Slot order k = 0, 1, ...: the sum is the oracle's, bit for bit.
        auto slots = scf::ForOp::create(
            b, loc, i32Const(b, loc, 0), i32Const(b, loc, topk),
            i32Const(b, loc, 1), init,
            [&](OpBuilder &b, Location loc, Value k, ValueRange acc) {
              Value k64 = widen(b, loc, k);
              Value slotIndex = arith::AddIOp::create(
                  b, loc,
                  arith::MulIOp::create(b, loc, token64,
                                        i64Const(b, loc, topk)),
                  k64);
              Value expert =
                  load(b, loc, i64, rowPtr(b, loc, topkIdx, slotIndex, 8), 8);
              Value valid = inRange(b, loc, expert, i64Const(b, loc, 0),
                                    i64Const(b, loc, c.experts));
              auto ifValid = scf::IfOp::create(
                  b, loc, valid,
                  [&](OpBuilder &b, Location loc) {
                    // combine[k][token], this thread's 8 channels.
                    Value combineRow = arith::AddIOp::create(
                        b, loc,
                        arith::MulIOp::create(b, loc, k64,
                                              i64Const(b, loc, tokens)),
                        token64);
                    Value src = byteOffset(
                        b, loc,
                        rowPtr(b, loc, combine, combineRow, 2 * hidden),
                        vectorBytes);
                    Value data = load(b, loc, v4i32, src, kVectorBytes);
                    SmallVector<Value> sums;
                    for (int64_t w = 0; w < 4; ++w) {
                      auto [lo, hi] = buildUnpackBF16x2(
                          b, loc, vector::ExtractOp::create(b, loc, data, w));
                      sums.push_back(
                          arith::AddFOp::create(b, loc, acc[2 * w], lo));
                      sums.push_back(
                          arith::AddFOp::create(b, loc, acc[2 * w + 1], hi));
                    }
                    scf::YieldOp::create(b, loc, sums);
                  },
                  [&](OpBuilder &b, Location loc) {
                    scf::YieldOp::create(b, loc, acc);
                  });
              scf::YieldOp::create(b, loc, ifValid.getResults());
            });
        Value out = ub::PoisonOp::create(b, loc, v4i32);
        for (int64_t w = 0; w < 4; ++w)
          out = vector::InsertOp::create(
              b, loc,
              buildPackBF16x2(b, loc, slots.getResult(2 * w),
                              slots.getResult(2 * w + 1)),
              out, w);
        Value dst = byteOffset(
            b, loc, rowPtr(b, loc, y, token64, 2 * hidden), vectorBytes);
        store(b, loc, out, dst, kVectorBytes);
      });
}

void megamoe::buildMoeCombineReduceKernel(OpBuilder &b, Location loc,
                                          const MoeKernelContext &ctx) {
  if (!checkCombineReduceShape(loc, ctx))
    return;
  buildStageKernel(b, loc, ctx, kCombineReduceKernel,
                   combineReduceParams(b.getContext()), kThreads,
                   kMaxRegisters, persistentGrid(b),
                   [&](OpBuilder &b, const BoundKernel &kernel) {
                     buildCombineReduceBody(b, loc, ctx, kernel, kThreads);
                   });
}

SmallVector<KernelParam> megamoe::moe::combineParams(MLIRContext *mc) {
  SmallVector<KernelParam> params = combineBarrierParams(mc);
  appendParams(params, combineReduceParams(mc));
  return params;
}

// CTA 0's thread 0 crosses the ranks' barrier and only then arrives at the
// grid barrier (barriers[4]), so no CTA reduces before every peer's
// scattered rows to this rank are visible (sys-scope acquire, then the
// gpu-scope release/acquire of the grid barrier).
void megamoe::moe::buildCombineBody(OpBuilder &b, Location loc,
                                    const MoeKernelContext &ctx,
                                    const BoundKernel &args,
                                    StringRef kernelBase, int64_t ctaThreads,
                                    Value thread, Value ctaBarrier) {
  Value isFirst = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, blockIdX(b, loc),
                            i32Const(b, loc, 0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            thread ? thread : threadIdX(b, loc),
                            i32Const(b, loc, 0)));
  ifThen(b, loc, isFirst, [&](OpBuilder &tb) {
    buildCombineBarrierBody(tb, loc, ctx, args, kernelBase);
  });
  slotGridBarrier(b, loc, ctx, args, kernelBase, kCombineArrivedSlot,
                  "after the cross-rank barrier", ctaBarrier, thread);
  buildCombineReduceBody(b, loc, ctx, args, ctaThreads, thread);
}

// moe_combine (megamoe-expand merge-stages; docs/UnfusedSchedule.md,
// "Merged stages"): the combine barrier and the reduce in one kernel.
void megamoe::buildMoeCombineKernel(OpBuilder &b, Location loc,
                                    const MoeKernelContext &ctx) {
  if (!checkCombineReduceShape(loc, ctx) ||
      !checkRegion(loc, ctx, "barriers", kBarrierSlots * 4))
    return;
  buildStageKernel(b, loc, ctx, kCombineKernel, combineParams(b.getContext()),
                   kThreads, kMaxRegisters, persistentGrid(b),
                   [&](OpBuilder &b, const BoundKernel &kernel) {
                     buildCombineBody(b, loc, ctx, kernel, kCombineKernel,
                                      kThreads);
                   });
}
