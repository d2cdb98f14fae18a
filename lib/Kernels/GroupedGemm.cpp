//===- GroupedGemm.cpp - the FP8 grouped GEMM as a composition ------------===//
//
// Structure and data layouts: include/megamoe/Kernels/GroupedGemm.h. A
// composition of the collectives (docs/Collectives.md): the tile scheduler,
// the block-scaled mainloop and one of two epilogues (TMA store, or the
// combine scatter to the source ranks, or SwiGLU + requantization). This
// file holds which role runs what; GroupedGemmParams.cpp the parameters,
// their manifest specs and the launch grid.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Kernels/GroupedGemm.h"
#include "Collectives/BlockScaledMainloop.h"
#include "Collectives/Epilogues.h"
#include "Collectives/PhaseProfile.h"
#include "Collectives/PoolPull.h"
#include "Collectives/SplitTile.h"
#include "Collectives/TileScheduler.h"
#include "GroupedGemmParams.h"
#include "MoeKernelUtil.h"
#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Conversion/TargetAttr.h"
#include "megamoe/Kernels/KernelBuilder.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::collectives;
using namespace megamoe::gemm;
namespace ws = mlir::warpspec;

namespace {


using megamoe::moe::indexConst;
using megamoe::moe::indexToI32;
using megamoe::moe::i32Const;

/// One GEMM of a kernel: operands, epilogue, tile space and mainloop phase.
/// A grouped GEMM kernel runs one; the fused GEMM kernel runs two on one
/// ring (docs/FusedSchedule.md), the second waiting for the first's
/// arrivals.
struct GemmPhase {
  const GroupedGemmConfig &cfg;
  Value a, b, sfa, d, sfb, blockExpert;
  /// halfBlocks or expertBlocks only: each m-block's first row and size.
  Value blockRow;
  CombineScatter scatter; // combineScatter only (d is then null)
  SwiGLURequant swiglu;   // swiglu only (d is then null)
  TileScheduler tiles;
  Value dTiles;
  MainloopPhase phase;
  /// Whether the math warpgroups split the columns of its tiles.
  bool splitN = false;
  /// Math warpgroups that compute its tiles; the others only walk the ring.
  int64_t computingWarpgroups = 0;
  /// The fused kernel's L2: before loading the A rows (and their scales) of
  /// m-block m, wait until arrivals[m] >= arrivalsPerBlock (the m-block's
  /// L1 tiles are stored), then count the wait in waits[m]; the waiter that
  /// makes it waitsPerBlock zeroes both, so the next call starts clean.
  Value arrivals, waits;
  int64_t arrivalsPerBlock = 0, waitsPerBlock = 0;
  std::optional<int64_t> timeoutCycles;
  /// pullRows: the dispatch role's copy (its operands and shapes), the
  /// pool_info pointer (m-blocks, rows), and the A warp's wait: until
  /// pullArrivals[u] >= pullTarget for each 64-row unit u of the m-block,
  /// counted in pullWaits[u]; the waiter that makes it pullWaitsPerUnit
  /// zeroes both.
  PoolPullOperands pullOps;
  PoolPullShape pullShape;
  /// Each dispatch warp's SMEM row slot and its one-stage pipeline.
  SmallVector<Value, 2> pullStaging, pullPipelines;
  Value poolInfo, pullArrivals, pullWaits;
  int64_t pullTarget = 0, pullWaitsPerUnit = 0;
  /// A ring pool (cfg.poolRing()): the L2 tiles done per ring slot. The
  /// dispatch warps (L1 phase) wait until ringDone[slot] >= lap x
  /// ringDonePerBlock before they refill a slot; each computing math
  /// warpgroup of an L2 tile (L2 phase) adds 1 when it is done with the
  /// slot, or zeroes it on the slot's last m-block.
  Value ringDone;
  int64_t ringDonePerBlock = 0;
  std::optional<int64_t> pullTimeoutCycles;
  /// K-split tail (tiles.kSplit > 1): where its units meet, and (with
  /// cfg.poolRanks) pool_row_start, whose [l][R] ends expert l's real rows.
  SplitTileHandoff split;
  Value splitPoolRowStart;
  /// The profile's phases of its tiles (L1 or L2).
  ProfilePhase mainloopPhase = ProfilePhase::L1Mainloop;
  ProfilePhase epiloguePhase = ProfilePhase::L1Epilogue;
};

/// The kernel-level values the roles share.
struct GemmKernel {
  const config::KernelPlan &plan;
  BlockScaledMainloop mainloop;
  SmallVector<Value> epilogueBarriers; // one per math warpgroup
  /// With half blocks: both math warpgroups meet on it after each half
  /// block's mainloop (buildMathPhase says why).
  Value halfBarrier;
  /// With KernelPlan::mmaTurns: the issue-turn barrier of each math
  /// warpgroup (the one it waits on; it passes the turn to the other's).
  SmallVector<Value, 2> mmaTurns;
  SmallVector<GemmPhase *, 2> phases;  // walked in this order by every role
  /// Two phases interleaved in waves of m-blocks (warpspec.wave_loop): the
  /// m-blocks per wave and the lag; none walks the phases one after the
  /// other (a tile_loop each).
  std::optional<WaveOrder> wave;
  PhaseProfile profile;                // off unless built with the profile
  /// The one-kernel layer: the kernel, its frame and the math warpgroups'
  /// barrier for the frame's math epilogue (null otherwise).
  const BoundKernel *kernel = nullptr;
  const FusedKernelFrame *frame = nullptr;
  Value mathBarrier;
};

/// The profile's tag of a tile: m-block x tiles per m-block + tile (only
/// built when the profile is on).
Value profileTag(OpBuilder &b, Location loc, const GemmKernel &k,
                 const GemmPhase &g, Value mBlock, Value tile) {
  if (!k.profile)
    return Value();
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, mBlock,
                            indexConst(b, loc, g.tiles.nBlocks)),
      tile);
}

/// One tile of a kernel's phase: what a role builds for it.
using KernelTileBody =
    function_ref<void(OpBuilder &, const GemmPhase &, Value mBlock,
                      Value nBlock, const ClusterTile *, Value unit)>;

/// Every role's walk over the kernel's tiles: each phase's tile loop in turn,
/// or with a wave order one warpspec.wave_loop whose body builds the tile of
/// the phase it is given (the phases' tiles interleaved in waves of
/// m-blocks, docs/FusedSchedule.md).
void forEachKernelTile(OpBuilder &b, Location loc, const GemmKernel &k,
                       KernelTileBody body) {
  if (!k.wave) {
    for (const GemmPhase *g : k.phases)
      g->tiles.forEachTile(
          b, loc,
          [&](OpBuilder &tb, Value mBlock, Value nBlock, const ClusterTile *at,
              Value unit) { body(tb, *g, mBlock, nBlock, at, unit); });
    return;
  }
  assert(k.phases.size() == 2 && "a wave order interleaves two phases");
  forEachWaveTile(
      b, loc, k.phases[0]->tiles, k.phases[1]->tiles, k.wave->mBlocks,
      k.wave->lag, [&](OpBuilder &tb, int phase, Value mBlock, Value nBlock) {
        body(tb, *k.phases[phase], mBlock, nBlock, nullptr, Value());
      });
}

/// The expert that owns row block `mBlock` (block_expert[mBlock]).
Value loadBlockExpert(OpBuilder &b, Location loc, const GemmPhase &g,
                      Value mBlock) {
  return moe::loadAt(b, loc, b.getI32Type(), g.blockExpert,
                     indexToI32(b, loc, mBlock));
}

/// Where an m-block's rows are: its first row (i32), whether it is a 64-row
/// half block (i1; null without half blocks), its 64-row units (i32;
/// expert blocks only, else null) and its expert.
struct BlockRows {
  Value row0, half, units, expert;
  /// Where the rows are stored: row0, or in a ring pool row0 mod its rows
  /// (the layout's tables are read with row0, the pool's regions with
  /// pool0).
  Value pool0;
};

