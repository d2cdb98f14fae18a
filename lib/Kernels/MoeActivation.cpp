//===- MoeActivation.cpp - moe_activation: SwiGLU + FP8 requantization ----===//
//
// Kernel 5 of the unfused schedule (docs/UnfusedSchedule.md): for every used
// pool row and every group of 128 activation columns, one warp reads the
// row's L1 output (gate/up in the GEMM's interleave of 8), applies SwiGLU
// times the router weight, and requantizes the 128 values to e4m3 with one
// f32 scale (amax / 448), or with per-64 requantization two (each half warp
// reduces its own 64 columns). Each lane owns 4 consecutive columns, so its gate
// and up values are two aligned 16-byte loads and its 4 e4m3 bytes one 4-byte
// store (the warp's stores are one contiguous 128-byte line).
//
//===----------------------------------------------------------------------===//
#include "Collectives/PhaseProfile.h"
#include "MoeKernelUtil.h"
#include "megamoe/Kernels/KernelBuilder.h"
#include "megamoe/Kernels/MoeKernels.h"
#include "megamoe/Kernels/MoeMath.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace megamoe;
using namespace megamoe::moe;

namespace {

/// 32 warps per SM, each with one 1 KiB (row, group) load in flight: the
/// kernel streams h (f32) from HBM, and 16 warps (512 threads) reached about
/// half the HBM bandwidth (V4-Flash, 8192 tokens/rank: 466 us for 1.2 GB).
constexpr int64_t kThreads = 1024;
constexpr int64_t kWarps = kThreads / 32;
constexpr int64_t kMaxRegisters = 64; // 65536 / 1024
/// Activation columns per warp work item: one requantization block of 128,
/// or two of 64.
constexpr int64_t kGroupColumns = 128;
constexpr int64_t kColumnsPerLane = kGroupColumns / 32;
/// The L1 GEMM's output interleave: gate columns [16q, 16q + 8), up columns
/// [16q + 8, 16q + 16) hold activation columns [8q, 8q + 8).
constexpr int64_t kInterleave = 8;

/// The kernel's body: one warp per (pool row, 128-column group), grid-stride
/// over the used rows (buildMoeActivationKernel has checked the shapes).
void buildActivationBody(OpBuilder &b, Location loc,
                         const MoeKernelContext &ctx,
                         const BoundKernel &kernel) {
  const config::LayerConfig &c = ctx.config;
  const int64_t inter = c.intermediate, pool = ctx.plan.poolTokens;
  const int64_t requant = c.recipe.requantBlock;
  // Lanes per requantization block, and blocks per work item.
  const int64_t blockLanes = requant / kColumnsPerLane;
  const int64_t blocksPerItem = kGroupColumns / requant;
  const int64_t groups = inter / kGroupColumns;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value poolInfo = kernel.arg("pool_info"), l1Out = kernel.arg("l1_out"),
        rowWeight = kernel.arg("l1_pool_weight"),
        l2Pool = kernel.arg("l2_pool"), l2PoolSf = kernel.arg("l2_pool_sf");

  // Used rows = pool_info[1], bounded by the pool.
  Value usedRows = clampCount(
      b, loc,
      loadAt(b, loc, i32, poolInfo, i64Const(b, loc, 1), 4),
      pool);
  Value items =
      arith::MulIOp::create(b, loc, usedRows, i32Const(b, loc, groups));
  Value tid = threadIdX(b, loc);
  Value lane = arith::AndIOp::create(b, loc, tid, i32Const(b, loc, 31));
  Value warp = arith::ShRUIOp::create(b, loc, tid, i32Const(b, loc, 5));
  Value firstItem = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, blockIdX(b, loc), i32Const(b, loc, kWarps)),
      warp);
  Value step =
      arith::MulIOp::create(b, loc, gridDimX(b, loc), i32Const(b, loc, kWarps));

  forLoop(
      b, loc, firstItem, items, step,
      [&](OpBuilder &b, Value item) {
        Value row =
            arith::DivUIOp::create(b, loc, item, i32Const(b, loc, groups));
        Value group =
            arith::RemUIOp::create(b, loc, item, i32Const(b, loc, groups));
        // This lane's first activation column j and its gate column
        // 16 (j / 8) + j % 8 in the interleaved L1 output (j % 8 is 0 or 4).
        Value column = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, group,
                                  i32Const(b, loc, kGroupColumns)),
            arith::MulIOp::create(b, loc, lane,
                                  i32Const(b, loc, kColumnsPerLane)));
        Value gateColumn = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(
                b, loc,
                arith::DivUIOp::create(b, loc, column,
                                       i32Const(b, loc, kInterleave)),
                i32Const(b, loc, 2 * kInterleave)),
            arith::RemUIOp::create(b, loc, column,
                                   i32Const(b, loc, kInterleave)));
        Value row64 = widen(b, loc, row);
        Value outRow =
            arith::MulIOp::create(b, loc, row64, i64Const(b, loc, 2 * inter));
        Value gatePtr = rowPtr(
            b, loc, l1Out,
            arith::AddIOp::create(b, loc, outRow, widen(b, loc, gateColumn)),
            4);
        Value upPtr =
            byteOffset(b, loc, gatePtr, i64Const(b, loc, 4 * kInterleave));
        Value weight =
            load(b, loc, f32, rowPtr(b, loc, rowWeight, row64, 4));
        // A row with router weight 0 (every padding row) quantizes to q = 0,
        // sf = 0 whatever h holds (a = silu(g) u 0 has amax 0, and a zero
        // scale gives q = 0), so its h is not read: padding is most of the
        // pool at small batches. The branch is warp-uniform (one row).
        Value weightIsZero = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OEQ, weight, f32Const(b, loc, 0.0));
        auto quantized = scf::IfOp::create(
            b, loc, TypeRange{b.getI32Type(), f32}, weightIsZero,
            /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(quantized.thenBlock());
          scf::YieldOp::create(
              b, loc, ValueRange{i32Const(b, loc, 0), f32Const(b, loc, 0.0)});
          b.setInsertionPointToStart(quantized.elseBlock());
          Type f32x4 = VectorType::get({kColumnsPerLane}, f32);
          Value gates = load(b, loc, f32x4, gatePtr, 16);
          Value ups = load(b, loc, f32x4, upPtr, 16);
          SmallVector<Value, kColumnsPerLane> acts;
          Value laneMax = f32Const(b, loc, 0.0);
          for (int64_t i = 0; i < kColumnsPerLane; ++i) {
            Value gi = vector::ExtractOp::create(b, loc, gates, i);
            Value ui = vector::ExtractOp::create(b, loc, ups, i);
            Value a = buildSwiGLU(b, loc, gi, ui, weight, c.clamp, c.fastMath);
            acts.push_back(a);
            laneMax = arith::MaxNumFOp::create(b, loc, laneMax,
                                               math::AbsFOp::create(b, loc, a));
          }
          Value amax = buildWarpAbsMaxF32(b, loc, laneMax, blockLanes);
          Value scale = buildRequantScale(b, loc, amax);
          Value packed = buildQuantizeE4M3x4(b, loc, acts, scale);
          scf::YieldOp::create(b, loc, ValueRange{packed, scale});
        }
        Value q = quantized.getResult(0);
        Value sf = quantized.getResult(1);

        Value qPtr = byteOffset(
            b, loc, l2Pool,
            arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, row64, i64Const(b, loc, inter)),
                widen(b, loc, column)));
        store(b, loc, q, qPtr, 4);
        // The scale, MN-major: l2_pool_sf[block][row], stored by the first
        // lane of each requantization block (block = group x blocksPerItem
        // + lane / blockLanes).
        Value inBlock =
            blocksPerItem > 1
                ? arith::RemUIOp::create(b, loc, lane,
                                         i32Const(b, loc, blockLanes))
                      .getResult()
                : lane;
        Value isLane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              inBlock, i32Const(b, loc, 0));
        auto ifLane0 = scf::IfOp::create(b, loc, TypeRange{}, isLane0, false);
        {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPoint(ifLane0.thenBlock()->getTerminator());
          Value block = group;
          if (blocksPerItem > 1)
            block = arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(b, loc, group,
                                      i32Const(b, loc, blocksPerItem)),
                arith::DivUIOp::create(b, loc, lane,
                                       i32Const(b, loc, blockLanes)));
          Value sfIndex = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, widen(b, loc, block),
                                    i64Const(b, loc, pool)),
              row64);
          store(b, loc, sf, rowPtr(b, loc, l2PoolSf, sfIndex, 4), 4);
        }
      });
}

} // namespace

