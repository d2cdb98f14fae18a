//===- LowerPipelines.cpp - SMEM buffers, pipelines, named barriers -------===//
//
// A pipeline of S stages is 2*S mbarriers at its planned SMEM offset:
// full[0..S) then empty[0..S). Each (pipeline, side, role) keeps an i32
// iteration counter n in an entry-block alloca (SROA turns it into a
// loop-carried register): stage = n % S, phase = (n / S) & 1. Producers wait
// on empty[stage] with parity phase^1 (a fresh barrier counts as having
// completed the phase before, so the first S acquires pass), consumers on
// full[stage] with parity phase.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

/// Suspend-time hint of mbarrier.try_wait (ns), as CUTLASS uses.
constexpr int64_t kTryWaitTicks = 10000000;

struct SmemAllocLowering : OpConversionPattern<SmemAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SmemAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<uint64_t> offset = op.getOffset();
    if (!offset)
      return op.emitError("shared-memory buffer '")
             << op.getName()
             << "' has no offset; run warpspec-plan-smem before lowering";
    Location loc = op.getLoc();
    Value base = dynamicSmemBase(rewriter, loc);
    rewriter.replaceOp(op, smemOffset(rewriter, loc, base, (int64_t)*offset));
    return success();
  }
};

struct SmemSlotLowering : OpConversionPattern<SmemSlotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SmemSlotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, slotAddress(rewriter, op.getLoc(), op.getBuffer().getType(),
                        adaptor.getBuffer(), adaptor.getStage()));
    return success();
  }
};

struct NamedBarrierLowering : OpConversionPattern<NamedBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, i32Const(rewriter, op.getLoc(), op.getId()));
    return success();
  }
};

/// bar.sync / bar.arrive id, n with n from the barrier's declaration.
template <typename SourceOp, bool IsArrive>
struct BarrierLowering : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto decl = op.getBarrier().template getDefiningOp<NamedBarrierOp>();
    if (!decl)
      return op.emitError(
          "named barrier must come from warpspec.named_barrier");
    Location loc = op.getLoc();
    Value n = i32Const(rewriter, loc, decl.getNumThreads());
    if (IsArrive)
      NVVM::BarrierArriveOp::create(rewriter, loc, adaptor.getBarrier(), n);
    else if (decl.getRoles().size() > 1)
      // Roles run different code, so their threads reach the barrier at
      // different instructions: the non-aligned barrier.sync (bar.sync, what
      // nvvm.barrier emits, is barrier.sync.aligned, which requires every
      // participant to execute the same instruction; compute-sanitizer's
      // synccheck reports the aligned form shared by two roles).
      NVVM::InlinePtxOp::create(rewriter, loc, TypeRange{},
                                ValueRange{adaptor.getBarrier(), n},
                                ValueRange{}, "barrier.sync $0, $1;", Value());
    else
      NVVM::BarrierOp::create(rewriter, loc, Type(), adaptor.getBarrier(), n,
                              NVVM::BarrierReductionAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct PipelineCreateLowering : OpConversionPattern<PipelineCreateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PipelineCreateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<uint64_t> offset = op.getOffset();
    if (!offset)
      return op.emitError("pipeline '")
             << op.getName()
             << "' has no mbarrier offset; run warpspec-plan-smem before "
                "lowering";
    Location loc = op.getLoc();
    unsigned stages = op.getType().getStages();
    Value base = smemOffset(rewriter, loc, dynamicSmemBase(rewriter, loc),
                            (int64_t)*offset);
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        tid, i32Const(rewriter, loc, 0));
    Value producers = i32Const(rewriter, loc, op.getProducerArrivals());
    // A cluster pipeline's stages are released by the consumers of every
    // CTA of the cluster.
    Value consumers = i32Const(rewriter, loc,
                               op.getClusterCtas() * op.getConsumerArrivals());
    // One thread initialises every barrier; the fence makes the init
    // visible to the async proxy (TMA complete_tx) and the block barrier to
    // the other threads.
    for (unsigned s = 0; s < stages; ++s) {
      NVVM::MBarrierInitOp::create(rewriter, loc,
                                   smemOffset(rewriter, loc, base, 8 * s),
                                   producers, first);
      NVVM::MBarrierInitOp::create(
          rewriter, loc, smemOffset(rewriter, loc, base, 8 * (stages + s)),
          consumers, first);
    }
    // (fence.mbarrier_init.release.cluster). A cluster pipeline's barriers
    // receive the peers' arrivals and multicast bytes: the cluster barrier
    // keeps every peer from using them before they are initialised.
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    if (op.getClusterCtas() > 1) {
      NVVM::ClusterArriveOp::create(rewriter, loc, UnitAttr());
      NVVM::ClusterWaitOp::create(rewriter, loc, UnitAttr());
    } else {
      NVVM::Barrier0Op::create(rewriter, loc);
    }
    rewriter.replaceOp(op, base);
    return success();
  }
};