/// Without half blocks m-block m is rows [m BLOCK_M, (m + 1) BLOCK_M) of
/// expert block_expert[m]; with them block_row[m] holds the first row (bit
/// 31: a half block) and block_expert the expert of each 64-row unit
/// (moe_layout, docs/UnfusedSchedule.md "Half blocks").
/// `withExpert` false leaves the expert null (a second read of the row and
/// the flag after the mainloop).
BlockRows loadBlockRows(OpBuilder &b, Location loc, const GemmPhase &g,
                        Value mBlock, bool withExpert = true) {
  if (!g.cfg.halfBlocks && !g.cfg.expertBlocks) {
    Value row0 = moe::blockStart(b, loc, mBlock, g.cfg.blockM);
    return {row0, Value(), Value(),
            withExpert ? loadBlockExpert(b, loc, g, mBlock) : Value(),
            poolDataRow(b, loc, row0, g.cfg.staticM, g.cfg.poolRing())};
  }
  Value entry = moe::loadAt(b, loc, b.getI32Type(), g.blockRow,
                            indexToI32(b, loc, mBlock));
  BlockRows r;
  if (g.cfg.expertBlocks) {
    // Expert blocks: bits [30, 32) hold the units less one
    // (config::kExpertBlockUnitsShift, moe_layout).
    Value shift = i32Const(b, loc, config::kExpertBlockUnitsShift);
    r.row0 = arith::AndIOp::create(
        b, loc, entry,
        i32Const(
            b, loc,
            static_cast<int32_t>((1u << config::kExpertBlockUnitsShift) - 1)));
    r.units = arith::AddIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, entry, shift),
        i32Const(b, loc, 1));
    if (withExpert)
      r.expert = moe::loadAt(
          b, loc, b.getI32Type(), g.blockExpert,
          arith::DivUIOp::create(b, loc, r.row0,
                                 i32Const(b, loc, config::kHalfBlockRows)));
    r.pool0 = r.row0; // no ring (GroupedGemmConfig)
    return r;
  }
  r.row0 = arith::AndIOp::create(
      b, loc, entry,
      i32Const(b, loc, static_cast<int32_t>(~config::kHalfBlockBit)));
  // The flag is the sign bit.
  static_assert(config::kHalfBlockBit == 1u << 31, "the half flag is bit 31");
  r.half = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, entry,
                                 i32Const(b, loc, 0));
  if (withExpert) {
    Value unit = arith::DivUIOp::create(
        b, loc, r.row0, i32Const(b, loc, config::kHalfBlockRows));
    r.expert = moe::loadAt(b, loc, b.getI32Type(), g.blockExpert, unit);
  }
  r.pool0 = r.row0; // half blocks: no ring (GroupedGemmConfig)
  return r;
}

/// The real rows of a split tile's m-block from `row0` (i32: the expert's
/// first padding row pool_row_start[expert][R] - row0; BLOCK_M or more for
/// a block the expert fills, at least 1 for any computed block), or null
/// where the kernel has no pool_row_start (every row is handed on).
Value splitTileRealRows(OpBuilder &b, Location loc, const GemmPhase &g,
                        const BlockRows &rows) {
  if (!g.splitPoolRowStart)
    return Value();
  int64_t r = g.cfg.poolRanks;
  Value end = moe::loadAt(
      b, loc, b.getI32Type(), g.splitPoolRowStart,
      moe::poolRowStartIndex(b, loc, rows.expert, i32Const(b, loc, r), r));
  return arith::SubIOp::create(b, loc, end, rows.row0);
}

/// Whether math warpgroup 1 skips a half block's stages (the L2 GEMM, the
/// combine scatter) rather than computing its other 64 rows and storing
/// none (the L1 kernels; buildMathPhase says why).
bool skipsHalfBlocks(const GroupedGemmConfig &c) {
  return c.halfBlocks && c.combineScatter;
}

/// The K blocks tile-loop iteration `unit` walks (splitUnitKRange).
KRange unitKRange(OpBuilder &b, Location loc, const GemmPhase &g, Value unit) {
  return splitUnitKRange(b, loc, unit, g.phase.kBlocks, g.tiles.kSplit);
}

/// The ring's mainloop; `otherK` is the inner size of a second GEMM on the
/// same ring (the fused kernel's L2), 0 if none.
MainloopConfig mainloopConfig(MLIRContext *ctx, const GroupedGemmConfig &c,
                              const config::KernelPlan &plan,
                              int64_t otherK = 0) {
  MainloopConfig m = MainloopConfig::fromPlan(plan, c.k);
  if (c.bScaleInterleave)
    m.interleaveWeightScales(ctx, c.bScaleInterleave);
  m.unrollStages = plan.unrollsStages(c.k, otherK);
  return m;
}

/// Column block `i` (0 or 1) of SwiGLU tile `tile`: 2 tile + i.
Value pairColumnBlock(OpBuilder &b, Location loc, Value tile, int64_t i) {
  Value first = arith::MulIOp::create(b, loc, tile, indexConst(b, loc, 2));
  return i ? arith::AddIOp::create(b, loc, first, indexConst(b, loc, 1))
           : first;
}

/// The column blocks of a tile, one mainloop pass each: one, or with
/// swiglu the pair 2t, 2t + 1 (with swigluPairStages one pass over both:
/// tile t of the mainloop's BLOCK_N 256).
SmallVector<Value, 2> tileColumnBlocks(OpBuilder &b, Location loc,
                                       const GroupedGemmConfig &c, Value tile) {
  if (!c.swiglu || c.swigluPairStages)
    return {tile};
  Value first = pairColumnBlock(b, loc, tile, 0);
  return {first,
          arith::AddIOp::create(b, loc, first, indexConst(b, loc, 1))};
}

/// One counted wait on a workspace counter: poll `arrivals[index] >= target`
/// (ld.acquire.gpu, bounded by `timeoutCycles`, reported as `name`), fence
/// the async proxy so the TMA reads that follow see what was published, and
/// count the wait in `waits[index]`; the waiter that makes it `waiters`
/// zeroes both, so the next call starts clean with no memset. The whole warp
/// waits; lane 0 counts.
void countedWait(OpBuilder &b, Location loc, Value arrivals, Value waits,
                 Value index, int64_t target, int64_t waiters, StringRef name,
                 std::optional<int64_t> timeoutCycles) {
  Value arrived = ws::GlobalOffsetOp::create(b, loc, arrivals, index);
  ws::CounterWaitOp::create(
      b, loc, arrived, i32Const(b, loc, target), ws::Scope::gpu,
      b.getStringAttr(name),
      timeoutCycles ? b.getI64IntegerAttr(*timeoutCycles) : IntegerAttr());
  ws::FenceAsyncGlobalOp::create(b, loc);
  Value lane0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      moe::laneId(b, loc), i32Const(b, loc, 0));
  moe::ifThen(b, loc, lane0, [&](OpBuilder &lb) {
    Value waited = ws::GlobalOffsetOp::create(lb, loc, waits, index);
    Value before = ws::GlobalAtomicOp::create(
        lb, loc, ws::AtomicKind::add, waited, i32Const(lb, loc, 1));
    Value last = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq,
                                       before, i32Const(lb, loc, waiters - 1));
    moe::ifThen(lb, loc, last, [&](OpBuilder &zb) {
      // Every waiter of this call has passed: nobody reads them again.
      moe::store(zb, loc, i32Const(zb, loc, 0), arrived, 4);
      moe::store(zb, loc, i32Const(zb, loc, 0), waited, 4);
    });
  });
}

/// The producer warps that load A rows or their scales, which are the ones
/// that wait for an m-block's L2 arrivals: warps 0 and 1 (A, A scales; with
/// two TMA warps, both), or the one warp of a 1-warp producer.
int64_t arrivalWaitingWarps(const config::KernelPlan &plan) {
  const config::RolePlan &tma = plan.producerRole();
  return std::min<int64_t>(2, tma.warpEnd - tma.warpBegin);
}

/// The L2 arrival wait of the fused kernel's producer warps that load A
/// rows and their scales (arrivalWaitingWarps).
void waitForArrivals(OpBuilder &b, Location loc, const GemmKernel &k,
                     const GemmPhase &g, Value warp, Value mBlock) {
  Value loadsRows =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warp,
                            indexConst(b, loc, arrivalWaitingWarps(k.plan)));
  moe::ifThen(b, loc, loadsRows, [&](OpBuilder &wb) {
    countedWait(wb, loc, g.arrivals, g.waits, indexToI32(wb, loc, mBlock),
                g.arrivalsPerBlock, g.waitsPerBlock, "l2_arrival",
                g.timeoutCycles);
  });
}

