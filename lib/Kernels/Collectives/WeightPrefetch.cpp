//===- WeightPrefetch.cpp - the touched experts' first K blocks into L2 ---===//
//
// docs/Collectives.md; the header says what is prefetched and why.
//
//===----------------------------------------------------------------------===//
#include "WeightPrefetch.h"
#include "../MoeKernelUtil.h"

#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::collectives;
using namespace megamoe::moe;
namespace ws = mlir::warpspec;

namespace {
// The grouped GEMMs' K block in bytes (fp8: one byte per element).
constexpr int64_t kBlockBytes = config::kGroupedGemmBlockK;
} // namespace

void collectives::prefetchExpertWeights(OpBuilder &b, Location loc,
                                        const WeightPrefetchShape &s,
                                        Value weights, Value poolBlockExpert,
                                        Value poolRows, Value thread,
                                        Value threads) {
  assert(s.rows > 0 && s.rowBytes % kBlockBytes == 0 && s.align > 0 &&
         s.budgetBytes > 0 && "a weight tensor and a budget");
  Type i32 = b.getI32Type();
  Value units =
      arith::DivUIOp::create(b, loc, poolRows, i32Const(b, loc, s.align));
  // k = budget / (units x rows x 128), at most the row's K blocks (i64: a
  // prefill pool's units x rows x 128 passes 2^31).
  Value perBlock = arith::MulIOp::create(
      b, loc, widen(b, loc, units), i64Const(b, loc, s.rows * kBlockBytes));
  Value one = i64Const(b, loc, 1);
  Value blocks = arith::DivUIOp::create(
      b, loc, i64Const(b, loc, s.budgetBytes),
      arith::MaxUIOp::create(b, loc, perBlock, one));
  blocks = arith::MinUIOp::create(b, loc, blocks,
                                  i64Const(b, loc, s.rowBytes / kBlockBytes));
  Value k = arith::TruncIOp::create(b, loc, i32, blocks);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, k,
                                    i32Const(b, loc, 0));
  ifThen(b, loc, any, [&](OpBuilder &ib) {
    Value bytes =
        arith::MulIOp::create(ib, loc, k, i32Const(ib, loc, kBlockBytes));
    Value items = arith::MulIOp::create(ib, loc, units,
                                        i32Const(ib, loc, s.rows));
    forLoop(ib, loc, thread, items, threads, [&](OpBuilder &lb, Value item) {
      Value rowsC = i32Const(lb, loc, s.rows);
      Value unit = arith::DivUIOp::create(lb, loc, item, rowsC);
      Value row = arith::RemUIOp::create(lb, loc, item, rowsC);
      Value expert = loadAt(lb, loc, i32, poolBlockExpert, unit, 4);
      // An expert's first entry prefetches it (entries of one expert are
      // consecutive); the one before entry 0 is read at entry 0 again.
      Value zero = i32Const(lb, loc, 0);
      Value isFirstUnit =
          arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq, unit, zero);
      Value before = arith::SelectOp::create(
          lb, loc, isFirstUnit, unit,
          arith::SubIOp::create(lb, loc, unit, i32Const(lb, loc, 1)));
      Value previous = loadAt(lb, loc, i32, poolBlockExpert, before, 4);
      Value starts = arith::OrIOp::create(
          lb, loc, isFirstUnit,
          arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ne, previous,
                                expert));
      Value owned = inRange(lb, loc, expert, zero, i32Const(lb, loc, s.L));
      Value go = arith::AndIOp::create(lb, loc, starts, owned);
      ifThen(lb, loc, go, [&](OpBuilder &pb) {
        Value index = arith::AddIOp::create(
            pb, loc,
            arith::MulIOp::create(pb, loc, widen(pb, loc, expert),
                                  i64Const(pb, loc, s.rows)),
            widen(pb, loc, row));
        Value ptr = rowPtr(pb, loc, weights, index, s.rowBytes);
        ws::GlobalPrefetchOp::create(pb, loc, ptr, bytes);
      });
    });
  });
}