/// The iteration counter of (pipeline, side, enclosing role), created on
/// first use as an i32 alloca initialised to 0 at the top of the kernel.
FailureOr<Value> getCounter(Operation *op, Value pipeline, bool consumerSide,
                            PipelineCounters &counters,
                            ConversionPatternRewriter &rewriter) {
  Operation *create = pipeline.getDefiningOp<PipelineCreateOp>();
  if (!create)
    return op->emitError("pipeline must come from warpspec.pipeline.create");
  Operation *role = op->getParentOfType<RoleOp>();
  auto key = std::make_tuple(create, consumerSide, role);
  auto it = counters.counters.find(key);
  if (it != counters.counters.end())
    return it->second;
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return op->emitError("pipeline op outside a warpspec.kernel");
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&kernel.getBody().front());
  Location loc = create->getLoc();
  Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                       rewriter.getI32IntegerAttr(1));
  Value slot = LLVM::AllocaOp::create(
      rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()),
      rewriter.getI32Type(), one, /*alignment=*/4);
  Value zero = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                        rewriter.getI32IntegerAttr(0));
  LLVM::StoreOp::create(rewriter, loc, zero, slot);
  counters.counters[key] = slot;
  return slot;
}

/// Advances the counter and waits on full/empty[stage]; returns the stage.
template <typename SourceOp, bool IsConsumer>
struct PipelineWaitLowering : OpConversionPattern<SourceOp> {
  PipelineWaitLowering(const TypeConverter &tc, MLIRContext *ctx,
                       PipelineCounters &counters)
      : OpConversionPattern<SourceOp>(tc, ctx), counters(counters) {}
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> counter =
        getCounter(op, op.getPipeline(), IsConsumer, counters, rewriter);
    if (failed(counter))
      return failure();
    Location loc = op.getLoc();
    unsigned stages = op.getPipeline().getType().getStages();
    Type i32 = rewriter.getI32Type();
    Value n = LLVM::LoadOp::create(rewriter, loc, i32, *counter);
    Value s = i32Const(rewriter, loc, stages);
    // A consumer wait with `known_stage j` uses the constant (the builder
    // proved n % stages == j), so the slot and barrier addresses fold.
    std::optional<int64_t> known;
    if constexpr (IsConsumer)
      known = op.getKnownStage();
    Value stage = known ? i32Const(rewriter, loc, *known)
                        : arith::RemUIOp::create(rewriter, loc, n, s).getResult();
    Value round = arith::DivUIOp::create(rewriter, loc, n, s);
    Value phase =
        arith::AndIOp::create(rewriter, loc, round, i32Const(rewriter, loc, 1));
    if (!IsConsumer)
      phase = arith::XOrIOp::create(rewriter, loc, phase,
                                    i32Const(rewriter, loc, 1));
    Value next =
        arith::AddIOp::create(rewriter, loc, n, i32Const(rewriter, loc, 1));
    LLVM::StoreOp::create(rewriter, loc, next, *counter);
    Value mbar = mbarrierAddress(rewriter, loc, adaptor.getPipeline(), stages,
                                 /*isEmpty=*/!IsConsumer, stage);
    NVVM::MBarrierTryWaitParityOp::create(
        rewriter, loc, mbar, phase, i32Const(rewriter, loc, kTryWaitTicks));
    rewriter.replaceOp(op, arith::IndexCastUIOp::create(
                               rewriter, loc, rewriter.getIndexType(), stage));
    return success();
  }
  PipelineCounters &counters;
};

