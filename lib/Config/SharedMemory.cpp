//===- SharedMemory.cpp - the SMEM budget of one kernel variant
//------------===//
//
// The regions follow seeds/004 section 8.1. Tiles are 1024-byte aligned (the
// 128B-swizzle atom), so every fixed region is rounded to 1024 and the scale
// and barrier arrays come after the tiles.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/SmemModel.h"

#include <algorithm>

namespace megamoe::config {

namespace {
int64_t alignUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }
constexpr int64_t kTileAlignment = 1024;
} // namespace

SharedMemoryUsage sharedMemoryUsage(const LayerConfig &c,
                                    const RoleLayout &roles, const Variant &v) {
  SharedMemoryUsage u;
  int64_t dispatchWarps = roles.dispatchWarpEnd - roles.dispatchWarpBegin;
  int64_t mathWarps = 4 * (roles.mathWarpgroupEnd - roles.mathWarpgroupBegin);

  // Dispatch counts tokens per global expert with shared-memory atomics.
  u.expertCounts = alignUp(c.experts * 4, kTileAlignment);
  u.pullBuffers =
      alignUp(dispatchWarps * pullChunkBytes(c.hidden), kTileAlignment);
  // L1 writes BLOCK_M x (N/2) FP8 outputs, double-buffered so the TMA store of
  // one tile overlaps the next epilogue; L2 stages BLOCK_M x N BF16 before the
  // NVLink scatter. They alias (seeds/004 section 6.4).
  int64_t l1Staging = v.blockM * (v.l1BlockN / 2) * 1 * 2;
  int64_t l2Staging = v.blockM * v.l2BlockN * 2;
  u.staging = alignUp(std::max(l1Staging, l2Staging), kTileAlignment);
  // CooperativeN: each warpgroup holds half of a requantization group, so the
  // row amax of both halves meets in SMEM.
  if (v.mathMode == MathMode::CooperativeN) {
    int64_t groups =
        std::max<int64_t>(1, (v.l1BlockN / 2) / c.recipe.requantBlock);
    u.amaxExchange = alignUp(v.blockM * 2 * groups * 4, kTileAlignment);
  }
  u.fixed = u.expertCounts + u.pullBuffers + u.staging + u.amaxExchange;

  // One stage serves both GEMMs: BLOCK_M activation rows, the wider of the
  // two weight tiles, and the activations' scales (per 128 K for L1, per
  // requantization block for L2). Weight scales are read from global memory
  // by the math warpgroups (seeds/004 decision 8), so they take no SMEM.
  u.stageA = v.blockM * v.blockK;
  u.stageB = std::max(v.l1BlockN, v.l2BlockN) * v.blockK;
  int64_t scaleBlock =
      std::min(c.recipe.inputScaleBlock, c.recipe.requantBlock);
  u.stageScales = alignUp(v.blockM * (v.blockK / scaleBlock) * 4, 128);
  u.stageBarriers = kRingBarrierBytesPerStage; // full + empty
  u.perStage = u.stageA + u.stageB + u.stageScales + u.stageBarriers;

  // One pull barrier per dispatch warp; two combine-load barriers per math
  // warp (double-buffered).
  u.otherBarriers = (dispatchWarps + 2 * mathWarps) * kMbarrierBytes;
  // The combine reduce runs after the last L2 tile: each math warp
  // double-buffers one BF16 row chunk of at most 4 KiB in the stage memory.
  u.combineStaging = mathWarps * 2 * pullChunkBytes(2 * c.hidden);

  // Laid out by the one SMEM rule (SmemModel.h): the fixed regions, then the
  // ring (A, B, scales, full/empty barriers; each slot size keeps the next
  // region aligned), then the other barriers; the total rounded to 128 B.
  u.regions = {
      {"expert_counts", u.expertCounts, 1, kTileAlignment},
      {"pull_buffers", u.pullBuffers, 1, kTileAlignment},
      {"staging", u.staging, 1, kTileAlignment},
      {"amax_exchange", u.amaxExchange, 1, kTileAlignment},
      {"stage_a", u.stageA, v.stages, kTileAlignment, /*perStage=*/true},
      {"stage_b", u.stageB, v.stages, kTileAlignment, /*perStage=*/true},
      {"stage_scales", u.stageScales, v.stages, 128, /*perStage=*/true},
      {"stage_barriers", u.stageBarriers, v.stages, kMbarrierBytes,
       /*perStage=*/true},
      {"other_barriers", u.otherBarriers, 1, kMbarrierBytes}};
  u.total = layoutSmem(u.regions, 128);
  return u;
}

int64_t maxStagesThatFit(const LayerConfig &c, const RoleLayout &roles,
                         const Variant &v) {
  Variant probe = v;
  probe.stages = 0;
  SharedMemoryUsage u = sharedMemoryUsage(c, roles, probe);
  int64_t limit = chipLimits(c.chip).smemPerBlock;
  int64_t room = limit - u.total;
  if (room < 0 || u.perStage <= 0)
    return 0;
  int64_t stages = room / u.perStage;
  // Rounding of the total to 128 B may cost the last stage.
  while (stages > 0) {
    probe.stages = stages;
    if (sharedMemoryUsage(c, roles, probe).total <= limit)
      break;
    --stages;
  }
  return stages;
}

} // namespace megamoe::config