/// The pull wait of the producer warp that loads A rows and their scales
/// (warp 0 of two): each 64-row unit of the m-block (two, or one for a half
/// block; one at BLOCK_M 64) must hold all its rows, waited on by every
/// tile of the m-block.
void waitForPulledRows(OpBuilder &b, Location loc, const GemmPhase &g,
                       Value warp, const BlockRows &rows) {
  Value isA = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                    indexConst(b, loc, 0));
  moe::ifThen(b, loc, isA, [&](OpBuilder &wb) {
    int64_t align = g.pullShape.align;
    Value first =
        arith::DivUIOp::create(wb, loc, rows.row0, i32Const(wb, loc, align));
    Value units = i32Const(wb, loc, g.cfg.blockM / align);
    if (rows.half)
      units = arith::SelectOp::create(wb, loc, rows.half, i32Const(wb, loc, 1),
                                      units);
    Value end = arith::AddIOp::create(wb, loc, first, units);
    moe::forLoop(wb, loc, first, end, i32Const(wb, loc, 1),
                 [&](OpBuilder &ub, Value unit) {
                   countedWait(ub, loc, g.pullArrivals, g.pullWaits, unit,
                               g.pullTarget, g.pullWaitsPerUnit,
                               "pull_arrival", g.pullTimeoutCycles);
                 });
  });
}

/// The m-blocks a ring pool holds (its slots).
int64_t ringMBlocks(const GroupedGemmConfig &c) { return c.staticM / c.blockM; }

/// A ring pool's slot of m-block `mBlock` (index): mBlock mod the ring's
/// m-blocks (i32), and the lap, mBlock / that.
std::pair<Value, Value> ringSlotAndLap(OpBuilder &b, Location loc,
                                       const GemmPhase &g, Value mBlock) {
  Value m = indexToI32(b, loc, mBlock);
  Value blocks = i32Const(b, loc, ringMBlocks(g.cfg));
  return {arith::RemUIOp::create(b, loc, m, blocks),
          arith::DivUIOp::create(b, loc, m, blocks)};
}

/// Before the dispatch warp refills a ring slot with layout row `row` (i32)
/// of m-block m at lap m / slots >= 1: wait until the slot's previous
/// m-block's L2 tiles are done, ringDone[slot] >= lap x ringDonePerBlock
/// (the count of every earlier lap: the slot's last m-block zeroes it,
/// releaseRingSlot). The whole warp polls; acquire at gpu scope orders the
/// copy after those tiles' reads.
void waitForRingSlot(OpBuilder &b, Location loc, const GemmPhase &g, Value row,
                     const PhaseProfile *profile) {
  Value mBlock = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      arith::DivUIOp::create(b, loc, row, i32Const(b, loc, g.cfg.blockM)));
  auto [slot, lap] = ringSlotAndLap(b, loc, g, mBlock);
  Value refill = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, lap,
                                       i32Const(b, loc, 0));
  moe::ifThen(b, loc, refill, [&](OpBuilder &rb) {
    Value target = arith::MulIOp::create(rb, loc, lap,
                                         i32Const(rb, loc, g.ringDonePerBlock));
    auto wait = [&] {
      ws::CounterWaitOp::create(
          rb, loc, ws::GlobalOffsetOp::create(rb, loc, g.ringDone, slot),
          target, ws::Scope::gpu, rb.getStringAttr("pool_ring_slot"),
          g.pullTimeoutCycles ? rb.getI64IntegerAttr(*g.pullTimeoutCycles)
                              : IntegerAttr());
    };
    if (profile)
      profile->span(rb, loc, kProfileDispatchRole, ProfilePhase::RingWait,
                    mBlock, wait);
    else
      wait();
  });
}

/// Role "dispatch" (pullRows): warp w of CTA c copies pool rows c * 2 + w,
/// + 2 x gridDim, ... below pool_info[1] (the order the tile loop reads
/// them: m-blocks ascending), then publishes each row of a computed m-block
/// to its 64-row unit's arrival counter. Rows past the computed blocks
/// (only in a pool that overflowed) are copied but not counted: no tile
/// would wait on them and zero their counter.
/// One warpspec.role per dispatch warp (`w` of the plan's dispatch role):
/// each has its own SMEM row slot and pipeline, whose arrivals a pipeline
/// counts per warp of the roles that use it.
void buildDispatchRole(OpBuilder &b, Location loc, const GemmKernel &k,
                       const GemmPhase &g, int64_t w) {
  config::RolePlan plan = *k.plan.dispatchRole();
  int64_t dispatchWarps = plan.warpEnd - plan.warpBegin;
  plan.name += std::to_string(w);
  plan.warpBegin += w;
  plan.warpEnd = plan.warpBegin + 1;
  auto role = createPlannedRole(b, loc, plan);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&role.getBody().front());
  const PoolPullShape &s = g.pullShape;
  PoolPullOperands ops = g.pullOps;
  ops.staging = g.pullStaging[w];
  ops.stagingPipeline = g.pullPipelines[w];
  Value warp = i32Const(b, loc, w);
  Value lane = moe::laneId(b, loc);
  Value warps = i32Const(b, loc, dispatchWarps);
  Value rows = moe::umin(
      b, loc,
      moe::loadAt(b, loc, b.getI32Type(), g.poolInfo, i32Const(b, loc, 1), 4),
      i32Const(b, loc, g.cfg.layoutRowCapacity()));
  // The end of the computed m-blocks' rows (they are a prefix of the pool).
  Value mBlocks = g.tiles.numMBlocks; // i32, clamped
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, mBlocks,
                                    i32Const(b, loc, 0));
  Value lastBlock = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      arith::MaxSIOp::create(
          b, loc, arith::SubIOp::create(b, loc, mBlocks, i32Const(b, loc, 1)),
          i32Const(b, loc, 0)));
  BlockRows last = loadBlockRows(b, loc, g, lastBlock, /*withExpert=*/false);
  Value lastRows = i32Const(b, loc, g.cfg.blockM);
  if (last.half)
    lastRows = arith::SelectOp::create(
        b, loc, last.half, i32Const(b, loc, config::kHalfBlockRows), lastRows);
  Value computedEnd = arith::SelectOp::create(
      b, loc, any, arith::AddIOp::create(b, loc, last.row0, lastRows),
      i32Const(b, loc, 0));
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, moe::blockIdX(b, loc), warps),
      warp);
  Value stride = arith::MulIOp::create(b, loc, moe::gridDimX(b, loc), warps);
  // Dispatch warp 0 stamps its copy loop and its ring waits (the profile's
  // dispatch role; warp 1 would share its slice).
  const PhaseProfile *profile =
      w == 0 && k.profile && k.profile.section.roles > kProfileDispatchRole
          ? &k.profile
          : nullptr;
  if (profile)
    profile->stamp(b, loc, kProfileDispatchRole, ProfilePhase::Pull,
                   /*end=*/false, Value());
  moe::forLoop(b, loc, first, rows, stride, [&](OpBuilder &lb, Value row) {
    if (g.ringDone)
      waitForRingSlot(lb, loc, g, row, profile);
    pullPoolRow(lb, loc, s, ops, lane, row);
    Value counted = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult,
                                          row, computedEnd);
    moe::ifThen(lb, loc, counted, [&](OpBuilder &cb) {
      // The lanes' stores, generic proxy, are read by the tiles' TMA loads
      // (async proxy) on other SMs; the warp barrier makes them lane 0's
      // before its (cumulative) release.
      ws::FenceAsyncGlobalOp::create(cb, loc);
      ws::WarpSyncOp::create(cb, loc);
      Value lane0 = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::eq,
                                          lane, i32Const(cb, loc, 0));
      moe::ifThen(cb, loc, lane0, [&](OpBuilder &rb) {
        Value unit =
            arith::DivUIOp::create(rb, loc, row, i32Const(rb, loc, s.align));
        ws::CounterAddOp::create(
            rb, loc, ws::GlobalOffsetOp::create(rb, loc, g.pullArrivals, unit),
            i32Const(rb, loc, 1), ws::Scope::gpu);
      });
    });
  });
  if (profile)
    profile->stamp(b, loc, kProfileDispatchRole, ProfilePhase::Pull,
                   /*end=*/true, Value());
}