/// One arrive per warp (lane 0) on full[stage] (with expect_tx) or
/// empty[stage]. __syncwarp first so the whole warp's prior shared-memory
/// accesses are ordered before lane 0's release-arrive. A consumer release
/// also fences the async proxy first: the slot's next writer is TMA (async
/// proxy), and the consumer's generic-proxy reads of it (e.g. acc.promote's
/// scale loads, whose results may be used only after the release) must be
/// complete before that write (a WAR hazard across proxies; without the fence
/// the grouped GEMM read refilled scales). `reads_retired` releases skip it.
template <typename SourceOp, bool IsConsumer>
struct PipelineArriveLowering : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned stages = op.getPipeline().getType().getStages();
    std::optional<uint32_t> tx;
    if constexpr (!IsConsumer)
      tx = op.getTxBytes();
    if constexpr (IsConsumer)
      if (!op.getReadsRetired())
        NVVM::FenceProxyOp::create(
            rewriter, loc, NVVM::ProxyKind::async_shared,
            NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                       NVVM::SharedSpace::shared_cta));
    if (!tx)
      NVVM::SyncWarpOp::create(rewriter, loc, i32Const(rewriter, loc, -1));
    Value mbar = mbarrierAddress(rewriter, loc, adaptor.getPipeline(), stages,
                                 /*isEmpty=*/IsConsumer, adaptor.getStage());
    unsigned ctas = 1;
    if (auto create =
            op.getPipeline().template getDefiningOp<PipelineCreateOp>())
      ctas = create.getClusterCtas();
    if (IsConsumer && ctas > 1) {
      // A cluster pipeline: lane r arrives on empty[stage] of the CTA of
      // cluster rank r (its own included). The arrive is a CTA-scope release
      // (as CUTLASS's ClusterBarrier::arrive(cta_id)): what it orders before
      // a peer's multicast refill are this warp's reads of its own slot,
      // which are already complete (wgmma reads retired by
      // wgmma.wait_group, generic reads fenced or consumed, above); a
      // cluster-scope release would also wait for the warp's unrelated
      // global loads in flight (the next K block's weight scales).
      Value lane = NVVM::LaneIdOp::create(rewriter, loc, rewriter.getI32Type());
      Value isArriver = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, lane,
          i32Const(rewriter, loc, ctas));
      buildIf(rewriter, loc, isArriver, [&](OpBuilder &b, Location l) {
        Value remote = NVVM::MapaOp::create(
            b, l, LLVM::LLVMPointerType::get(b.getContext(), 7), mbar, lane);
        NVVM::MBarrierArriveOp::create(b, l, Type(), remote, Value());
      });
      rewriter.eraseOp(op);
      return success();
    }
    buildIf(rewriter, loc, isLaneZero(rewriter, loc),
            [&](OpBuilder &b, Location l) {
              if (tx)
                NVVM::MBarrierArriveExpectTxOp::create(
                    b, l, Type(), mbar, i32Const(b, l, *tx),
                    NVVM::MemScopeKindAttr(), BoolAttr(), Value());
              else
                NVVM::MBarrierArriveOp::create(b, l, Type(), mbar,
                                               arrivalCount(op, adaptor));
            });
    rewriter.eraseOp(op);
    return success();
  }

  /// A consumer release's `count` (null: one arrival).
  static Value arrivalCount(SourceOp op, typename SourceOp::Adaptor adaptor) {
    if constexpr (IsConsumer)
      return adaptor.getCount();
    return Value();
  }
};

/// Advances the consumer counter by `stages` (no barrier operation).
struct ConsumerSkipLowering : OpConversionPattern<ConsumerSkipOp> {
  ConsumerSkipLowering(const TypeConverter &tc, MLIRContext *ctx,
                       PipelineCounters &counters)
      : OpConversionPattern<ConsumerSkipOp>(tc, ctx), counters(counters) {}
  LogicalResult
  matchAndRewrite(ConsumerSkipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> counter = getCounter(op, op.getPipeline(),
                                          /*consumerSide=*/true, counters,
                                          rewriter);
    if (failed(counter))
      return failure();
    Location loc = op.getLoc();
    Value n = LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(),
                                   *counter);
    Value next = arith::AddIOp::create(
        rewriter, loc, n,
        i32Const(rewriter, loc, static_cast<int32_t>(op.getStages())));
    LLVM::StoreOp::create(rewriter, loc, next, *counter);
    rewriter.eraseOp(op);
    return success();
  }
  PipelineCounters &counters;
};

} // namespace

void warpspec::populateWarpSpecSmemPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<SmemAllocLowering, SmemSlotLowering, NamedBarrierLowering,
               BarrierLowering<BarrierSyncOp, false>,
               BarrierLowering<BarrierArriveOp, true>>(converter,
                                                       patterns.getContext());
}

void warpspec::populateWarpSpecPipelinePatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns,
                                                PipelineCounters &counters) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<PipelineCreateLowering,
               PipelineArriveLowering<ProducerCommitOp, false>,
               PipelineArriveLowering<ConsumerReleaseOp, true>>(converter, ctx);
  patterns.add<PipelineWaitLowering<ProducerAcquireOp, false>,
               PipelineWaitLowering<ConsumerWaitOp, true>, ConsumerSkipLowering>(
      converter, ctx, counters);
}
