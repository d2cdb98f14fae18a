//===- LowerCounters.cpp - counters, warp/grid sync, symmetric memory ----===//
//
// Releases are `red.release.<scope>.global` through nvvm.inline_ptx: LLVM 22
// NVPTX lowers llvm.atomicrmw without its ordering and scope. Acquires are
// atomic loads (ld.acquire.gpu with syncscope "device", ld.acquire.sys
// without). A wait with a timeout reads %clock64 while it polls; past the
// limit, each waiting thread prints one line naming the counter (device
// printf: gpu.printf, lowered to vprintf by upstream GPUToNVVM) and traps, so
// a lost arrival is reported instead of hanging the grid. The report sits in
// the cold branch; a wait without a timeout is a bare poll loop.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

StringRef scopeName(Scope scope) { return scope == Scope::sys ? "sys" : "gpu"; }

void releaseReduce(OpBuilder &b, Location loc, StringRef op, Scope scope,
                   Value ptr, Value v) {
  std::string ptx =
      ("red.release." + scopeName(scope) + ".global." + op + " [$0], $1;")
          .str();
  NVVM::InlinePtxOp::create(b, loc, TypeRange{}, ValueRange{ptr, v},
                            ValueRange{}, ptx, Value());
}

/// atom.add.release.<scope> returning the old value.
Value releaseFetchAdd(OpBuilder &b, Location loc, Scope scope, Value ptr,
                      Value v) {
  std::string ptx =
      ("atom.add.release." + scopeName(scope) + ".global.u32 $0, [$1], $2;")
          .str();
  return NVVM::InlinePtxOp::create(b, loc, TypeRange{b.getI32Type()},
                                   ValueRange{ptr, v}, ValueRange{}, ptx,
                                   Value())
      .getResult(0);
}

Value acquireLoad(OpBuilder &b, Location loc, Scope scope, Value ptr) {
  return LLVM::LoadOp::create(b, loc, b.getI32Type(), ptr, /*alignment=*/4,
                              /*isVolatile=*/false, /*isNonTemporal=*/false,
                              /*isInvariant=*/false,
                              /*isInvariantGroup=*/false,
                              LLVM::AtomicOrdering::acquire,
                              scope == Scope::sys ? StringRef() : "device");
}

/// What a timed-out wait reports: the counter's name and the value it waits
/// for (an i32 computed before the poll loop). A cross-rank barrier reports
/// its rank, rank count and phase instead of the raw counter values.
struct WaitReport {
  std::string counter;
  Value target;
  struct Barrier {
    Value rank, ranks, phase;
  };
  std::optional<Barrier> barrier;
};

/// `name` with '%' escaped for a printf format.
std::string escapePercent(StringRef name) {
  std::string out;
  for (char c : name) {
    out += c;
    if (c == '%')
      out += '%';
  }
  return out;
}

/// `megamoe: timeout waiting for counter '<name>' (block B, thread T): value
/// V, expected >= E after C cycles`, as a printf format ('%' in the name
/// escaped).
std::string timeoutFormat(StringRef counter, int64_t cycles) {
  std::string name = escapePercent(counter);
  return ("megamoe: timeout waiting for counter '" + name +
          "' (block %u, thread %u): value %u, expected >= %u after " +
          Twine(cycles) + " cycles\n")
      .str();
}

/// `megamoe: timeout in cross-rank barrier '<name>' on rank R (block B,
/// thread T): phase P, A of N ranks arrived after C cycles`.
std::string barrierTimeoutFormat(StringRef barrier, int64_t cycles) {
  return ("megamoe: timeout in cross-rank barrier '" + escapePercent(barrier) +
          "' on rank %u (block %u, thread %u): phase %u, %u of %u ranks "
          "arrived after " +
          Twine(cycles) + " cycles\n")
      .str();
}

/// The cold path of a timed-out wait: print the report, then trap.
void reportTimeoutAndTrap(OpBuilder &b, Location loc, const WaitReport &report,
                          int64_t cycles, Value value) {
  Type i32 = b.getI32Type();
  Value block = NVVM::BlockIdXOp::create(b, loc, i32);
  Value thread = NVVM::ThreadIdXOp::create(b, loc, i32);
  if (const std::optional<WaitReport::Barrier> &x = report.barrier) {
    // Ranks arrived in this phase: the counter minus the previous phases'
    // (phase - 1) * N adds.
    Value one = i32Const(b, loc, 1);
    Value before = arith::MulIOp::create(
        b, loc, arith::SubIOp::create(b, loc, x->phase, one), x->ranks);
    Value arrived = arith::SubIOp::create(b, loc, value, before);
    gpu::PrintfOp::create(
        b, loc, barrierTimeoutFormat(report.counter, cycles),
        ValueRange{x->rank, block, thread, x->phase, arrived, x->ranks});
  } else {
    gpu::PrintfOp::create(b, loc, timeoutFormat(report.counter, cycles),
                          ValueRange{block, thread, value, report.target});
  }
  LLVM::Trap::create(b, loc);
}

