//===- MoePull.cpp - moe_pull: fill the pool rows from the source ranks ---===//
//
// Kernel 3 of the unfused schedule (docs/UnfusedSchedule.md). One warp per
// used pool row (rows < pool_info[1], grid-stride over warps):
//   row -> block -> local expert l (pool_block_expert) -> source rank r (the
//   number of ranks r' with pool_row_start[l][r' + 1] <= row, counted by
//   the lanes and summed with redux.sync; r == R is a padding row) ->
//   slot s = src_token_index[l][r][row - pool_row_start[l][r]],
// then copies rank r's x[t] (16-byte vectors, a few in flight per lane),
// x_sf[t][c] into the MN-major l1_pool_sf[c][row], topk_weights[t][k] and
// (r, t, k). Padding rows get zeros and source (-1, -1, -1). Every loop
// index is warp-uniform, so the whole warp reaches the redux.
//
// Values read from memory are range-checked before they index anything:
// an expert outside [0, L) or a slot outside [0, T * K) turns the row into
// a padding row instead of an out-of-bounds access.
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

// One CTA per SM (grid num_sms): 32 warps keep 32 rows of NVLink reads in
// flight per SM; 64 registers x 1024 threads fill the register file.
constexpr int64_t kThreads = 1024;
constexpr int64_t kMaxRegisters = 64;
constexpr int64_t kWarpSize = 32;
constexpr int64_t kWarpsPerCta = kThreads / kWarpSize;
constexpr int64_t kVectorBytes = 16;


/// Shapes of the kernel, from the layer and the plan.
struct PullShape {
  /// align: pool rows per pool_block_expert entry (the variant's expert
  /// alignment: BLOCK_M, or 64 with half blocks).
  int64_t H, K, L, R, slotsPerRank, scaleColumns, align, poolRows;
  /// 16-byte vectors each lane moves per iteration of the row copy.
  int64_t unroll;
};

/// Per-row values shared by the copy and the zero fill.
struct RowFrame {
  const PullShape &s;
  const BoundKernel &args;
  Value lane, row;
  Value poolRow; // &l1_pool[row][0]
};

/// The largest unroll (4, 2, 1) whose 32 * unroll vectors divide the row, so
/// that the unrolled loop needs no per-vector bound check.
int64_t chooseUnroll(int64_t vectors) {
  for (int64_t u : {4, 2})
    if (vectors % (kWarpSize * u) == 0)
      return u;
  return 1;
}

/// Runs body(vectorIndices) over the H / 16 vectors of a row, `unroll` per
/// lane per iteration.
void forRowVectors(OpBuilder &b, Location loc, const RowFrame &f,
                   function_ref<void(OpBuilder &, ArrayRef<Value>)> body) {
  int64_t vectors = f.s.H / kVectorBytes;
  forLoop(b, loc, f.lane, i32Const(b, loc, vectors),
          i32Const(b, loc, kWarpSize * f.s.unroll),
          [&](OpBuilder &lb, Value first) {
            SmallVector<Value> indices;
            for (int64_t u = 0; u < f.s.unroll; ++u)
              indices.push_back(arith::AddIOp::create(
                  lb, loc, first, i32Const(lb, loc, u * kWarpSize)));
            body(lb, indices);
          });
}

/// &l1_pool_sf[c][row] as an element index.
Value poolScaleIndex(OpBuilder &b, Location loc, const RowFrame &f, Value c) {
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, widen(b, loc, c),
                            i64Const(b, loc, f.s.poolRows)),
      widen(b, loc, f.row));
}

void forScaleColumns(OpBuilder &b, Location loc, const RowFrame &f,
                     function_ref<void(OpBuilder &, Value)> body) {
  forLoop(b, loc, f.lane, i32Const(b, loc, f.s.scaleColumns),
          i32Const(b, loc, kWarpSize), body);
}

void ifLane0(OpBuilder &b, Location loc, const RowFrame &f,
             function_ref<void(OpBuilder &)> body) {
  Value isLane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        f.lane, i32Const(b, loc, 0));
  ifThen(b, loc, isLane0, body);
}

