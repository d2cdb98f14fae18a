//===- PoolPull.cpp - one warp copies one token-pool row ------------------===//
//
// docs/Collectives.md; the header says what a row holds.
//
//===----------------------------------------------------------------------===//
#include "PoolPull.h"
#include "../MoeKernelUtil.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::collectives;
using namespace megamoe::moe;
namespace ws = mlir::warpspec;

namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kVectorBytes = 16;

/// Per-row values shared by the copy and the zero fill.
struct RowFrame {
  const PoolPullShape &s;
  const PoolPullOperands &ops;
  Value lane, row; // row: the layout's row number (reads the tables)
  Value dataRow;   // where the row is stored: row, or row mod poolRows
  Value poolRow;   // &pool[dataRow][0]
};

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

/// &pool_sf[c][row] as an element index.
Value poolScaleIndex(OpBuilder &b, Location loc, const RowFrame &f, Value c) {
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, widen(b, loc, c),
                            i64Const(b, loc, f.s.poolRows)),
      widen(b, loc, f.dataRow));
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
  Value base = arith::MulIOp::create(b, loc, widen(b, loc, f.dataRow),
                                     i64Const(b, loc, 3));
  Value fields[] = {r, t, k};
  for (int64_t i = 0; i < 3; ++i)
    storeAt(b, loc, fields[i], f.ops.poolSource,
            arith::AddIOp::create(b, loc, base, i64Const(b, loc, i)), 4);
}

/// x[t] through the lanes' registers: `unroll` 16-byte vectors in flight
/// per lane.
void copyXThroughRegisters(OpBuilder &b, Location loc, const RowFrame &f,
                           Value xRow) {
  Type vec = vector16BytesType(b);
  forRowVectors(b, loc, f, [&](OpBuilder &lb, ArrayRef<Value> indices) {
    // All loads first: `unroll` 16-byte NVLink reads in flight per lane.
    SmallVector<Value> values;
    for (Value i : indices)
      values.push_back(loadAt(lb, loc, vec, xRow, i, kVectorBytes));
    for (auto [i, v] : llvm::zip(indices, values))
      storeAt(lb, loc, v, f.poolRow, i, kVectorBytes);
  });
}

/// x[t] into the SMEM slot (lane 0's bulk copy, completing on full[0] of
/// the slot's one-stage pipeline): the whole row in flight, no registers.
/// The warp is the slot's only producer and consumer and lane 0 issues both
/// copies in order: its wait for the previous row's store to complete
/// (finishXThroughSmem) already orders this copy after that store's reads,
/// so the pipeline's empty side (producer.acquire, consumer.release) would
/// order nothing. Leaving it out keeps its barrier address and iterator out
/// of the dispatch warps' 40 registers (with it V4-Pro's BLOCK_M 64 L1
/// kernel spilled 12 bytes).
void startXThroughSmem(OpBuilder &b, Location loc, const RowFrame &f,
                       Value xRow) {
  Value pipe = f.ops.stagingPipeline;
  Value stage = indexConst(b, loc, 0);
  Value source = ws::GlobalCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), xRow);
  ws::BulkCopyOp::create(b, loc, source, i32Const(b, loc, f.s.H),
                         f.ops.staging, stage, pipe, IntegerAttr());
  ws::ProducerCommitOp::create(b, loc, pipe, stage, IntegerAttr());
}

/// Then, once it landed, from the slot to the pool row; lane 0 waits until
/// the global writes are performed (the row is counted after that, and the
/// next row's copy may then refill the slot).
void finishXThroughSmem(OpBuilder &b, Location loc, const RowFrame &f) {
  Value pipe = f.ops.stagingPipeline;
  Value full = ws::ConsumerWaitOp::create(b, loc, pipe);
  Value src = ws::SmemSlotOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), f.ops.staging,
      full);
  ws::BulkStoreOp::create(b, loc, src, i32Const(b, loc, f.s.H), f.poolRow);
  ws::TmaStoreWaitOp::create(b, loc, 0u, /*read=*/false);
}

