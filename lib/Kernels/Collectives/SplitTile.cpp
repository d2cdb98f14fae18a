//===- SplitTile.cpp - the K-split tail's hand-off of partial sums --------===//
#include "SplitTile.h"
#include "../MoeKernelUtil.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::collectives;
using megamoe::moe::i32Const;
using megamoe::moe::indexConst;
namespace ws = mlir::warpspec;

namespace {

/// &partials[(tile P + part) tileFloats + block blockFloats].
Value slotAddress(OpBuilder &b, Location loc, const SplitTileHandoff &h,
                  Value tile, Value part, int64_t block) {
  Value slot = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, tile, i32Const(b, loc, h.parts)),
      part);
  Value floats = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, slot, i32Const(b, loc, h.tileFloats)),
      i32Const(b, loc, block * h.blockFloats));
  return ws::GlobalOffsetOp::create(b, loc, h.partials, floats);
}

/// a + c element by element (acc.map).
Value addAccs(OpBuilder &b, Location loc, Value a, Value c) {
  auto op = ws::AccMapOp::create(b, loc, a.getType(), ValueRange{a, c},
                                 ValueRange{});
  OpBuilder::InsertionGuard g(b);
  Block *body = b.createBlock(&op.getBody());
  body->addArgument(b.getF32Type(), loc);
  body->addArgument(b.getF32Type(), loc);
  ws::AccYieldOp::create(
      b, loc,
      arith::AddFOp::create(b, loc, body->getArgument(0), body->getArgument(1)));
  return op.getResult();
}

} // namespace

KRange megamoe::collectives::splitUnitKRange(OpBuilder &b, Location loc,
                                             Value unit, int64_t kBlocks,
                                             int64_t parts) {
  if (!unit)
    return {};
  int64_t per = kBlocks / parts;
  Value isUnit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, unit,
                                       i32Const(b, loc, 0));
  Value part = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      arith::RemUIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, unit, i32Const(b, loc, 0)),
          i32Const(b, loc, parts)));
  Value begin = arith::SelectOp::create(
      b, loc, isUnit,
      arith::MulIOp::create(b, loc, part, indexConst(b, loc, per)),
      indexConst(b, loc, 0));
  Value end = arith::SelectOp::create(
      b, loc, isUnit,
      arith::AddIOp::create(b, loc, begin, indexConst(b, loc, per)),
      indexConst(b, loc, kBlocks));
  return {begin, end};
}