void megamoe::buildMoeActivationKernel(OpBuilder &b, Location loc,
                                       const MoeKernelContext &ctx) {
  const config::LayerConfig &c = ctx.config;
  const int64_t inter = c.intermediate, pool = ctx.plan.poolTokens;
  const int64_t requant = c.recipe.requantBlock;
  if (requant != kGroupColumns && requant != kGroupColumns / 2) {
    emitError(loc) << "moe_activation requantizes per 128 or 64 columns; the "
                      "layer asks for per "
                   << requant;
    return;
  }
  if (inter % kGroupColumns != 0 || pool <= 0) {
    emitError(loc) << "moe_activation needs intermediate % 128 == 0 and a "
                      "pool; got intermediate "
                   << inter << ", pool rows " << pool;
    return;
  }
  const int64_t groups = inter / kGroupColumns;
  if (pool * groups > std::numeric_limits<int32_t>::max() / 2) {
    emitError(loc) << "moe_activation: " << pool << " pool rows x " << groups
                   << " column groups exceed its 32-bit work index";
    return;
  }

  MLIRContext *mc = b.getContext();
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  // l2_pool holds e4m3 bytes; the kernel stores them four at a time.
  SmallVector<KernelParam> params = {
      regionParam(mc, "pool_info", i32),
      regionParam(mc, "l1_out", f32),
      regionParam(mc, "l1_pool_weight", f32),
      regionParam(mc, "l2_pool", b.getI8Type()),
      regionParam(mc, "l2_pool_sf", f32),
  };
  buildStageKernel(b, loc, ctx, kActivationKernel, params, kThreads,
                   kMaxRegisters, persistentGrid(b),
                   [&](OpBuilder &kb, const BoundKernel &kernel) {
                     buildActivationBody(kb, loc, ctx, kernel);
                   });
}