/// A real row: rank r's x[t], x_sf[t][:], topk_weights[t][k], source. With
/// the SMEM slot, the scales and the weight move while x is in flight.
void copyRow(OpBuilder &b, Location loc, const RowFrame &f, Value r,
             Value slot) {
  const PoolPullShape &s = f.s;
  Value t = arith::DivUIOp::create(b, loc, slot, i32Const(b, loc, s.K));
  Value k = arith::RemUIOp::create(b, loc, slot, i32Const(b, loc, s.K));
  Value peerX =
      ws::PeerPtrOp::create(b, loc, f.ops.x, r, f.ops.peerOffsets);
  Value xRow = elementPtr(
      b, loc, peerX, b.getI8Type(),
      arith::MulIOp::create(b, loc, widen(b, loc, t), i64Const(b, loc, s.H)));
  if (f.ops.staging)
    startXThroughSmem(b, loc, f, xRow);
  else
    copyXThroughRegisters(b, loc, f, xRow);
  Value peerSf =
      ws::PeerPtrOp::create(b, loc, f.ops.xScales, r, f.ops.peerOffsets);
  Value sfRow = arith::MulIOp::create(b, loc, widen(b, loc, t),
                                      i64Const(b, loc, s.scaleColumns));
  forScaleColumns(b, loc, f, [&](OpBuilder &lb, Value c) {
    Value scale =
        loadAt(lb, loc, lb.getF32Type(), peerSf,
               arith::AddIOp::create(lb, loc, sfRow, widen(lb, loc, c)), 4);
    storeAt(lb, loc, scale, f.ops.poolScales, poolScaleIndex(lb, loc, f, c),
            4);
  });
  ifLane0(b, loc, f, [&](OpBuilder &lb) {
    Value peerWeights = ws::PeerPtrOp::create(lb, loc, f.ops.topkWeights, r,
                                              f.ops.peerOffsets);
    Value weight = loadAt(lb, loc, lb.getF32Type(), peerWeights, slot, 4);
    storeAt(lb, loc, weight, f.ops.poolWeights, f.dataRow, 4);
    storeSource(lb, loc, f, r, t, k);
  });
  if (f.ops.staging)
    finishXThroughSmem(b, loc, f);
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
    storeAt(lb, loc, zero, f.ops.poolScales, poolScaleIndex(lb, loc, f, c), 4);
  });
  ifLane0(b, loc, f, [&](OpBuilder &lb) {
    Value zero =
        arith::ConstantFloatOp::create(lb, loc, lb.getF32Type(), APFloat(0.0f));
    storeAt(lb, loc, zero, f.ops.poolWeights, f.dataRow, 4);
    Value none = i32Const(lb, loc, -1);
    storeSource(lb, loc, f, none, none, none);
  });
}

/// The source rank of `row` in expert l's segment: the count of ranks r'
/// whose segment ends at or before the row; R for a padding row.
Value sourceRank(OpBuilder &b, Location loc, const RowFrame &f, Value l) {
  const PoolPullShape &s = f.s;
  Value rowBase = arith::MulIOp::create(b, loc, l, i32Const(b, loc, s.R + 1));
  auto loop = scf::ForOp::create(
      b, loc, f.lane, i32Const(b, loc, s.R), i32Const(b, loc, kWarpSize),
      ValueRange{i32Const(b, loc, 0)},
      [&](OpBuilder &lb, Location ll, Value r, ValueRange acc) {
        Value end =
            loadAt(lb, ll, lb.getI32Type(), f.ops.poolRowStart,
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
  const PoolPullShape &s = f.s;
  Value isSource = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, r,
                                         i32Const(b, loc, s.R));
  auto slot = scf::IfOp::create(
      b, loc, isSource,
      [&](OpBuilder &tb, Location tl) {
        Value start = loadAt(tb, tl, tb.getI32Type(), f.ops.poolRowStart,
                             poolRowStartIndex(tb, tl, l, r, s.R), 4);
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
            loadAt(tb, tl, tb.getI32Type(), f.ops.srcTokenIndex, index, 4));
      },
      [&](OpBuilder &eb, Location el) {
        scf::YieldOp::create(eb, el, i32Const(eb, el, -1));
      });
  return slot.getResult(0);
}

} // namespace

Value collectives::poolDataRow(OpBuilder &b, Location loc, Value row,
                               int64_t poolRows, bool wraps) {
  if (!wraps)
    return row;
  return arith::RemUIOp::create(b, loc, row, i32Const(b, loc, poolRows));
}

void collectives::pullPoolRow(OpBuilder &b, Location loc,
                              const PoolPullShape &s,
                              const PoolPullOperands &ops, Value lane,
                              Value row) {
  Value dataRow = poolDataRow(b, loc, row, s.poolRows, s.wraps);
  Value poolRow =
      elementPtr(b, loc, ops.pool, b.getI8Type(),
                 arith::MulIOp::create(b, loc, widen(b, loc, dataRow),
                                       i64Const(b, loc, s.H)));
  RowFrame f{s, ops, lane, row, dataRow, poolRow};
  Value block = arith::DivUIOp::create(b, loc, row, i32Const(b, loc, s.align));
  Value expert =
      loadAt(b, loc, b.getI32Type(), ops.poolBlockExpert, block, 4);
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

int64_t PoolPullShape::chooseUnroll(int64_t hidden, int64_t most) {
  int64_t vectors = hidden / kVectorBytes;
  if (vectors % kWarpSize != 0)
    return 1;
  for (int64_t u = most; u > 1; --u)
    if ((vectors / kWarpSize) % u == 0)
      return u;
  return 1;
}