std::pair<Value, SmallVector<Value, 2>> megamoe::collectives::finishSplitUnit(
    OpBuilder &b, Location loc, const SplitTileHandoff &h, Value unit,
    ValueRange accs, ArrayRef<int64_t> columnBlocks, int64_t counterSlot,
    Value barrier, Value isWarp0, Value rows) {
  SmallVector<Type> types{b.getI1Type()};
  for (Value a : accs)
    types.push_back(a.getType());
  auto yieldAll = [&](OpBuilder &yb, Value run, ValueRange values) {
    SmallVector<Value> all{run};
    llvm::append_range(all, values);
    scf::YieldOp::create(yb, loc, all);
  };
  auto flag = [&](OpBuilder &fb, bool v) {
    return arith::ConstantIntOp::create(fb, loc, fb.getI1Type(), v).getResult();
  };
  Value isUnit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, unit,
                                       i32Const(b, loc, 0));
  auto outer = scf::IfOp::create(b, loc, types, isUnit, /*withElse=*/true);
  {
    OpBuilder ub = outer.getThenBodyBuilder();
    Value parts = i32Const(ub, loc, h.parts);
    Value part = arith::RemUIOp::create(ub, loc, unit, parts);
    Value tile = arith::DivUIOp::create(ub, loc, unit, parts);
    Value counter = ws::GlobalOffsetOp::create(
        ub, loc, h.counts,
        arith::AddIOp::create(
            ub, loc, arith::MulIOp::create(ub, loc, tile, i32Const(ub, loc, 2)),
            i32Const(ub, loc, counterSlot)));
    Value lane0 = arith::AndIOp::create(
        ub, loc, isWarp0,
        arith::CmpIOp::create(ub, loc, arith::CmpIPredicate::eq,
                              moe::laneId(ub, loc), i32Const(ub, loc, 0)));
    Value isLast = arith::CmpIOp::create(ub, loc, arith::CmpIPredicate::eq,
                                         part, i32Const(ub, loc, h.parts - 1));
    auto inner = scf::IfOp::create(ub, loc, types, isLast, /*withElse=*/true);
    {
      // The last unit: wait for the others, then sum in part order.
      OpBuilder lb = inner.getThenBodyBuilder();
      moe::ifThen(lb, loc, isWarp0, [&](OpBuilder &wb) {
        ws::CounterWaitOp::create(
            wb, loc, counter, i32Const(wb, loc, h.parts - 1), ws::Scope::gpu,
            wb.getStringAttr("split_partials"),
            h.timeoutCycles ? wb.getI64IntegerAttr(*h.timeoutCycles)
                            : IntegerAttr());
      });
      // Warp 0's acquire, then the barrier: every thread's loads below see
      // the partials.
      ws::BarrierSyncOp::create(lb, loc, barrier);
      // With two column blocks (BLOCK_N 256 on one warpgroup) the blocks are
      // summed one at a time through the unit's own slot: the second
      // block's own partial waits there while the first is summed, and the
      // first block's sum while the second is (2 x 64 own + 64 total + 64
      // incoming registers spilled 8-60 bytes in the BLOCK_M 64 L2 and
      // unfused L1 GEMMs). Each thread reads back only what it wrote.
      Value lastPart = i32Const(lb, loc, h.parts - 1);
      auto ownSlot = [&](size_t j) {
        return slotAddress(lb, loc, h, tile, lastPart, columnBlocks[j]);
      };
      for (size_t j = 1; j < accs.size(); ++j)
        ws::AccSpillOp::create(lb, loc, accs[j], ownSlot(j), rows);
      SmallVector<Value> sums;
      for (auto [j, held] : llvm::enumerate(accs)) {
        Value own = j == 0 ? held
                           : ws::AccFillOp::create(lb, loc, held.getType(),
                                                   ownSlot(j), rows)
                                 .getResult();
        Value total;
        for (int64_t q = 0; q + 1 < h.parts; ++q) {
          Value partial = ws::AccFillOp::create(
              lb, loc, own.getType(),
              slotAddress(lb, loc, h, tile, i32Const(lb, loc, q),
                          columnBlocks[j]),
              rows);
          total = total ? addAccs(lb, loc, total, partial) : partial;
        }
        Value sum = addAccs(lb, loc, total, own);
        if (j + 1 < accs.size()) {
          ws::AccSpillOp::create(lb, loc, sum, ownSlot(j), rows);
          sum = Value();
        }
        sums.push_back(sum);
      }
      for (size_t j = 0; j + 1 < accs.size(); ++j)
        sums[j] =
            ws::AccFillOp::create(lb, loc, accs[j].getType(), ownSlot(j), rows);
      // Every waiter of this call has passed (only warp 0 waited).
      moe::ifThen(lb, loc, lane0, [&](OpBuilder &zb) {
        moe::store(zb, loc, i32Const(zb, loc, 0), counter, 4);
      });
      yieldAll(lb, flag(lb, true), sums);
    }
    {
      // Units 0 .. P - 2: spill, meet, release.
      OpBuilder sb = inner.getElseBodyBuilder();
      for (auto [j, own] : llvm::enumerate(accs))
        ws::AccSpillOp::create(sb, loc, own,
                               slotAddress(sb, loc, h, tile, part,
                                           columnBlocks[j]),
                               rows);
      ws::BarrierSyncOp::create(sb, loc, barrier);
      moe::ifThen(sb, loc, lane0, [&](OpBuilder &rb) {
        ws::CounterAddOp::create(rb, loc, counter, i32Const(rb, loc, 1),
                                 ws::Scope::gpu);
      });
      // No epilogue follows: zeros keep the spilled accumulators from
      // living on to the merge.
      SmallVector<Value> none;
      for (Value a : accs)
        none.push_back(ws::AccZeroOp::create(sb, loc, a.getType()));
      yieldAll(sb, flag(sb, false), none);
    }
    yieldAll(ub, inner.getResult(0), inner.getResults().drop_front());
  }
  {
    OpBuilder wb = outer.getElseBodyBuilder();
    yieldAll(wb, flag(wb, true), accs);
  }
  SmallVector<Value, 2> out(outer.getResults().drop_front());
  return {outer.getResult(0), out};
}