/// Polls `*ptr` (acquire) until `done(value)`. With a timeout, the loop
/// carries the last value read and, after `timeoutCycles` clock64 ticks,
/// reports it and traps.
void pollUntil(OpBuilder &b, Location loc, Scope scope, Value ptr,
               function_ref<Value(OpBuilder &, Location, Value)> done,
               std::optional<int64_t> timeoutCycles, const WaitReport &report) {
  Value start;
  SmallVector<Type> carried;
  if (timeoutCycles) {
    start = NVVM::Clock64Op::create(b, loc, b.getI64Type());
    carried.push_back(b.getI32Type());
  }
  scf::WhileOp::create(
      b, loc, carried, ValueRange{},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value v = acquireLoad(nb, nl, scope, ptr);
        Value notDone = arith::XOrIOp::create(
            nb, nl, done(nb, nl, v),
            arith::ConstantIntOp::create(nb, nl, nb.getI1Type(), 1));
        scf::ConditionOp::create(nb, nl, notDone,
                                 timeoutCycles ? ValueRange{v} : ValueRange{});
      },
      [&](OpBuilder &nb, Location nl, ValueRange last) {
        if (timeoutCycles) {
          Value now = NVVM::Clock64Op::create(nb, nl, nb.getI64Type());
          Value elapsed = arith::SubIOp::create(nb, nl, now, start);
          Value late =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ugt, elapsed,
                                    i64Const(nb, nl, *timeoutCycles));
          buildIf(nb, nl, late, [&](OpBuilder &tb, Location tl) {
            reportTimeoutAndTrap(tb, tl, report, *timeoutCycles, last[0]);
          });
        }
        scf::YieldOp::create(nb, nl);
      });
}

/// `(int32_t)(v - target) >= 0`: reached, robust to u32 wrap-around.
Value reached(OpBuilder &b, Location loc, Value v, Value target) {
  Value diff = arith::SubIOp::create(b, loc, v, target);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, diff,
                               i32Const(b, loc, 0));
}

template <typename SourceOp>
struct CounterUpdateLowering : OpConversionPattern<SourceOp> {
  CounterUpdateLowering(const TypeConverter &tc, MLIRContext *ctx,
                        StringRef ptxOp)
      : OpConversionPattern<SourceOp>(tc, ctx), ptxOp(ptxOp) {}
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    releaseReduce(rewriter, op.getLoc(), ptxOp, op.getScope(), adaptor.getPtr(),
                  adaptor.getValue());
    rewriter.eraseOp(op);
    return success();
  }
  std::string ptxOp;
};

struct CounterWaitLowering : OpConversionPattern<CounterWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CounterWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value target = adaptor.getValue();
    // Unsigned >=, as the op documents.
    pollUntil(
        rewriter, op.getLoc(), op.getScope(), adaptor.getPtr(),
        [&](OpBuilder &b, Location l, Value v) -> Value {
          return arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, v,
                                       target);
        },
        op.getTimeoutCycles(), WaitReport{op.getName().str(), target});
    rewriter.eraseOp(op);
    return success();
  }
};

/// Arrive: old = fetch_add(counter, 1); generation g = old / n; wait until
/// the counter reaches (g + 1) * n. Never reset: generations follow.
/// bar.warp.sync over all 32 lanes (the publishing warp's ordering before
/// its lane 0's release).
struct WarpSyncLowering : OpConversionPattern<WarpSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value all = LLVM::ConstantOp::create(rewriter, op.getLoc(),
                                         rewriter.getI32Type(), -1);
    rewriter.replaceOpWithNewOp<NVVM::SyncWarpOp>(op, all);
    return success();
  }
};

