//===- KernelPlan.cpp - the grouped GEMM's kernel plan --------------------===//
#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Config/Heuristics.h"

#include "RangeCheck.h"

#include <algorithm>

namespace megamoe::config {

using detail::cat;

namespace {

int64_t alignUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

/// 128B-swizzled tiles sit on 1 KiB swizzle atoms.
constexpr int64_t kTileAlignment = 1024;

/// The math warpgroups of a tile: one per 64 rows (per two 64-row blocks at
/// BLOCK_M 256), one per column block of a split-columns SwiGLU pair, or
/// swapped one per 64 weight rows.
int64_t tileMathWarpgroups(bool swapAB, bool splitN, int64_t blockM,
                           int64_t blockN, int64_t rowBlocks) {
  if (swapAB)
    return blockN / 64;
  return splitN ? 2 : blockM / (64 * rowBlocks);
}

} // namespace

int64_t KernelPlan::stageBytes() const {
  int64_t bytes = 0;
  for (const SmemRegionPlan &r : smem)
    if (r.perStage)
      bytes += r.bytesPerSlot;
  return bytes;
}

int64_t KernelPlan::fixedBytes() const {
  int64_t bytes = 0;
  for (const SmemRegionPlan &r : smem)
    if (!r.perStage)
      bytes += r.bytes();
  return bytes;
}

int64_t KernelPlan::mathWarpgroups() const {
  return std::count_if(roles.begin(), roles.end(),
                       [](const RolePlan &r) { return r.mma; });
}

const RolePlan &KernelPlan::producerRole() const {
  return *findRole(kTmaRole);
}

const RolePlan *KernelPlan::findRole(const std::string &name) const {
  auto it = std::find_if(roles.begin(), roles.end(),
                         [&](const RolePlan &r) { return r.name == name; });
  return it == roles.end() ? nullptr : &*it;
}

const RolePlan *KernelPlan::dispatchRole() const {
  return findRole(kDispatchRole);
}

const RolePlan *KernelPlan::idleRole() const { return findRole(kIdleRole); }

int64_t KernelPlan::tmemColumns() const {
  if (chipLimits(chip).tmemColumns == 0)
    return 0;
  int64_t warpgroups = 0;
  for (const RolePlan &r : roles)
    if (r.mma)
      warpgroups += (r.warpEnd - r.warpBegin) / 4;
  return warpgroups * blockN;
}

bool KernelPlan::unrollEligible() const {
  // Only sm_90a (unrolled, the sm_100a BLOCK_M 64 kernels spill), and two
  // column blocks per warpgroup (BLOCK_N 256) only with unrollWide: with
  // constant stages every wgmma descriptor word is loop invariant and LLVM
  // hoisted all 48 of them (4 stages x 4 K steps x A, B0, B1) beside the
  // 2 x 64 totals and 64 scratch (320 bytes of spills); the mainloop then
  // rematerializes the K steps (0 spills; 1.06-1.18x faster than rolled,
  // bench/RESULTS.md "unroll-wide on the GPU"). Not with two A-scale groups
  // (per-64 activations: each column block's K block is two MMA rounds):
  // unrolled, the V4-Flash L2 GEMM spilled 160 bytes even with the K steps
  // rematerialized; rolled it has none.
  // Two row blocks (BLOCK_M 256) hold the same registers as two column
  // blocks.
  return unrollStages && chip == Chip::SM90a &&
         (columnBlocks(blockN) * rowBlocks == 1 ||
          (unrollWide && aScaleGroups == 1));
}

bool KernelPlan::unrollsStages(int64_t k, int64_t otherK) const {
  // A K-split unit consumes K / (BLOCK_K kSplit) blocks.
  auto fits = [&](int64_t kk) {
    return (kk / blockK) % kSplit == 0 && (kk / blockK / kSplit) % stages == 0;
  };
  return unrollEligible() && stages > 1 && fits(k) &&
         (otherK == 0 || fits(otherK));
}

namespace {
/// The most stages that fit beside the plan's fixed regions (or the
/// problem's), then every per-stage region sized and the layout placed.
void placeStages(KernelPlan &plan, int64_t requestedStages,
                 int64_t unrollKBlocks = 0) {
  ChipLimits limits = chipLimits(plan.chip);
  if (requestedStages > 0)
    plan.stages = requestedStages;
  else
    plan.stages = std::clamp<int64_t>(
        (limits.smemPerBlock - plan.fixedBytes()) / plan.stageBytes(), 1,
        kGroupedGemmMaxStages);
  if (requestedStages <= 0 && unrollKBlocks > 0)
    plan.stages = unrolledStageCount(plan.stages, unrollKBlocks);
  for (SmemRegionPlan &r : plan.smem)
    if (r.perStage)
      r.slots = plan.stages;
  plan.smemBytes = layoutSmem(plan.smem);
}
} // namespace

KernelPlan planGroupedGemmKernel(const GemmProblem &p) {
  ChipLimits limits = chipLimits(p.chip);
  KernelPlan plan;
  plan.chip = p.chip;
  // One warpgroup of TMA warps, one math warpgroup per 64 rows (wgmma m64);
  // a 64-row SwiGLU tile has one per column block of its pair (splitN).
  plan.splitN = p.swiglu && swigluSplitColumns(p.blockM);
  plan.rowBlocks = warpgroupRowBlocks(p.blockM);
  plan.swapAB = p.swapAB;
  // The mainloop's BLOCK_N: with swigluPairStages a SwiGLU tile's pair is
  // one BLOCK_N 256 pass (two column blocks per stage and warpgroup).
  int64_t blockN = mainloopBlockN(p);
  int64_t mathWarpgroups = tileMathWarpgroups(p.swapAB, plan.splitN, p.blockM,
                                              blockN, plan.rowBlocks);
  plan.threads = 128 * (1 + mathWarpgroups);
  plan.entryRegisters = entryRegisters(p.chip, plan.threads);
  // Warpgroup 0 feeds the ring: four TMA warps (A, A scales, B, the second
  // B block or its arrival), one (GemmProblem::tmaWarps) beside three idle
  // warps, or with pullRows two (A and its scales; B) and two dispatch
  // warps. In `roles` the TMA role comes first, the math warpgroups next
  // (roles[1 + wg]), the dispatch or idle role last.
  // setmaxnreg is warpgroup-wide: with pullRows the dispatch and TMA warps
  // share the producer's target. Not more: the math warpgroups'
  // setmaxnreg.inc takes only what warpgroup 0 released (validateKernelPlan;
  // with 48 the layer hung on the GPU, bench/RESULTS.md 2026-12-02 "The pull
  // in the L1 kernel").
  if (p.pullRows)
    plan.roles.push_back({kTmaRole, 2, 4, limits.producerRegisters, false});
  else
    plan.roles.push_back(
        {kTmaRole, 0, p.tmaWarps, limits.producerRegisters, false});
  for (int64_t wg = 0; wg < mathWarpgroups; ++wg)
    plan.roles.push_back({"math" + std::to_string(wg), 4 + 4 * wg, 8 + 4 * wg,
                          limits.mathRegisters, true});
  if (p.pullRows)
    plan.roles.push_back(
        {kDispatchRole, 0, 2, limits.producerRegisters, false});
  else if (p.tmaWarps < 4)
    plan.roles.push_back(
        {kIdleRole, p.tmaWarps, 4, limits.producerRegisters, false});
  plan.blockM = p.blockM;
  plan.blockN = blockN;
  plan.blockK = kGroupedGemmBlockK;
  plan.releaseLag = p.releaseLag;
  plan.releaseFence = p.releaseFence;
  plan.clusterM = p.clusterM;
  plan.bWeightTiles = p.bWeightTiles;
  plan.scalePrefetch = p.scalePrefetch;
  plan.mmaTurns = p.mmaTurns;
  plan.aScaleGroups = p.aScaleGroups;
  plan.unrollStages = p.unrollStages;
  plan.unrollWide = p.unrollWide;
  plan.kSplit = p.kSplit;
  plan.kSplitTiles = p.kSplitTiles;
  // A SwiGLU tile spans two column blocks: its raster counts pairs.
  plan.rasterGroupN =
      gemmRasterGroupN(p.n, p.k, p.swiglu ? 2 * p.blockN : p.blockN);

  // The pipeline ring: FP8 A and B tiles (1 byte per element) and BLOCK_M A
  // scales, padded to 128 B so that every slot keeps its alignment.
  auto stage = [&](const char *name, int64_t bytes, int64_t alignment) {
    plan.smem.push_back({name, bytes, 0, alignment, /*perStage=*/true});
  };
  auto fixed = [&](const char *name, int64_t bytes, int64_t alignment) {
    plan.smem.push_back({name, bytes, 1, alignment, /*perStage=*/false});
  };
  // B comes in column blocks (one MMA n each, columnBlockRows): the pair's
  // second block for the second warpgroup (splitN), or the second half of a
  // BLOCK_N 256 tile.
  int64_t bBlockRows = columnBlockRows(blockN);
  stage("a_tiles", p.blockM * plan.blockK, kTileAlignment);
  stage("b_tiles", bBlockRows * plan.blockK, kTileAlignment);
  if (plan.splitN || blockN > bBlockRows)
    stage("b_tiles1", bBlockRows * plan.blockK, kTileAlignment);
  // The output tile: 64 x one column block per math warpgroup (a BLOCK_N
  // 256 tile goes through it in turn; with the exact barrier bytes below its
  // 32 KiB leave room for 4 stages of 48.5 KiB). The combine scatter of a
  // BLOCK_N 256 tile keeps half a block: its 4 pieces of 64 columns
  // measured 1.011-1.030x faster layers than 2 pieces of 128 (V4-Flash and
  // V4-Pro, split and unfused, 512-8192 tokens; bench/RESULTS.md
  // 2026-12-01, "Epilogue panel ring"). With SwiGLU the BLOCK_N e4m3
  // activation columns of a column-block pair.
  // Two row blocks per warpgroup (BLOCK_M 256) keep one 128-byte panel:
  // its A tiles make a stage 49 KiB, and 4 stages leave 31 KiB, less than a
  // 2-panel tile's 32 KiB. A second slot would cost a stage; it would save
  // only waits inside the epilogue, while the ring hides every load.
  // The whole BLOCK_N (outTileColumns override) costs a stage at BLOCK_N
  // 256: 0.86-0.91x of the panel ring (one H100, bench/RESULTS.md
  // 2026-12-07), so the plan keeps the ring.
  // Swapped: each warpgroup's 64 output columns of all BLOCK_M rows (one
  // 128-byte panel per row: the transposed accumulator), a slot each.
  if (p.outTileColumns > 0)
    plan.outTileColumns = p.outTileColumns;
  else if (plan.rowBlocks > 1 || p.swapAB)
    plan.outTileColumns = kOutputPanelBytes / p.outBytes();
  else
    plan.outTileColumns = p.combineScatter && p.blockN > bBlockRows
                              ? bBlockRows / 2
                              : bBlockRows;
  // Rows of a warpgroup's part of the output tile: 64, swapped BLOCK_M.
  int64_t outRows = p.swapAB ? p.blockM : 64;
  fixed("d_tiles",
        p.swiglu ? p.blockM * p.blockN
                 : mathWarpgroups * outRows * plan.outTileColumns *
                       p.outBytes(),
        kTileAlignment);
  if (plan.splitN) // the two warpgroups' per-row amaxes
    fixed("row_exchange", 2 * 64 * 4, 16);
  stage("a_scales", alignUp(p.blockM * p.aScaleGroups * 4, 128), 128);
  // The ring's full/empty mbarriers and, on a chip with tensor memory, the
  // TMEM state: the bytes warpspec-plan-smem lays out (no slack: the
  // dynamic SMEM symbol is declared 1024-byte aligned, and the layout check
  // of warpspec-plan-smem holds the builder to this reservation).
  stage("ring_barriers", kRingBarrierBytesPerStage, kMbarrierBytes);
  if (limits.tmemColumns > 0)
    fixed("tmem_state", tmemStateBytes(mathWarpgroups), kMbarrierBytes);
  // pullRows: each dispatch warp moves a row through an SMEM slot of its
  // own (bulk copies, no registers), with a one-stage pipeline's barriers.
  if (const RolePlan *d = plan.dispatchRole()) {
    int64_t warps = d->warpEnd - d->warpBegin;
    for (int64_t w = 0; w < warps; ++w)
      fixed("pull_row", alignUp(p.k, kPullRowAlignment), kPullRowAlignment);
    fixed("pull_barriers", warps * kRingBarrierBytesPerStage, kMbarrierBytes);
  }

  // The standalone TMA-store GEMM of one column block per warpgroup takes a
  // stage count its K blocks are a multiple of, so that the math warps' K
  // loop unrolls over the stages (BlockScaledMainloop, unrollStages).
  bool unrollable = plan.unrollEligible() && !p.swiglu && !p.combineScatter &&
                    p.blockN == bBlockRows;
  placeStages(plan, p.stages, unrollable ? p.k / plan.blockK : 0);
  return plan;
}

KernelPlan planFusedGemmKernel(const GemmProblem &l1, const GemmProblem &l2) {
  // One ring for both GEMMs, planned as L1's with A-scale slots of the
  // larger of their groups per row and K block (per-64 activations: L2
  // reads two, L1 one, which fills and reads the first row of each slot).
  GemmProblem ring = l1;
  ring.aScaleGroups = std::max(l1.aScaleGroups, l2.aScaleGroups);
  KernelPlan plan = planGroupedGemmKernel(ring);
  // L2's BLOCK_M x BLOCK_N BF16 output tile (its combine scatter reads it).
  plan.smem.push_back({"l2_d_tiles", l2.blockM * l2.blockN * l2.outBytes(),
                       1, kTileAlignment, /*perStage=*/false});
  placeStages(plan, l1.stages);
  return plan;
}

std::vector<std::string> validateKernelPlan(const KernelPlan &plan) {
  std::vector<std::string> errors;
  ChipLimits limits = chipLimits(plan.chip);
  if (plan.smemBytes > limits.smemPerBlock)
    errors.push_back(cat(plan.stages, " stages of ", plan.stageBytes(),
                         " B plus ", plan.fixedBytes(), " B need ",
                         plan.smemBytes, " B of shared memory, more than the ",
                         limits.smemPerBlock, " B an ", toString(plan.chip),
                         " block can have"));
  if (plan.stages < 2)
    errors.push_back("fewer than 2 pipeline stages fit in shared memory");
  if (plan.threads * plan.entryRegisters > limits.registersPerSM)
    errors.push_back(cat("launch needs ", plan.threads, " threads x ",
                         plan.entryRegisters, " registers, more than the ",
                         limits.registersPerSM, " of an SM"));
  // Role layout: MMA roles are whole warpgroups (setmaxnreg; on sm_100a
  // also the TMEM lane quarter of warp w is w % 4), one per 64 rows.
  int64_t mmaWarpgroups = 0;
  for (const RolePlan &r : plan.roles) {
    if (!r.mma)
      continue;
    if (r.warpBegin % 4 != 0 || r.warpEnd % 4 != 0 || r.warpEnd <= r.warpBegin)
      errors.push_back(cat("role '", r.name, "' issues MMAs on warps [",
                           r.warpBegin, ", ", r.warpEnd,
                           "), which is not whole warpgroups"));
    else
      mmaWarpgroups += (r.warpEnd - r.warpBegin) / 4;
  }
  // With split columns (splitN) two warpgroups share the 64 rows.
  int64_t wantWarpgroups =
      tileMathWarpgroups(plan.swapAB, plan.splitN, plan.blockM, plan.blockN,
                         plan.rowBlocks);
  if (plan.splitN && plan.blockM != 64)
    errors.push_back(cat("split columns (two warpgroups on one 64-row tile) "
                         "need BLOCK_M 64, got ",
                         plan.blockM));
  else if (mmaWarpgroups != wantWarpgroups)
    errors.push_back(cat("BLOCK_M ", plan.blockM, " needs ", wantWarpgroups,
                         plan.swapAB ? " MMA warpgroups (swapped: one per "
                                       "64 weight rows)"
                         : plan.splitN ? " MMA warpgroups (one per column block)"
                         : plan.rowBlocks > 1
                             ? " MMA warpgroups (one per two 64-row blocks)"
                             : " MMA warpgroups (one per 64 rows)",
                         ", the plan has ", mmaWarpgroups));
  // sm_100a: the partials must fit the CTA's TMEM (allocated as a power of
  // two of at least 32 columns).
  if (int64_t columns = plan.tmemColumns()) {
    int64_t allocated = 32;
    while (allocated < columns)
      allocated *= 2;
    if (allocated > limits.tmemColumns)
      errors.push_back(cat(mmaWarpgroups, " MMA warpgroups x BLOCK_N ",
                           plan.blockN, " = ", columns,
                           " TMEM columns, more than the ", limits.tmemColumns,
                           " of an ", toString(plan.chip), " CTA"));
  }
  int64_t sum = 0;
  for (const RolePlan &r : plan.roles) {
    if (r.registers == 0)
      errors.push_back(cat("role '", r.name,
                           "' has no register target: ", toString(plan.chip),
                           " has no warp-specialized kernel plan yet"));
    else if (r.registers < 24 || r.registers > 256 || r.registers % 8 != 0)
      errors.push_back(cat("role '", r.name, "' has a register target of ",
                           r.registers,
                           "; setmaxnreg needs a multiple of 8 in [24, 256]"));
    sum += 32 * (r.warpEnd - r.warpBegin) * r.registers;
  }
  if (sum > limits.registersPerSM)
    errors.push_back(cat("the roles' register targets need ", sum,
                         " registers, more than the ", limits.registersPerSM,
                         " of an SM"));
  // setmaxnreg.inc draws on the registers the CTA's warps gave back with
  // setmaxnreg.dec, not on the SM's unallocated ones: an increase the
  // decreases do not cover blocks forever.
  int64_t released = 0, wanted = 0;
  for (const RolePlan &r : plan.roles) {
    int64_t threads = 32 * (r.warpEnd - r.warpBegin);
    if (r.registers > 0 && r.registers < plan.entryRegisters)
      released += threads * (plan.entryRegisters - r.registers);
    else if (r.registers > plan.entryRegisters)
      wanted += threads * (r.registers - plan.entryRegisters);
  }
  if (wanted > released)
    errors.push_back(cat("the roles' setmaxnreg increases need ", wanted,
                         " registers above the entry's ", plan.entryRegisters,
                         " per thread, but the decreases release only ",
                         released,
                         " (setmaxnreg.inc takes only released registers)"));
  return errors;
}

} // namespace megamoe::config