/// Role "tma": the mainloop's producer for every tile of every phase.
void buildProducerRole(OpBuilder &b, Location loc, const GemmKernel &k) {
  auto role = createPlannedRole(b, loc, k.plan.producerRole());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&role.getBody().front());
  Value warp = ws::RoleWarpIdOp::create(b, loc);
  Value isWarp0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                        indexConst(b, loc, 0));
  moe::ifThen(b, loc, isWarp0, [&](OpBuilder &pb) {
    for (const GemmPhase *g : k.phases)
      for (Value desc : {g->a, g->b, g->sfa, g->d})
        if (desc)
          ws::TmaPrefetchOp::create(pb, loc, desc);
  });
  forEachKernelTile(
      b, loc, k,
      [&](OpBuilder &tb, const GemmPhase &g, Value mBlock, Value tile,
          const ClusterTile *at, Value unit) {
        const GroupedGemmConfig &c = g.cfg;
        BlockRows rows = loadBlockRows(tb, loc, g, mBlock);
        Value expert = rows.expert;
        KRange range = unitKRange(tb, loc, g, unit);
        Value tag = profileTag(tb, loc, k, g, mBlock, tile);
        if (g.arrivals)
          k.profile.span(tb, loc, /*role=*/0, ProfilePhase::L2Wait, tag,
                         [&] { waitForArrivals(tb, loc, k, g, warp, mBlock); });
        if (g.pullArrivals)
          waitForPulledRows(tb, loc, g, warp, rows);
        SmallVector<Value, 2> nBlocks = tileColumnBlocks(tb, loc, c, tile);
        // The cluster shares the weight tile when its m-blocks belong to one
        // expert (each expert's m-blocks are contiguous, or paired by the
        // layout, so the first and the last tell). Every CTA of the cluster
        // computes the same value. With half blocks an m-block's expert is
        // its first row's unit's (loadBlockRows), not block_expert[m].
        Value shareB;
        if (at)
          shareB = arith::CmpIOp::create(
              tb, loc, arith::CmpIPredicate::eq,
              loadBlockRows(tb, loc, g, at->firstMBlock).expert,
              loadBlockRows(tb, loc, g, at->lastMBlock).expert);
        auto operands = [&](Value nBlock) {
          TileOperands t =
              groupedTileOperands(tb, loc, k.mainloop.config(), g.a, g.sfa, g.b,
                                  rows.pool0, nBlock, expert, c.n);
          t.shareB = shareB;
          return t;
        };
        k.profile.span(tb, loc, /*role=*/0, g.mainloopPhase, tag, [&] {
          if (g.splitN) { // both column blocks in each stage
            TileOperands t = operands(nBlocks[0]);
            t.bRow1 = operands(nBlocks[1]).bRow;
            return k.mainloop.produceTile(tb, loc, warp, t, g.phase, range);
          }
          for (Value nBlock : nBlocks)
            k.mainloop.produceTile(tb, loc, warp, operands(nBlock), g.phase,
                                   range);
        });
      });
}

/// Whether a SwiGLU tile's math warpgroup reads its rows' router weights
/// after the mainloop instead of before it, because two registers more
/// through the mainloop spill (ptxas, V4-Flash and V4-Pro): with
/// swigluPairStages (both blocks' totals live: 112 bytes, 0 late) and in
/// the fused GEMM kernel's BLOCK_M 128 wave order (the tile mapping's
/// registers: 48 / 72 bytes, 0 late). Elsewhere the early read keeps its
/// latency off the epilogue (the kernels measured that way).
bool readsRowWeightsLate(const GemmKernel &k, const GroupedGemmConfig &c) {
  return c.swigluPairStages || (k.wave && c.blockM == 128);
}

/// The end of an L2 tile's use of its ring slot, by one computing math
/// warpgroup: once every thread is past its reads (pool_source, and the
/// A stages the mainloop consumed), lane 0 of the storer warp adds 1 to
/// ringDone[slot] (release), or, on the slot's last m-block of this call
/// (no later lap: nobody waits for it, and every dispatch warp that waited
/// on the slot has passed, since this m-block's rows were pulled), zeroes
/// it for the next call.
void releaseRingSlot(OpBuilder &b, Location loc, const GemmPhase &g,
                     Value barrier, Value isStorer, Value mBlock) {
  ws::BarrierSyncOp::create(b, loc, barrier);
  Value lane0 = arith::AndIOp::create(
      b, loc, isStorer,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            moe::laneId(b, loc), i32Const(b, loc, 0)));
  moe::ifThen(b, loc, lane0, [&](OpBuilder &lb) {
    Value slot = ringSlotAndLap(lb, loc, g, mBlock).first;
    Value counter = ws::GlobalOffsetOp::create(lb, loc, g.ringDone, slot);
    Value next = arith::AddIOp::create(lb, loc, indexToI32(lb, loc, mBlock),
                                       i32Const(lb, loc, ringMBlocks(g.cfg)));
    Value refilled = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult,
                                           next, g.tiles.numMBlocks);
    moe::ifThen(
        lb, loc, refilled,
        [&](OpBuilder &rb) {
          ws::CounterAddOp::create(rb, loc, counter, i32Const(rb, loc, 1),
                                   ws::Scope::gpu);
        },
        [&](OpBuilder &zb) {
          moe::store(zb, loc, i32Const(zb, loc, 0), counter, 4);
        });
  });
}

/// Warpgroup wg's issue turn: it waits on its own barrier and passes the
/// turn to the other warpgroup's (none without KernelPlan::mmaTurns).
MmaTurn mmaTurn(const GemmKernel &k, int64_t wg) {
  if (k.mmaTurns.empty())
    return {};
  return {k.mmaTurns[wg], k.mmaTurns[1 - wg]};
}

