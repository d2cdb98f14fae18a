//===- PhaseProfile.cpp - the phase profile's event writer ----------------===//
#include "PhaseProfile.h"
#include "../MoeKernelUtil.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::collectives;
namespace ws = mlir::warpspec;

namespace {

Value i64Of(OpBuilder &b, Location loc, Value v) {
  if (!v)
    return moe::i64Const(b, loc, 0);
  if (v.getType().isIndex())
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), v);
  if (v.getType().getIntOrFloatBitWidth() < 64)
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  return v;
}

/// The elected thread's record: slot n of slice (cta, role), when n is
/// below the capacity and the CTA has a slice.
void writeRecord(OpBuilder &b, Location loc, const PhaseProfile &p,
                 int64_t role, int64_t event, Value tag) {
  const ProfileSection &s = p.section;
  Value n = ws::SequenceNextOp::create(b, loc, b.getI32Type(),
                                       b.getStringAttr("profile"));
  Value cta = moe::blockIdX(b, loc);
  Value fits = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, n,
                            moe::i32Const(b, loc, s.capacity)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, cta,
                            moe::i32Const(b, loc, kProfileMaxCtas)));
  moe::ifThen(b, loc, fits, [&](OpBuilder &rb) {
    Value time = ws::TimestampOp::create(rb, loc, rb.getI64Type());
    Value sm = ws::SmIdOp::create(rb, loc, rb.getI32Type());
    // record = firstRecord + (cta * roles + role) * capacity + n
    Value slice = arith::AddIOp::create(
        rb, loc,
        arith::MulIOp::create(rb, loc, i64Of(rb, loc, cta),
                              moe::i64Const(rb, loc, s.roles)),
        moe::i64Const(rb, loc, role));
    Value record = arith::AddIOp::create(
        rb, loc,
        arith::MulIOp::create(rb, loc, slice,
                              moe::i64Const(rb, loc, s.capacity)),
        arith::AddIOp::create(rb, loc, i64Of(rb, loc, n),
                              moe::i64Const(rb, loc, s.firstRecord)));
    Value word = arith::MulIOp::create(rb, loc, record,
                                       moe::i64Const(rb, loc, 2));
    // tag (32 bits) | sm << 32 | role << 48 | event << 56
    Value tag32 = arith::AndIOp::create(rb, loc, i64Of(rb, loc, tag),
                                        moe::i64Const(rb, loc, 0xffffffff));
    Value sm16 = arith::AndIOp::create(rb, loc, i64Of(rb, loc, sm),
                                       moe::i64Const(rb, loc, 0xffff));
    Value meta = arith::OrIOp::create(
        rb, loc, tag32,
        arith::OrIOp::create(
            rb, loc,
            arith::ShLIOp::create(rb, loc, sm16, moe::i64Const(rb, loc, 32)),
            moe::i64Const(rb, loc, (role << 48) | (event << 56))));
    Value at = ws::GlobalOffsetOp::create(rb, loc, p.records, word);
    moe::store(rb, loc, time, at, 8);
    Value next = ws::GlobalOffsetOp::create(
        rb, loc, p.records,
        arith::AddIOp::create(rb, loc, word, moe::i64Const(rb, loc, 1)));
    moe::store(rb, loc, meta, next, 8);
  });
}

int64_t eventOf(ProfilePhase phase, bool end) {
  return (static_cast<int64_t>(phase) << 1) | (end ? 1 : 0);
}

} // namespace

void PhaseProfile::stamp(OpBuilder &b, Location loc, int64_t role,
                         ProfilePhase phase, bool end, Value tag) const {
  if (!records)
    return;
  Value warp0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      ws::RoleWarpIdOp::create(b, loc),
                                      moe::indexConst(b, loc, 0));
  Value lane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      moe::laneId(b, loc),
                                      moe::i32Const(b, loc, 0));
  Value elected = arith::AndIOp::create(b, loc, warp0, lane0);
  moe::ifThen(b, loc, elected, [&](OpBuilder &eb) {
    writeRecord(eb, loc, *this, role, eventOf(phase, end), tag);
  });
}

void PhaseProfile::span(OpBuilder &b, Location loc, int64_t role,
                        ProfilePhase phase, Value tag,
                        function_ref<void()> body) const {
  stamp(b, loc, role, phase, /*end=*/false, tag);
  body();
  stamp(b, loc, role, phase, /*end=*/true, tag);
}

void PhaseProfile::stampCta(OpBuilder &b, Location loc, bool end) const {
  if (!records)
    return;
  Value thread0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        moe::threadIdX(b, loc),
                                        moe::i32Const(b, loc, 0));
  moe::ifThen(b, loc, thread0, [&](OpBuilder &tb) {
    writeRecord(tb, loc, *this, /*role=*/0, eventOf(ProfilePhase::Cta, end),
                moe::blockIdX(tb, loc));
  });
}