void storeSource(OpBuilder &b, Location loc, const RowFrame &f, Value r,
                 Value t, Value k) {
  Value base =
      arith::MulIOp::create(b, loc, widen(b, loc, f.row), i64Const(b, loc, 3));
  Value fields[] = {r, t, k};
  for (int64_t i = 0; i < 3; ++i)
    storeAt(b, loc, fields[i], f.args.arg("pool_source"),
            arith::AddIOp::create(b, loc, base, i64Const(b, loc, i)), 4);
}

/// A real row: rank r's x[t], x_sf[t][:], topk_weights[t][k], source.
void copyRow(OpBuilder &b, Location loc, const RowFrame &f, Value r,
             Value slot) {
  const PullShape &s = f.s;
  Value t = arith::DivUIOp::create(b, loc, slot, i32Const(b, loc, s.K));
  Value k = arith::RemUIOp::create(b, loc, slot, i32Const(b, loc, s.K));
  Value peerX =
      ws::PeerPtrOp::create(b, loc, f.args.arg("x"), r, f.args.arg("peer_offsets"));
  Value xRow = elementPtr(
      b, loc, peerX, b.getI8Type(),
      arith::MulIOp::create(b, loc, widen(b, loc, t), i64Const(b, loc, s.H)));
  Type vec = vector16BytesType(b);
  forRowVectors(b, loc, f, [&](OpBuilder &lb, ArrayRef<Value> indices) {
    // All loads first: `unroll` 16-byte NVLink reads in flight per lane.
    SmallVector<Value> values;
    for (Value i : indices)
      values.push_back(loadAt(lb, loc, vec, xRow, i, kVectorBytes));
    for (auto [i, v] : llvm::zip(indices, values))
      storeAt(lb, loc, v, f.poolRow, i, kVectorBytes);
  });
  Value peerSf =
      ws::PeerPtrOp::create(b, loc, f.args.arg("x_sf"), r, f.args.arg("peer_offsets"));
  Value sfRow = arith::MulIOp::create(b, loc, widen(b, loc, t),
                                      i64Const(b, loc, s.scaleColumns));
  forScaleColumns(b, loc, f, [&](OpBuilder &lb, Value c) {
    Value scale =
        loadAt(lb, loc, lb.getF32Type(), peerSf,
               arith::AddIOp::create(lb, loc, sfRow, widen(lb, loc, c)), 4);
    storeAt(lb, loc, scale, f.args.arg("l1_pool_sf"), poolScaleIndex(lb, loc, f, c),
            4);
  });
  ifLane0(b, loc, f, [&](OpBuilder &lb) {
    Value peerWeights = ws::PeerPtrOp::create(lb, loc, f.args.arg("topk_weights"), r,
                                              f.args.arg("peer_offsets"));
    Value weight = loadAt(lb, loc, lb.getF32Type(), peerWeights, slot, 4);
    storeAt(lb, loc, weight, f.args.arg("l1_pool_weight"), f.row, 4);
    storeSource(lb, loc, f, r, t, k);
  });
}

/// A padding row: zero x, scales and weight; source (-1, -1, -1).
void zeroRow(OpBuilder &b, Location loc, const RowFrame &f) {
  auto vec = cast<VectorType>(vector16BytesType(b));
  forRowVectors(b, loc, f, [&](OpBuilder &lb, ArrayRef<Value> indices) {
    Value zero = arith::ConstantOp::create(
        lb, loc, DenseElementsAttr::get(vec, lb.getI32IntegerAttr(0)));
    for (Value i : indices)
      storeAt(lb, loc, zero, f.poolRow, i, kVectorBytes);
  });
  forScaleColumns(b, loc, f, [&](OpBuilder &lb, Value c) {
    Value zero =
        arith::ConstantFloatOp::create(lb, loc, lb.getF32Type(), APFloat(0.0f));
    storeAt(lb, loc, zero, f.args.arg("l1_pool_sf"), poolScaleIndex(lb, loc, f, c), 4);
  });
  ifLane0(b, loc, f, [&](OpBuilder &lb) {
    Value zero =
        arith::ConstantFloatOp::create(lb, loc, lb.getF32Type(), APFloat(0.0f));
    storeAt(lb, loc, zero, f.args.arg("l1_pool_weight"), f.row, 4);
    Value none = i32Const(lb, loc, -1);
    storeSource(lb, loc, f, none, none, none);
  });
}