/// One math warpgroup's part of a tile of phase `g`: rows [64 wg, 64 wg +
/// 64) (with splitN all 64 rows of column block wg of the pair; with two
/// row blocks per warpgroup [128 wg, 128 wg + 128)): the mainloop's
/// consumer, then the epilogue.
void buildMathTile(OpBuilder &tb, Location loc, const GemmKernel &k,
                   const GemmPhase &g, int64_t wg, Value isStorer, Value mBlock,
                   Value tile, const ClusterTile *cluster, Value unit) {
  const GroupedGemmConfig &c = g.cfg;
  if (wg >= g.computingWarpgroups) {
    // No rows or columns of these tiles: walk the ring with the others.
    k.mainloop.skipTile(tb, loc, g.phase, unitKRange(tb, loc, g, unit));
    return;
  }
  bool splitN = g.splitN;
  EpilogueTile epilogue{g.dTiles, k.epilogueBarriers[wg], wg, splitN ? 0 : wg};
  BlockRows rows = loadBlockRows(tb, loc, g, mBlock);
  KRange range = unitKRange(tb, loc, g, unit);
  // With splitN this warpgroup computes column block wg of the pair.
  SmallVector<Value, 2> nBlocks =
      splitN ? SmallVector<Value, 2>{pairColumnBlock(tb, loc, tile, wg)}
             : tileColumnBlocks(tb, loc, c, tile);
  // A half block is warpgroup 0's 64 rows. In the L2 GEMM (the combine
  // scatter) warpgroup 1 skips its stages (warpspec.consumer.skip: no
  // barrier operation, no registers for a second ring walk) and warpgroup
  // 0 releases each of them twice. Then both meet on the half barrier once
  // warpgroup 0's mainloop is done, so that warpgroup 1 never waits on a
  // stage more than one phase ahead of its barrier (a parity wait cannot
  // tell phase n from phase n + 2): its next wait is for a stage whose
  // previous fill, in this block or before, is complete. The L1 kernels
  // compute a half block with both warpgroups (the other 64 rows are the
  // next block's, or past the pool: zero-filled) and warpgroup 1 only
  // skips the stores: there warpgroup 0 alone made V4-Pro's layer 1.14-
  // 1.16x slower at 8192 tokens (bench/RESULTS.md 2026-12-02, "Half
  // blocks", run 3).
  // Expert blocks extend this to 256-row tiles: warpgroup w computes the
  // units 2w and 2w + 1 that are present (two row blocks, or only the
  // first), and warpgroup 1 skips the stages of a block of at most two
  // units as it skips a half block's.
  bool skipsHalves = skipsHalfBlocks(c);
  Value partnerSkips;
  if (skipsHalves && epilogue.rowBlock == 0)
    partnerSkips = rows.half;
  if (c.expertBlocks)
    partnerSkips = arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::ule,
                                         rows.units, i32Const(tb, loc, 2));
  Value releaseCount;
  if (partnerSkips && wg == 0)
    releaseCount = arith::SelectOp::create(
        tb, loc, partnerSkips, i32Const(tb, loc, 2), i32Const(tb, loc, 1));
  // `rowBlocks`: the 64-row blocks this warpgroup computes (the plan's, or
  // fewer in an expert block).
  auto compute = [&](OpBuilder &cb, int64_t rowBlocks) {
    MainloopPhase phase = g.phase;
    if (rowBlocks != k.plan.rowBlocks)
      phase.rowBlocks = rowBlocks;
    // With swiglu: the router weights are read before the mainloop, and
    // each column block's SwiGLU runs as soon as it is done. With
    // pullRows this kernel's dispatch warps write them: they are read
    // after the first column block's mainloop, whose first stage the
    // producer filled after its acquire of the rows' arrivals (the
    // mbarrier wait orders this read after that acquire). Where keeping
    // them through the mainloop spills, they are read after it too
    // (readsRowWeightsLate).
    bool lateWeights = c.pullRows || readsRowWeightsLate(k, c);
    Value weights =
        c.swiglu && !lateWeights
            ? loadSwiGLURowWeights(cb, loc, epilogue, g.swiglu, rows.pool0)
            : Value();
    SmallVector<Value, 2> totals;
    // The profile's mainloop: from the first wait to the last MMA (with
    // swiglu at BLOCK_M 128 it holds the first block's SwiGLU).
    int64_t role = 1 + wg;
    Value tag = profileTag(cb, loc, k, g, mBlock, tile);
    k.profile.stamp(cb, loc, role, g.mainloopPhase, /*end=*/false, tag);
    // With k_split the SwiGLU waits for the tile's sum (below). The real
    // rows are read here, so that their latency hides behind the
    // mainloop (one register: after the mainloop the expert it needs
    // would live through it instead; V4-Pro's split L1 spills 124 bytes
    // either way, V4-Flash's kernels none).
    bool splits = static_cast<bool>(unit);
    Value realRows = splits ? splitTileRealRows(cb, loc, g, rows) : Value();
    SmallVector<Value, 2> partials;
    for (Value nBlock : nBlocks) {
      Value sfbRow = groupedWeightScalesRow(cb, loc, k.mainloop.config(),
                                            rows.expert, nBlock, c.n, c.k);
      // One accumulator per column block of the tile (two with BLOCK_N
      // 256, which has no SwiGLU), per row block (two with BLOCK_M 256).
      Value firstRow =
          indexConst(cb, loc, 64 * k.plan.rowBlocks * epilogue.rowBlock);
      SmallVector<Value, 2> t = k.mainloop.consumeTile(
          cb, loc, firstRow, g.sfb, sfbRow, splitN ? wg : 0, phase,
          releaseCount,
          groupedStraddlingScales(cb, loc, k.mainloop.config(), nBlock, c.n,
                                  c.k),
          range, mmaTurn(k, wg));
      if (c.swiglu && !weights)
        weights = loadSwiGLURowWeights(cb, loc, epilogue, g.swiglu, rows.pool0);
      if (splits)
        partials.append(t);
      else if (c.swiglu)
        // One column block per accumulator: two with swigluPairStages.
        for (Value block : t)
          totals.push_back(swigluBlock(cb, loc, block, weights, g.swiglu));
      else
        totals.append(t);
    }
    k.profile.stamp(cb, loc, role, g.mainloopPhase, /*end=*/true, tag);
    // A split tile's units hand their partial sums to its last unit
    // (SplitTile.h); only that one (or a whole tile) runs the epilogue.
    Value runEpilogue;
    if (splits) {
      SmallVector<int64_t, 2> blocks;
      for (size_t j = 0; j < partials.size(); ++j)
        blocks.push_back(splitN ? wg : static_cast<int64_t>(j));
      auto [run, sums] = finishSplitUnit(
          cb, loc, g.split, unit, partials, blocks, splitN ? wg : 0,
          k.epilogueBarriers[wg], isStorer, realRows);
      runEpilogue = run;
      partials = sums;
    }
    auto splitTotals = [&](OpBuilder &sb) {
      if (!splits)
        return;
      totals.clear();
      for (Value p : partials)
        totals.push_back(c.swiglu ? swigluBlock(sb, loc, p, weights, g.swiglu)
                                  : p);
    };
    if (releaseCount)
      moe::ifThen(cb, loc, partnerSkips, [&](OpBuilder &hb) {
        ws::BarrierSyncOp::create(hb, loc, k.halfBarrier);
      });
    // Warpgroup 1 of an L1 half block stores nothing; the row and the
    // flag are read again rather than kept through the mainloop (a loaded
    // value cannot be rematerialized: ptxas spilled 12 bytes).
    Value storeRows = Value();
    if (rows.half && !skipsHalves) {
      BlockRows again = loadBlockRows(cb, loc, g, mBlock,
                                      /*withExpert=*/false);
      rows.row0 = again.row0;
      rows.pool0 = again.pool0;
      if (epilogue.rowBlock > 0)
        storeRows = arith::XOrIOp::create(
            cb, loc, again.half,
            arith::ConstantIntOp::create(cb, loc, cb.getI1Type(), 1));
    }
    // In a cluster, a last group of one m-block has rank 1 compute it
    // again (ClusterTile::owned false): it keeps the ring's protocol and
    // stores nothing. Both warpgroups skip alike (the SwiGLU epilogue at
    // BLOCK_M 128 exchanges nothing between them).
    if (cluster && c.swiglu)
      storeRows = storeRows ? arith::AndIOp::create(cb, loc, storeRows,
                                                    cluster->owned)
                                  .getResult()
                            : cluster->owned;
    auto store = [&](OpBuilder &sb) {
      k.profile.span(sb, loc, role, g.epiloguePhase, tag, [&] {
        if (c.swiglu)
          return requantStoreTile(sb, loc, epilogue, totals, splitN ? wg : 0,
                                  g.swiglu, rows.pool0, mBlock, tile, isStorer);
        TilePosition at{rows.pool0, tile, c.blockN};
        size_t perRowBlock = totals.size() / rowBlocks;
        if (c.combineScatter) {
          // Row block by row block (one, or up to two of an expert block)
          // through the warpgroup's rows of the output tile.
          for (int64_t r = 0; r < rowBlocks; ++r) {
            if (k.plan.rowBlocks > 1)
              at.rowBlock = k.plan.rowBlocks * wg + r;
            scatterTileToPeers(
                sb, loc, epilogue,
                ArrayRef<Value>(totals).slice(r * perRowBlock, perRowBlock),
                g.scatter, at);
          }
          return;
        }
        if (c.swapAB)
          return storeTransposedTileWithTma(sb, loc, epilogue, totals.front(),
                                            g.d, at, isStorer);
        // Row block by row block (one, or two at BLOCK_M 256) through
        // the warpgroup's rows of the output tile.
        for (int64_t r = 0; r < rowBlocks; ++r) {
          if (rowBlocks > 1)
            at.rowBlock = rowBlocks * wg + r;
          storeTileWithTma(
              sb, loc, epilogue,
              ArrayRef<Value>(totals).slice(r * perRowBlock, perRowBlock), g.d,
              at, isStorer, cluster ? cluster->owned : Value());
        }
      });
    };
    if (runEpilogue) {
      assert(!storeRows && "a split tile is never a half block");
      moe::ifThen(cb, loc, runEpilogue, [&](OpBuilder &sb) {
        splitTotals(sb);
        store(sb);
      });
    } else if (storeRows)
      moe::ifThen(cb, loc, storeRows, store);
    else
      store(cb);
    // The L2 tile's end frees its ring slot (the L1 phase's ringDone is
    // its dispatch warps' wait).
    if (g.ringDone && c.combineScatter)
      releaseRingSlot(cb, loc, g, k.epilogueBarriers[wg], isStorer, mBlock);
  };
  auto skipStages = [&](OpBuilder &sb) {
    k.mainloop.skipTileStages(sb, loc, g.phase,
                              static_cast<int64_t>(nBlocks.size()));
    ws::BarrierSyncOp::create(sb, loc, k.halfBarrier);
  };
  auto computeAll = [&](OpBuilder &cb) { compute(cb, k.plan.rowBlocks); };
  if (c.expertBlocks) {
    // Each branch holds its own mainloop and epilogue, so no accumulator
    // lives across it (an scf.if around the second row block's MMA inside
    // the K loop spilled 1 KB, bench/RESULTS.md 2026-12-07).
    Value both =
        arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::uge, rows.units,
                              i32Const(tb, loc, 2 * (wg + 1)));
    auto present = [&](OpBuilder &pb) {
      moe::ifThen(pb, loc, both, computeAll,
                  [&](OpBuilder &ob) { compute(ob, 1); });
    };
    if (wg == 0)
      present(tb);
    else
      moe::ifThen(tb, loc, partnerSkips, skipStages, present);
    return;
  }
  if (skipsHalves && epilogue.rowBlock > 0) {
    moe::ifThen(tb, loc, rows.half, skipStages, computeAll);
    return;
  }
  computeAll(tb);
}

