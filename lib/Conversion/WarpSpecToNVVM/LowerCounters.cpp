//===- LowerCounters.cpp - counters, warp/grid sync, symmetric memory ----===//
//
// Releases are `red.release.<scope>.global` through nvvm.inline_ptx: LLVM 22
// NVPTX lowers llvm.atomicrmw without its ordering and scope. Acquires are
// atomic loads (ld.acquire.gpu with syncscope "device", ld.acquire.sys
// without). A wait with a timeout reads %clock64 while it polls; past the
// limit, the first thread to time out writes what it waited for into the
// runtime's host-mapped record (TimeoutRecord.h: no device printf, whose
// call would serialize the kernel's wgmma) and every waiting thread traps,
// so a lost arrival is reported instead of hanging the grid. The report sits
// in the cold branch; a wait without a timeout is a bare poll loop.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/TimeoutRecord.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::warpspec;
namespace timeout = ::megamoe::timeout;

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

/// The record's name field: `name` (cut to kNameBytes - 1 bytes) and its
/// NUL, packed little-endian into u32 words.
SmallVector<int32_t> nameWords(StringRef name) {
  name = name.take_front(timeout::kNameBytes - 1);
  SmallVector<uint32_t> words((name.size() + 4) / 4, 0);
  for (size_t i = 0; i < name.size(); ++i)
    words[i / 4] |= uint32_t(uint8_t(name[i])) << (8 * (i % 4));
  return SmallVector<int32_t>(words.begin(), words.end());
}

/// The address of word `word` (TimeoutRecord.h) of the record at `record`
/// (a global pointer).
Value recordWord(OpBuilder &b, Location loc, Value record, int word) {
  return LLVM::GEPOp::create(b, loc, record.getType(), b.getI32Type(), record,
                             ArrayRef<LLVM::GEPArg>{word});
}

/// Word `word` of the record at `record` := `v` (i32).
void storeRecordWord(OpBuilder &b, Location loc, Value record, int word,
                     Value v) {
  LLVM::StoreOp::create(b, loc, v, recordWord(b, loc, record, word),
                        /*alignment=*/4);
}

/// A thread that lost the record to another waits, at most
/// kLoserWaitCycles, until the winner has marked it complete: its own trap
/// would end the grid, and with it the winner's stores (seen on the GPU:
/// the fused GEMM kernel's waiting warps trapped before the winning lane
/// had written the record).
void awaitRecordComplete(OpBuilder &b, Location loc, Value record) {
  Value start = NVVM::Clock64Op::create(b, loc, b.getI64Type());
  Value complete = recordWord(b, loc, record, timeout::kComplete);
  scf::WhileOp::create(
      b, loc, TypeRange{}, ValueRange{},
      [&](OpBuilder &wb, Location wl, ValueRange) {
        Value v = LLVM::LoadOp::create(wb, wl, wb.getI32Type(), complete,
                                       /*alignment=*/4, /*isVolatile=*/true);
        Value pending = arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::ne,
                                              v, i32Const(wb, wl, 1));
        Value elapsed = arith::SubIOp::create(
            wb, wl, NVVM::Clock64Op::create(wb, wl, wb.getI64Type()), start);
        Value inTime =
            arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::ult, elapsed,
                                  i64Const(wb, wl, timeout::kLoserWaitCycles));
        scf::ConditionOp::create(wb, wl,
                                 arith::AndIOp::create(wb, wl, pending, inTime),
                                 ValueRange{});
      },
      [&](OpBuilder &wb, Location wl, ValueRange) {
        scf::YieldOp::create(wb, wl);
      });
}

/// The cold path of a timed-out wait: the first thread of the process to
/// time out fills the host-mapped record (TimeoutRecord.h) the runtime
/// reads after the trap, the others wait for it to be complete; every
/// thread then traps. No call (a vprintf would serialize the kernel's
/// wgmma, ptxas C7510).
void reportTimeoutAndTrap(OpBuilder &b, Location loc, const WaitReport &report,
                          int64_t cycles, Value value) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto global = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value slot =
      LLVM::AddressOfOp::create(b, loc, global, timeout::kRecordSymbol);
  Value address = LLVM::LoadOp::create(b, loc, i64, slot, /*alignment=*/8);
  Value present = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                        address, i64Const(b, loc, 0));
  buildIf(b, loc, present, [&](OpBuilder &pb, Location pl) {
    Value record = LLVM::IntToPtrOp::create(pb, pl, global, address);
    Value old = inlinePtx(
        pb, pl, i32,
        ValueRange{record, i32Const(pb, pl, 0), i32Const(pb, pl, 1)},
        "atom.relaxed.sys.global.cas.b32 $0, [$1], $2, $3;", "=r,l,r,r",
        /*sideEffects=*/true);
    Value first = arith::CmpIOp::create(pb, pl, arith::CmpIPredicate::eq, old,
                                        i32Const(pb, pl, 0));
    auto claimed = scf::IfOp::create(pb, pl, first, /*withElseRegion=*/true);
    {
      OpBuilder eb = claimed.getElseBodyBuilder();
      awaitRecordComplete(eb, pl, record);
    }
    {
      OpBuilder fb = claimed.getThenBodyBuilder();
      Location fl = pl;
      auto put = [&](int word, Value v) {
        storeRecordWord(fb, fl, record, word, v);
      };
      bool isBarrier = report.barrier.has_value();
      put(timeout::kKind,
          i32Const(fb, fl,
                   static_cast<int64_t>(
                       isBarrier ? timeout::RecordKind::CrossRankBarrier
                                 : timeout::RecordKind::Counter)));
      put(timeout::kBlock, NVVM::BlockIdXOp::create(fb, fl, i32));
      put(timeout::kThread, NVVM::ThreadIdXOp::create(fb, fl, i32));
      if (const std::optional<WaitReport::Barrier> &x = report.barrier) {
        // Ranks arrived in this phase: the counter minus the previous
        // phases' (phase - 1) * N adds.
        Value before = arith::MulIOp::create(
            fb, fl,
            arith::SubIOp::create(fb, fl, x->phase, i32Const(fb, fl, 1)),
            x->ranks);
        put(timeout::kValue, arith::SubIOp::create(fb, fl, value, before));
        put(timeout::kExpected, x->ranks);
        put(timeout::kRank, x->rank);
        put(timeout::kPhase, x->phase);
      } else {
        put(timeout::kValue, value);
        put(timeout::kExpected, report.target);
      }
      put(timeout::kCyclesLo, i32Const(fb, fl, static_cast<int32_t>(cycles)));
      put(timeout::kCyclesHi,
          i32Const(fb, fl, static_cast<int32_t>(uint64_t(cycles) >> 32)));
      SmallVector<int32_t> name = nameWords(report.counter);
      for (size_t i = 0; i < name.size(); ++i)
        put(timeout::kName + static_cast<int>(i), i32Const(fb, fl, name[i]));
      // Fields, then `complete`, each fenced to the system (no syncscope:
      // fence.sc.sys), so the host never sees complete before them.
      LLVM::FenceOp::create(fb, fl, LLVM::AtomicOrdering::seq_cst, StringRef());
      put(timeout::kComplete, i32Const(fb, fl, 1));
      LLVM::FenceOp::create(fb, fl, LLVM::AtomicOrdering::seq_cst, StringRef());
    }
  });
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