/// The source rank of `row` in expert l's segment: the count of ranks r'
/// whose segment ends at or before the row; R for a padding row.
Value sourceRank(OpBuilder &b, Location loc, const RowFrame &f, Value l) {
  const PullShape &s = f.s;
  Value rowBase = arith::MulIOp::create(b, loc, l, i32Const(b, loc, s.R + 1));
  auto loop = scf::ForOp::create(
      b, loc, f.lane, i32Const(b, loc, s.R), i32Const(b, loc, kWarpSize),
      ValueRange{i32Const(b, loc, 0)},
      [&](OpBuilder &lb, Location ll, Value r, ValueRange acc) {
        Value end =
            loadAt(lb, ll, lb.getI32Type(), f.args.arg("pool_row_start"),
                   arith::AddIOp::create(
                       lb, ll, rowBase,
                       arith::AddIOp::create(lb, ll, r, i32Const(lb, ll, 1))),
                   4);
        Value before = arith::CmpIOp::create(lb, ll, arith::CmpIPredicate::ule,
                                             end, f.row);
        Value sum = arith::AddIOp::create(
            lb, ll, acc[0],
            arith::ExtUIOp::create(lb, ll, lb.getI32Type(), before));
        scf::YieldOp::create(lb, ll, sum);
      });
  // All 32 lanes take part (uniform): redux.sync.add.u32.
  return gpu::SubgroupReduceOp::create(b, loc, loop.getResult(0),
                                       gpu::AllReduceOperation::ADD,
                                       /*uniform=*/true);
}

/// The slot (t * K + k) that fills `row`, or -1 for a padding row.
Value rowSlot(OpBuilder &b, Location loc, const RowFrame &f, Value l, Value r) {
  const PullShape &s = f.s;
  Value isSource = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, r,
                                         i32Const(b, loc, s.R));
  auto slot = scf::IfOp::create(
      b, loc, isSource,
      [&](OpBuilder &tb, Location tl) {
        Value start = loadAt(
            tb, tl, tb.getI32Type(), f.args.arg("pool_row_start"),
            arith::AddIOp::create(
                tb, tl,
                arith::MulIOp::create(tb, tl, l, i32Const(tb, tl, s.R + 1)), r),
            4);
        Value pos = arith::SubIOp::create(tb, tl, f.row, start);
        // src_token_index[l][r][pos]; pos < recv_count[r][l] <= T * K.
        Value list = arith::AddIOp::create(
            tb, tl, arith::MulIOp::create(tb, tl, l, i32Const(tb, tl, s.R)), r);
        Value index = arith::AddIOp::create(
            tb, tl,
            arith::MulIOp::create(tb, tl, widen(tb, tl, list),
                                  i64Const(tb, tl, s.slotsPerRank)),
            widen(tb, tl, pos));
        scf::YieldOp::create(
            tb, tl,
            loadAt(tb, tl, tb.getI32Type(), f.args.arg("src_token_index"), index, 4));
      },
      [&](OpBuilder &eb, Location el) {
        scf::YieldOp::create(eb, el, i32Const(eb, el, -1));
      });
  return slot.getResult(0);
}

void pullRow(OpBuilder &b, Location loc, const PullShape &s, const BoundKernel &args,
             Value lane, Value row) {
  Value poolRow = elementPtr(
      b, loc, args.arg("l1_pool"), b.getI8Type(),
      arith::MulIOp::create(b, loc, widen(b, loc, row), i64Const(b, loc, s.H)));
  RowFrame f{s, args, lane, row, poolRow};
  Value block = arith::DivUIOp::create(b, loc, row, i32Const(b, loc, s.align));
  Value expert =
      loadAt(b, loc, b.getI32Type(), args.arg("pool_block_expert"), block, 4);
  Value expertOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         expert, i32Const(b, loc, s.L));
  // An expert outside [0, L) reads row 0's starts (in bounds) and is then
  // forced to padding.
  Value l =
      arith::SelectOp::create(b, loc, expertOk, expert, i32Const(b, loc, 0));
  Value r = arith::SelectOp::create(b, loc, expertOk, sourceRank(b, loc, f, l),
                                    i32Const(b, loc, s.R));
  Value slot = rowSlot(b, loc, f, l, r);
  Value isReal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, slot,
                                       i32Const(b, loc, s.slotsPerRank));
  ifThen(
      b, loc, isReal, [&](OpBuilder &tb) { copyRow(tb, loc, f, r, slot); },
      [&](OpBuilder &eb) { zeroRow(eb, loc, f); });
}

} // namespace