/// Role "math<wg>": its tiles of every phase, then what must complete before
/// the CTA exits.
void buildMathRole(OpBuilder &b, Location loc, const GemmKernel &k,
                   int64_t wg) {
  auto role = createPlannedRole(b, loc, k.plan.roles[1 + wg]);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&role.getBody().front());
  Value warp = ws::RoleWarpIdOp::create(b, loc);
  Value isStorer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                         indexConst(b, loc, 0));
  bool tmaStores = false, scatters = false;
  // Warpgroup 0 has the first turn: warpgroup 1 hands it over before its
  // first MMA, and warpgroup 0 takes that one extra turn after its last, so
  // the barrier ends with no arrival pending.
  if (!k.mmaTurns.empty() && wg == 1)
    ws::BarrierArriveOp::create(b, loc, k.mmaTurns[0]);
  forEachKernelTile(b, loc, k,
                    [&](OpBuilder &tb, const GemmPhase &g, Value mBlock,
                        Value tile, const ClusterTile *at, Value unit) {
                      buildMathTile(tb, loc, k, g, wg, isStorer, mBlock, tile,
                                    at, unit);
                    });
  for (const GemmPhase *g : k.phases) {
    scatters |= g->cfg.combineScatter;
    tmaStores |= !g->cfg.combineScatter;
  }
  if (!k.mmaTurns.empty() && wg == 0)
    ws::BarrierSyncOp::create(b, loc, k.mmaTurns[0]);
  if (tmaStores)
    drainTileStores(b, loc, isStorer);
  // The remote combine stores are visible system-wide before the next
  // kernel's cross-rank barrier (moe_combine_barrier), or the frame's.
  if (scatters)
    moe::systemFence(b, loc);
  if (k.frame && k.frame->mathEpilogue) {
    int64_t firstThread = k.plan.roles[1].warpBegin * 32;
    Value thread = arith::SubIOp::create(b, loc, moe::threadIdX(b, loc),
                                         i32Const(b, loc, firstThread));
    k.frame->mathEpilogue(b, *k.kernel, thread,
                          128 * k.plan.mathWarpgroups(), k.mathBarrier);
  }
}


/// The row blocks to compute: the parameter's value, or the i32 it points to
/// (written by an earlier kernel on the stream, so a plain load sees it),
/// clamped to [0, M / BLOCK_M] (M / 64 with half blocks: the tables'
/// entries) so that a bad count cannot index block_expert out of bounds.
Value numMBlocksAtStart(OpBuilder &b, Location loc, const GroupedGemmConfig &c,
                        Value param) {
  Value count = param;
  // Expert blocks: their count follows the layout's (pool_info).
  if (c.deviceMBlocks)
    count = c.expertBlocks
                ? moe::loadAt(b, loc, b.getI32Type(), param,
                              i32Const(b, loc, config::kExpertBlocksInfoIndex),
                              /*align=*/4)
                : moe::load(b, loc, b.getI32Type(), param, /*align=*/4);
  Value most = i32Const(b, loc,
                        c.layoutRowCapacity() / (c.halfBlocks || c.expertBlocks
                                                     ? config::kHalfBlockRows
                                                     : c.blockM));
  count = arith::MinSIOp::create(b, loc, count, most);
  return arith::MaxSIOp::create(b, loc, count, i32Const(b, loc, 0));
}

/// A phase's operands from the kernel's parameters (`find` by name).
GemmPhase bindPhase(const GroupedGemmConfig &c,
                    function_ref<Value(StringRef)> arg) {
  GemmPhase g{c};
  g.a = arg(kParamA);
  g.b = arg(kParamB);
  g.sfa = arg(kParamSfa);
  g.d = arg(kParamD);
  g.sfb = arg(kParamSfb);
  g.blockExpert = arg(kParamBlockExpert);
  g.blockRow = arg(kParamBlockRow);
  g.scatter = {arg(kParamPoolSource), arg(kParamCombine),
               arg(kParamPeerOffsets), c.combineRanks, c.combineTokens,
               c.combineTopk, c.n};
  g.swiglu.rowWeights = arg(kParamRowWeight);
  g.swiglu.out = arg(kParamOut);
  g.swiglu.outScales = arg(kParamOutScales);
  g.swiglu.arrivals = arg(kParamArrivals);
  g.swiglu.rows = c.rowCapacity();
  g.pullOps = {arg(kParamSrcTokenIndex), arg(kParamPoolRowStart),
               g.blockExpert,            arg(kParamPool),
               arg(kParamPoolScales),    g.swiglu.rowWeights,
               arg(kParamPoolSource),    arg(kParamX),
               arg(kParamXScales),       arg(kParamTopkWeights),
               arg(kParamPeerOffsets)};
  g.poolInfo = arg(kParamNumMBlocks);
  g.pullArrivals = arg(kParamPullArrivals);
  g.pullWaits = arg(kParamPullWaits);
  g.split.partials = arg(kParamSplitPartials);
  g.split.counts = arg(kParamSplitCounts);
  if (c.kSplit > 1 && c.poolRanks > 0)
    g.splitPoolRowStart = arg(kParamPoolRowStart);
  g.swiglu.clamp = c.swigluClamp;
  g.swiglu.fastMath = c.fastMath;
  g.swiglu.requantBlock = c.swigluRequantBlock;
  return g;
}

/// The phase's mainloop view: its K blocks and weight-scale layout on the
/// kernel's ring.
MainloopPhase phaseOf(MLIRContext *ctx, const GroupedGemmConfig &c,
                      const config::KernelPlan &plan, bool splitN) {
  MainloopConfig m = mainloopConfig(ctx, c, plan);
  MainloopPhase phase = m.phase();
  phase.bBlocks = splitN ? 2 : m.columnBlocks;
  // The GEMM's own activation-scale groups: on a shared ring the plan's are
  // the larger of both GEMMs' (config::planFusedGemmKernel).
  phase.aScaleGroups = c.aScaleGroups;
  return phase;
}

/// Allocates the epilogue buffers of a phase: the SwiGLU activation tiles,
/// or the output tile (64 rows per math warpgroup: with two row blocks each,
/// KernelPlan::rowBlocks, half of BLOCK_M).
Value allocateOutputTile(OpBuilder &b, Location loc,
                         const GroupedGemmConfig &c, int64_t columns) {
  Type outType = c.outBytes() == 4 ? Type(b.getF32Type()) : b.getBF16Type();
  if (c.swiglu)
    return SwiGLURequant::allocate(b, loc, c.blockM);
  if (c.combineScatter)
    return EpilogueTile::allocate(
        b, loc, c.blockM / config::warpgroupRowBlocks(c.blockM), columns,
        outType);
  if (c.swapAB)
    return EpilogueTile::allocateTransposed(b, loc, c.blockM,
                                            c.plan().mathWarpgroups(),
                                            gemm::dPanelCols(c), outType);
  return EpilogueTile::allocatePanels(
      b, loc, c.blockM / config::warpgroupRowBlocks(c.blockM), columns,
      gemm::dPanelCols(c), outType);
}

/// The split-columns pair's amax exchange and barrier (swiglu with splitN).
void allocatePairExchange(OpBuilder &b, Location loc,
                          const config::KernelPlan &plan, GemmPhase &g) {
  g.swiglu.exchange = allocateRowExchange(b, loc);
  g.swiglu.pairBarrier = ws::NamedBarrierOp::create(
      b, loc, ws::BarrierType::get(b.getContext()), 1 + plan.mathWarpgroups(),
      b.getStrArrayAttr({"math0", "math1"}));
}