struct GridSyncLowering : OpConversionPattern<GridSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GridSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value n = adaptor.getNumCtas();
    Value old = releaseFetchAdd(rewriter, loc, Scope::gpu, adaptor.getCounter(),
                                i32Const(rewriter, loc, 1));
    Value gen = arith::DivUIOp::create(rewriter, loc, old, n);
    Value next =
        arith::AddIOp::create(rewriter, loc, gen, i32Const(rewriter, loc, 1));
    Value target = arith::MulIOp::create(rewriter, loc, next, n);
    pollUntil(
        rewriter, loc, Scope::gpu, adaptor.getCounter(),
        [&](OpBuilder &b, Location l, Value v) {
          return reached(b, l, v, target);
        },
        op.getTimeoutCycles(),
        WaitReport{op.getName().value_or("grid.sync").str(), target});
    rewriter.eraseOp(op);
    return success();
  }
};

/// local + offsets[peer] (i64 byte offsets, plain load).
Value peerPointer(OpBuilder &b, Location loc, Value local, Value peer,
                  Value offsets) {
  Value entry = LLVM::GEPOp::create(b, loc, offsets.getType(), b.getI64Type(),
                                    offsets, ValueRange{peer});
  Value off = LLVM::LoadOp::create(b, loc, b.getI64Type(), entry, 8);
  return LLVM::GEPOp::create(b, loc, local.getType(), b.getI8Type(), local,
                             ValueRange{off});
}

struct PeerPtrLowering : OpConversionPattern<PeerPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PeerPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       peerPointer(rewriter, op.getLoc(), adaptor.getLocal(),
                                   adaptor.getPeer(), adaptor.getOffsets()));
    return success();
  }
};

/// Own counter: old = fetch_add (release.sys); every peer's counter:
/// red.release.sys add 1. Before this rank's own add of generation g, its
/// counter holds between (g-1)*R and (g-1)*R + R-1 (no rank can reach g+1
/// without this rank's add), so g-1 = old / R; wait until it reaches g*R.
struct CrossRankBarrierLowering : OpConversionPattern<CrossRankBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CrossRankBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Scope scope = op.getScope();
    Value ranks = adaptor.getNumRanks();
    Value one = i32Const(rewriter, loc, 1);
    Value old =
        releaseFetchAdd(rewriter, loc, scope, adaptor.getCounter(), one);
    Value zero = i32Const(rewriter, loc, 0);
    scf::ForOp::create(
        rewriter, loc, zero, ranks, one, ValueRange{},
        [&](OpBuilder &b, Location l, Value peer, ValueRange) {
          Value other = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne,
                                              peer, adaptor.getRank());
          buildIf(b, l, other, [&](OpBuilder &ib, Location il) {
            Value remote = peerPointer(ib, il, adaptor.getCounter(), peer,
                                       adaptor.getOffsets());
            releaseReduce(ib, il, "add.u32", scope, remote, one);
          });
          scf::YieldOp::create(b, l);
        });
    Value gen = arith::DivUIOp::create(rewriter, loc, old, ranks);
    Value next = arith::AddIOp::create(rewriter, loc, gen, one);
    Value target = arith::MulIOp::create(rewriter, loc, next, ranks);
    pollUntil(
        rewriter, loc, scope, adaptor.getCounter(),
        [&](OpBuilder &b, Location l, Value v) {
          return reached(b, l, v, target);
        },
        op.getTimeoutCycles(),
        WaitReport{op.getName().value_or("cross_rank.barrier").str(), target,
                   WaitReport::Barrier{adaptor.getRank(), ranks, next}});
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void warpspec::populateWarpSpecCounterPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<CounterUpdateLowering<CounterAddOp>>(converter, ctx, "add.u32");
  patterns.add<CounterUpdateLowering<CounterOrOp>>(converter, ctx, "or.b32");
  patterns.add<CounterWaitLowering, WarpSyncLowering, GridSyncLowering,
               PeerPtrLowering, CrossRankBarrierLowering>(converter, ctx);
}

LogicalResult warpspec::lowerDevicePrintfs(gpu::GPUModuleOp module) {
  bool any = false;
  module.walk([&](gpu::PrintfOp) { any = true; });
  if (!any)
    return success();
  // Upstream's gpu.printf -> vprintf pattern (format string as a constant
  // global, arguments packed in an alloca'd struct), applied to gpu.printf
  // only: every other op of the module is left as it is.
  MLIRContext *ctx = module.getContext();
  LLVMTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  populateGpuToNVVMConversionPatterns(converter, patterns);
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalOp<gpu::PrintfOp>();
  return applyPartialConversion(module, target, std::move(patterns));
}