void megamoe::buildMoePullKernel(OpBuilder &b, Location loc,
                                 const MoeKernelContext &ctx) {
  const config::LayerConfig &c = ctx.config;
  const int64_t H = c.hidden, T = c.maxTokensPerRank, K = c.topk;
  const int64_t sfBlock = c.recipe.inputScaleBlock;
  PullShape s{H,
              K,
              c.localExperts(),
              c.ranks,
              T * K,
              sfBlock > 0 ? H / sfBlock : 0,
              ctx.expertAlign,
              ctx.plan.poolTokens,
              chooseUnroll(H / kVectorBytes)};
  if (H % 128 != 0 || sfBlock <= 0 || H % sfBlock != 0) {
    emitError(loc) << "moe_pull: hidden (" << H
                   << ") must be a multiple of 128 and of the input scale "
                      "block ("
                   << sfBlock << ")";
    return;
  }
  if (s.align <= 0 || s.poolRows % s.align != 0) {
    emitError(loc) << "moe_pull: the pool's " << s.poolRows
                   << " rows are not a multiple of the expert alignment "
                   << s.align;
    return;
  }
  const int64_t P = s.poolRows;
  if (!checkRegion(loc, ctx, "src_token_index", s.L * s.R * T * K * 4) ||
      !checkRegion(loc, ctx, "pool_row_start", s.L * (s.R + 1) * 4) ||
      !checkRegion(loc, ctx, "pool_block_expert", P / s.align * 4) ||
      !checkRegion(loc, ctx, "pool_info", 2 * 4) ||
      !checkRegion(loc, ctx, "l1_pool", P * H) ||
      !checkRegion(loc, ctx, "l1_pool_sf", s.scaleColumns * P * 4) ||
      !checkRegion(loc, ctx, "l1_pool_weight", P * 4) ||
      !checkRegion(loc, ctx, "pool_source", P * 3 * 4) ||
      !checkRegion(loc, ctx, "x", T * H) ||
      !checkRegion(loc, ctx, "x_sf", T * s.scaleColumns * 4) ||
      !checkRegion(loc, ctx, "topk_weights", T * K * 4))
    return;
  MLIRContext *mc = b.getContext();
  // fp8 rows are bytes (x, l1_pool); scales and weights f32.
  Type i8 = b.getI8Type(), i32 = b.getI32Type(), f32 = b.getF32Type();
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
  OpBuilder::InsertionGuard guard(b);
  addProfileParam(params, ctx, kPullKernel);
  BoundKernel kernel = createBoundKernel(
      b, loc, ctx.kernelName(kPullKernel), params, kThreads, kMaxRegisters,
      config::toString(c.chip), persistentGrid(b));
  collectives::PhaseProfile profile =
      kernelProfile(kernel, ctx, kPullKernel);
  profile.stampCta(b, loc, /*end=*/false);
  const BoundKernel &args = kernel;

  Value tid = threadIdX(b, loc);
  Value lane = laneId(b, loc);
  Value warp = arith::DivUIOp::create(b, loc, tid, i32Const(b, loc, kWarpSize));
  // Rows beyond the pool are never touched, whatever pool_info says.
  Value rows = umin(
      b, loc,
      loadAt(b, loc, b.getI32Type(), args.arg("pool_info"), i32Const(b, loc, 1), 4),
      i32Const(b, loc, P));
  Value warps = i32Const(b, loc, kWarpsPerCta);
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockIdX(b, loc), warps), warp);
  Value stride = arith::MulIOp::create(b, loc, gridDimX(b, loc), warps);
  forLoop(b, loc, first, rows, stride, [&](OpBuilder &lb, Value row) {
    pullRow(lb, loc, s, args, lane, row);
  });
  profile.stampCta(b, loc, /*end=*/true);
  ws::ReturnOp::create(b, loc);
}