/// pullRows: the dispatch role's copy of the pool rows (shape, each dispatch
/// warp's SMEM row slot and pipeline: the plan's pull_rows and
/// pull_barriers regions, after the ring and the output tiles) and the A
/// warp's wait per 64-row unit, which every L1 tile of its m-block makes.
void setUpPull(OpBuilder &b, Location loc, const config::KernelPlan &plan,
               const GroupedGemmBinds &binds, GemmPhase &g) {
  MLIRContext *ctx = b.getContext();
  const GroupedGemmConfig &c = g.cfg;
  int64_t H = c.k;
  g.pullShape = {H,
                 c.pullTopk,
                 c.experts,
                 c.pullRanks,
                 c.pullTokens * c.pullTopk,
                 H / c.pullScaleBlock,
                 c.pullAlign,
                 c.staticM,
                 /*unroll=*/1};
  const config::RolePlan *d = plan.dispatchRole();
  for (int64_t w = 0; w < d->warpEnd - d->warpBegin; ++w) {
    std::string n = std::to_string(w);
    Value slot =
        ws::SmemAllocOp::create(b, loc,
                                ws::SmemType::get(ctx, {H}, b.getI8Type(), 1,
                                                  config::kPullRowAlignment, 0),
                                "pull_row" + n, IntegerAttr());
    g.pullStaging.push_back(slot);
    g.pullPipelines.push_back(ws::PipelineCreateOp::create(
        b, loc, ws::PipelineType::get(ctx, 1), "pull" + n, 1u, 1u,
        ValueRange{slot}, IntegerAttr(), IntegerAttr()));
  }
  // Every row of a unit is counted once; every tile of its m-block waits.
  g.pullTarget = c.pullAlign + binds.missingPullArrivals;
  g.pullWaitsPerUnit = g.tiles.nBlocks;
  g.pullTimeoutCycles = binds.pullTimeoutCycles;
  g.pullShape.wraps = c.poolRing();
}

/// The per-warpgroup epilogue barriers, then the roles.
void buildRoles(OpBuilder &b, Location loc, GemmKernel &k) {
  MLIRContext *ctx = b.getContext();
  for (int64_t wg = 0; wg < k.plan.mathWarpgroups(); ++wg)
    k.epilogueBarriers.push_back(ws::NamedBarrierOp::create(
        b, loc, ws::BarrierType::get(ctx), static_cast<uint32_t>(1 + wg),
        b.getStrArrayAttr({"math" + std::to_string(wg)})));
  // After the epilogue barriers and the split-columns pair barrier's id.
  if (llvm::any_of(k.phases, [](GemmPhase *g) {
        return skipsHalfBlocks(g->cfg) || g->cfg.expertBlocks;
      }))
    k.halfBarrier = ws::NamedBarrierOp::create(
        b, loc, ws::BarrierType::get(ctx),
        static_cast<uint32_t>(2 + k.plan.mathWarpgroups()),
        b.getStrArrayAttr({"math0", "math1"}));
  // After the epilogue, pair, half and math barriers' ids.
  if (k.plan.mmaTurns)
    for (int64_t wg = 0; wg < 2; ++wg)
      k.mmaTurns.push_back(ws::NamedBarrierOp::create(
          b, loc, ws::BarrierType::get(ctx),
          static_cast<uint32_t>(4 + k.plan.mathWarpgroups() + wg),
          b.getStrArrayAttr({"math0", "math1"})));
  auto roles = ws::RolesOp::create(b, loc);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&roles.getBody().emplaceBlock());
  buildProducerRole(b, loc, k);
  for (int64_t wg = 0; wg < k.plan.mathWarpgroups(); ++wg)
    buildMathRole(b, loc, k, wg);
  if (const config::RolePlan *d = k.plan.dispatchRole())
    for (int64_t w = 0; w < d->warpEnd - d->warpBegin; ++w)
      buildDispatchRole(b, loc, k, *k.phases.front(), w);
  // No work: the role only gives its warps the warpgroup's setmaxnreg.
  if (const config::RolePlan *idle = k.plan.idleRole())
    createPlannedRole(b, loc, *idle);
}

} // namespace

void megamoe::buildGroupedGemmKernel(OpBuilder &b, Location loc,
                                     StringRef kernelName,
                                     const GroupedGemmConfig &c,
                                     const GroupedGemmBinds &binds) {
  MLIRContext *ctx = b.getContext();
  config::KernelPlan plan = c.plan();
  SmallVector<KernelParam> params = kernelParams(b, c, binds);
  BoundKernel kernel =
      createBoundKernel(b, loc, kernelName, params, plan.threads,
                        plan.entryRegisters, config::toString(c.chip),
                        kernelGrid(b, c));
  // warpspec-plan-smem checks its layout against the plan's SMEM model.
  kernel.op()->setAttr(ws::kPlannedSmemBytesAttrName,
                       b.getI64IntegerAttr(plan.smemBytes));
  if (plan.clusterM > 1)
    kernel.op().setClusterAttr(b.getDenseI32ArrayAttr(
        {static_cast<int32_t>(plan.clusterM), 1, 1}));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&kernel.op().getBody().front());
  // Parameters by name (which exist depends on the options).
  GemmPhase gemm = bindPhase(c, [&](StringRef name) { return kernel.find(name); });
  gemm.splitN = plan.splitN;
  gemm.computingWarpgroups = plan.mathWarpgroups();
  gemm.phase = phaseOf(ctx, c, plan, plan.splitN);
  gemm.tiles = {numMBlocksAtStart(b, loc, c, kernel.find(kParamNumMBlocks)),
                tilesPerMBlock(c), plan.rasterGroupN, plan.clusterM,
                plan.kSplit, plan.kSplitTiles};
  if (plan.kSplit > 1) {
    // One unit's partial of a tile: 64 rows x the tile's columns (a SwiGLU
    // pair is two column blocks), column block j at j x 64 x its columns.
    int64_t blockColumns = config::columnBlockRows(c.blockN);
    int64_t tileColumns = c.swiglu ? 2 * c.blockN : c.blockN;
    gemm.split.parts = plan.kSplit;
    gemm.split.blockFloats = 64 * blockColumns;
    gemm.split.tileFloats = c.blockM * tileColumns;
    gemm.split.timeoutCycles = binds.splitTimeoutCycles;
  }
  // Shared memory: the mainloop's ring (A, B, A scales) and the output tile.
  GemmKernel k{plan, BlockScaledMainloop::create(
                         b, loc, mainloopConfig(ctx, c, plan))};
  // The output tile (KernelPlan::outTileColumns wide): the epilogue sends
  // a tile's columns through it in turn.
  gemm.dTiles = allocateOutputTile(b, loc, c, plan.outTileColumns);
  if (plan.splitN)
    allocatePairExchange(b, loc, plan, gemm);
  // A layer's L2 GEMM (the combine scatter) stamps L2 phases.
  if (c.combineScatter) {
    gemm.mainloopPhase = ProfilePhase::L2Mainloop;
    gemm.epiloguePhase = ProfilePhase::L2Epilogue;
  }
  if (c.pullRows)
    setUpPull(b, loc, plan, binds, gemm);
  if (binds.profile)
    k.profile = {kernel.find(kParamProfile), *binds.profile};
  k.phases.push_back(&gemm);
  buildRoles(b, loc, k);
  ws::ReturnOp::create(b, loc);
}

