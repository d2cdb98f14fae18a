//===- LowerBlockScaledSm90.cpp - the block-scaled MMA on SM90 ------------===//
//
// On SM90 a block-scaled K block is DeepGEMM's sequence: wgmma of the stage
// into a fresh register accumulator (scale-d = 0), wgmma.wait_group 0, then
// total += partial * a_scale[row] * b_scale on CUDA cores (acc.promote). The
// expansion runs before the conversion, so those warpspec ops are then
// lowered by their own patterns (LowerMmaSm90.cpp). The SM100 lowering
// (tcgen05 + TMEM, LowerBlockScaledSm100.cpp) runs first and leaves no
// sm_100 op here.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::warpspec;

/// Whether a later op of `op`'s block is a block-scaled MMA.
static bool followedByBlockScaledMma(MmaBlockScaledOp op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (isa<MmaBlockScaledOp>(next))
      return true;
  return false;
}

/// `earlier`, the row scales that the last block-scaled MMA of `op`'s block
/// read for the same scale group, when they are of the same stage and rows
/// and no consumer release between the two hands that stage back: a tile of
/// two column blocks then reads them once for both (null otherwise).
static AccRowScalesOp sharedRowScales(MmaBlockScaledOp op,
                                      AccRowScalesOp earlier) {
  if (!earlier || earlier.getAScales() != op.getAScales() ||
      earlier.getStage() != op.getStage() || earlier.getRow() != op.getRow())
    return {};
  for (Operation *o = earlier->getNextNode(); o && o != op.getOperation();
       o = o->getNextNode())
    if (isa<ConsumerReleaseOp>(o))
      return {};
  return earlier;
}

LogicalResult warpspec::expandBlockScaledMmaSm90(gpu::GPUModuleOp module) {
  SmallVector<MmaBlockScaledOp> ops;
  module.walk([&](MmaBlockScaledOp op) { ops.push_back(op); });
  // The scratch accumulator of the last expanded MMA of each block, and the
  // row scales it read per scale group (ops of a block are visited in
  // order).
  DenseMap<Block *, Value> lastScratch;
  DenseMap<std::pair<Block *, int64_t>, AccRowScalesOp> lastRowScales;
  for (MmaBlockScaledOp op : ops) {
    auto kernel = op->getParentOfType<KernelOp>();
    StringRef chip = kernel ? kernel.getChip() : StringRef();
    if (chip != "sm_90a")
      return op.emitOpError("has no lowering for chip '")
             << chip
             << "' (block-scaled MMA is lowered for sm_90a and sm_100a)";
    OpBuilder b(op);
    Location loc = op.getLoc();
    AccType accType = op.getTotal().getType();
    AffineMapAttr map;
    if (std::optional<AffineMap> m = op.getBScaleMap())
      map = AffineMapAttr::get(*m);
    // One round per activation-scale group (the verifier's split of K into
    // whole MMA steps); a [M] a_scales tile, or `a_scale_groups 1`, is one
    // group over all of K.
    int64_t groups = op.getAScaleGroupCount();
    int64_t k = op.getA().getType().getShape()[1];
    Value total = op.getTotal();
    // Swapped (one group, the verifier's rule): the weights (b rows [row,
    // row + 64)) are the wgmma's A and all of a's activation rows its B, and
    // the promotion scales columns; same scratch reuse and fences.
    bool swap = op.getSwapAb();
    Value mmaA = swap ? op.getB() : op.getA();
    Value mmaB = swap ? op.getA() : op.getB();
    for (int64_t g = 0; g < groups; ++g) {
      // After another block-scaled MMA of the block (a tile of two column
      // blocks, or the previous scale group) the wgmma reuses that one's
      // scratch registers (discard_acc), which its promotion (fenced below)
      // has consumed: one scratch accumulator for all.
      Value previous = lastScratch.lookup(op->getBlock());
      bool reuse = previous && previous.getType() == accType;
      Value fresh = reuse ? previous : AccZeroOp::create(b, loc, accType);
      DenseI64ArrayAttr range;
      if (groups > 1)
        range = b.getDenseI64ArrayAttr({g * k / groups, k / groups});
      // The row scales are read before the MMA (DeepGEMM's order): their
      // SMEM latency then hides behind it instead of delaying the
      // promotion once the MMA completed.
      // A second column block of the same K block shares the first's
      // (looked up per block and group).
      AccRowScalesOp rowScales;
      if (!swap) {
        std::pair<Block *, int64_t> key{op->getBlock(), g};
        rowScales = sharedRowScales(op, lastRowScales.lookup(key));
        if (!rowScales)
          rowScales = AccRowScalesOp::create(b, loc, op.getAScales(),
                                             op.getStage(), op.getRow(),
                                             static_cast<uint64_t>(g));
        lastRowScales[key] = rowScales;
      }
      // The issue turn (op description): wait for it, issue, pass it on
      // before waiting for the MMAs, so the other warpgroup issues its own
      // while this one's run and are queued behind them.
      if (op.getTurn())
        BarrierSyncOp::create(b, loc, op.getTurn());
      auto mma = MmaSm90Op::create(
          b, loc, mmaA, op.getStage(), op.getRow(), mmaB, op.getStage(), fresh,
          Major::k, Major::k, /*discard_acc=*/reuse,
          op.getRematerializeKSteps(), range);
      if (op.getPass())
        BarrierArriveOp::create(b, loc, op.getPass());
      Value ready =
          MmaWaitOp::create(b, loc, 0u, ValueRange{mma.getResult()})
              .getResult(0);
      lastScratch[op->getBlock()] = ready;
      if (swap) {
        // Column c's scale is a_scales[c]: from the tile's first row.
        auto promote = AccPromoteOp::create(
            b, loc, ready, total, op.getAScales(), op.getStage(),
            arith::ConstantIndexOp::create(b, loc, 0), op.getBScales(),
            ValueRange{}, AffineMapAttr(), 0);
        promote.setColumnScales(true);
        total = promote;
      } else {
        total = AccPromoteOp::create(
            b, loc, ready, total, op.getAScales(), op.getStage(), op.getRow(),
            op.getBScales(),
            ValueRange{rowScales.getFirst(), rowScales.getSecond()}, map,
            static_cast<uint64_t>(g));
      }
      // Another MMA follows (the next scale group, or a tile of two column
      // blocks): its wgmma must not start before this promotion consumed
      // the scratch accumulator, or two scratch accumulators are live at
      // once (BLOCK_N 256: 2 x 64 + 128 promoted registers, which spills).
      if (g + 1 < groups || followedByBlockScaledMma(op))
        total = AccFenceOp::create(b, loc, total);
    }
    op.replaceAllUsesWith(total);
    op.erase();
  }
  return success();
}