void megamoe::buildFusedGemmKernel(OpBuilder &b, Location loc,
                                   StringRef kernelName,
                                   const GroupedGemmConfig &l1,
                                   const GroupedGemmConfig &l2,
                                   const FusedGemmBinds &binds) {
  MLIRContext *ctx = b.getContext();
  // Its L2 tiles wait per m-block for the L1 arrivals; a cluster's pair of
  // m-blocks would meet in the ring at different times.
  if (l1.clusterM != 1 || l2.clusterM != 1) {
    emitError(loc) << kernelName
                   << ": the fused GEMM kernel is not built with a cluster";
    return;
  }
  config::KernelPlan plan = config::planFusedGemmKernel(l1, l2);
  // Parameters: L1's, then L2's under an "l2_" prefix (block_expert and
  // num_m_blocks are shared), then the waits counter.
  SmallVector<KernelParam> params = kernelParams(b, l1, binds.l1);
  for (KernelParam p : kernelParams(b, l2, binds.l2)) {
    if (p.name == kParamBlockExpert || p.name == kParamNumMBlocks)
      continue;
    p.name = std::string(kFusedL2Prefix) + p.name;
    params.push_back(p);
  }
  params.push_back({kParamWaits, binds.waits,
                    moe::globalType(b.getI32Type())});
  if (l1.poolRing())
    params.push_back(
        {kParamRingDone, binds.ringDone, moe::globalType(b.getI32Type())});
  if (binds.profile)
    params.push_back(
        {kParamProfile, kProfileBind, moe::globalType(b.getI64Type())});
  if (binds.frame)
    if (const KernelParam *p =
            moe::appendParams(params, binds.frame->params)) {
      emitError(loc) << kernelName << ": parameter '" << p->name
                     << "' of the layer's stages (bound to '" << p->bind
                     << "') has another binding or type among the GEMMs'";
      return;
    }
  BoundKernel kernel =
      createBoundKernel(b, loc, kernelName, params, plan.threads,
                        plan.entryRegisters, config::toString(l1.chip),
                        persistentGrid(b));
  kernel.op()->setAttr(ws::kPlannedSmemBytesAttrName,
                       b.getI64IntegerAttr(plan.smemBytes));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&kernel.op().getBody().front());
  // The dispatch first: the m-block count and the tables the roles read
  // are what it writes.
  if (binds.frame && binds.frame->prologue)
    binds.frame->prologue(b, kernel, plan.threads);
  GemmPhase first =
      bindPhase(l1, [&](StringRef name) { return kernel.find(name); });
  GemmPhase second = bindPhase(l2, [&](StringRef name) {
    if (name == kParamBlockExpert || name == kParamNumMBlocks)
      return kernel.find(name);
    return kernel.find(std::string(kFusedL2Prefix) + name.str());
  });
  first.splitN = plan.splitN;
  first.computingWarpgroups = plan.mathWarpgroups();
  first.phase = phaseOf(ctx, l1, plan, plan.splitN);
  // L2 tiles are one column block; at BLOCK_M 64 one warpgroup computes them
  // (as the unfused L2 GEMM), the other walks the ring.
  second.computingWarpgroups = l2.blockM / 64;
  second.phase = phaseOf(ctx, l2, plan, /*splitN=*/false);
  // Both walk the m-blocks the layout wrote (pool_info[0]); the L2 tiles of
  // an m-block wait for its L1 pairs' arrivals, one per computing
  // warpgroup and pair; arrivalWaitingWarps producer warps wait per L2
  // tile.
  Value mBlocks =
      numMBlocksAtStart(b, loc, l1, kernel.find(kParamNumMBlocks));
  int64_t pairs = l1.n / l1.blockN / 2;
  first.tiles = {mBlocks, pairs, plan.rasterGroupN};
  second.tiles = {mBlocks, l2.n / l2.blockN, l2.plan().rasterGroupN};
  second.arrivals = first.swiglu.arrivals;
  second.waits = kernel.find(kParamWaits);
  second.arrivalsPerBlock =
      pairs * first.computingWarpgroups + binds.missingArrivals;
  second.waitsPerBlock = arrivalWaitingWarps(plan) * (l2.n / l2.blockN);
  second.timeoutCycles = binds.arrivalTimeoutCycles;
  if (l1.poolRing()) {
    // The dispatch warps wait on what the L2 tiles' computing warpgroups
    // release (docs/FusedSchedule.md, "The dispatch warps and the pool ring").
    first.ringDone = second.ringDone = kernel.find(kParamRingDone);
    first.ringDonePerBlock = second.tiles.nBlocks * second.computingWarpgroups;
  }
  GemmKernel k{plan, BlockScaledMainloop::create(
                         b, loc, mainloopConfig(ctx, l1, plan, l2.k))};
  first.dTiles = allocateOutputTile(b, loc, l1, l1.blockN);
  if (plan.splitN)
    allocatePairExchange(b, loc, plan, first);
  // The dispatch warps pull the L1 pool's rows beside the GEMM roles (the
  // plan's pull regions come before L2's output tile).
  if (l1.pullRows)
    setUpPull(b, loc, plan, binds.l1, first);
  second.dTiles = allocateOutputTile(b, loc, l2, l2.blockN);
  second.mainloopPhase = ProfilePhase::L2Mainloop;
  second.epiloguePhase = ProfilePhase::L2Epilogue;
  if (binds.profile)
    k.profile = {kernel.find(kParamProfile), *binds.profile};
  if (binds.frame) {
    k.kernel = &kernel;
    k.frame = binds.frame;
    // After the epilogue, pair and half barriers' ids.
    SmallVector<std::string> math;
    for (int64_t wg = 0; wg < plan.mathWarpgroups(); ++wg)
      math.push_back(plan.roles[1 + wg].name);
    SmallVector<StringRef> names(math.begin(), math.end());
    k.mathBarrier = ws::NamedBarrierOp::create(
        b, loc, ws::BarrierType::get(ctx),
        static_cast<uint32_t>(3 + plan.mathWarpgroups()),
        b.getStrArrayAttr(names));
  }
  k.phases = {&first, &second};
  if (binds.wave) {
    if (binds.wave->mBlocks <= 0 || binds.wave->lag < 0 || l1.kSplit != 1 ||
        l2.kSplit != 1 || l1.clusterM != 1) {
      emitError(loc) << kernelName
                     << ": a wave order needs wave m-blocks > 0, lag >= 0, "
                        "and no K split or cluster";
      return;
    }
    k.wave = binds.wave;
  }
  buildRoles(b, loc, k);
  ws::ReturnOp::create(b, loc);
}

void megamoe::buildGroupedGemm(ModuleOp module, const GroupedGemmConfig &c) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());

  // The gpu.module: target, and the config symbols the manifest carries.
  auto target = ::megamoe::nvvmTargetForChip(ctx, config::toString(c.chip));
  if (!target) {
    emitError(loc) << "no PTX target for chip '" << config::toString(c.chip)
                   << "'; supported: " << ::megamoe::supportedChips();
    return;
  }
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, "grouped_gemm",
                                            b.getArrayAttr({target}));
  auto sym = [&](StringRef name, int64_t v) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(v));
  };
  gpuModule->setAttr(
      ::megamoe::manifest::kSymbols,
      b.getDictionaryAttr({sym("E", c.experts), sym("N", c.n), sym("K", c.k),
                           sym("MAX_M", c.rowCapacity()),
                           sym("BLOCK_M", c.blockM), sym("BLOCK_N", c.blockN),
                           sym("STAGES", c.plan().stages),
                           sym("OUT_BYTES", c.outBytes()),
                           sym("B_SCALE_INTERLEAVE", c.bScaleInterleave),
                           sym("DEVICE_M_BLOCKS", c.deviceMBlocks ? 1 : 0),
                           sym("STATIC_M", c.staticM)}));
  // Only where they apply (keeps the others' symbols unchanged): the
  // cluster, and the K loop unrolled over the stages (the SASS check of the
  // GPU suite counts the wgmma per math role from it).
  NamedAttrList symbols(
      cast<DictionaryAttr>(gpuModule->getAttr(::megamoe::manifest::kSymbols)));
  if (c.clusterM > 1)
    symbols.set("CLUSTER_M", b.getI64IntegerAttr(c.clusterM));
  if (c.plan().unrollsStages(c.k))
    symbols.set("UNROLL_STAGES", b.getI64IntegerAttr(1));
  // Swap-AB: the SASS check counts its narrower MMAs.
  if (c.swapAB)
    symbols.set("SWAP_AB", b.getI64IntegerAttr(1));
  gpuModule->setAttr(::megamoe::manifest::kSymbols,
                     symbols.getDictionary(ctx));
  if (c.combineScatter) {
    // The combine buffer's shape: only for the scatter (keeps the others'
    // symbols unchanged).
    NamedAttrList symbols(cast<DictionaryAttr>(
        gpuModule->getAttr(::megamoe::manifest::kSymbols)));
    symbols.set("COMBINE_TOKENS", b.getI64IntegerAttr(c.combineTokens));
    symbols.set("COMBINE_TOPK", b.getI64IntegerAttr(c.combineTopk));
    symbols.set("COMBINE_RANKS", b.getI64IntegerAttr(c.combineRanks));
    gpuModule->setAttr(::megamoe::manifest::kSymbols,
                       symbols.getDictionary(ctx));
  }
  // What the launcher supplies: M (the TMA row extents) unless static.
  SmallVector<StringRef> runtime;
  if (c.staticM == 0)
    runtime.push_back("M");
  gpuModule->setAttr(::megamoe::manifest::kRuntimeSymbols,
                     b.getStrArrayAttr(runtime));
  b.setInsertionPointToStart(gpuModule.getBody());
  buildGroupedGemmKernel(b, loc, "grouped_gemm_fp8", c, GroupedGemmBinds());
}
