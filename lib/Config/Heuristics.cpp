//===- Heuristics.cpp - the choices behind a plan, with their reasons -----===//
//
// Starting points from the SM90 design doc (seeds/004 sections 4, 8, 13) and
// DeepGEMM's heuristics (notes/DEEPGEMM_MEGAMOE.md 3.4-3.5). None of these
// numbers is measured on this project's kernel yet; every one is overridable
// by a megamoe-plan option so that measurements can replace them.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/KernelPlan.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace megamoe::config {

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t alignUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }
} // namespace

double expectedTokensPerExpert(const LayerConfig &c, int64_t tokensPerRank) {
  if (c.experts <= 0)
    return 0;
  return double(tokensPerRank) * double(c.ranks) * double(c.topk) /
         double(c.experts);
}

std::vector<BlockMBucket> blockMBuckets(int64_t requantBlock) {
  constexpr double kUnbounded = std::numeric_limits<double>::infinity();
  if (requantBlock == 64) {
    // The SM90 design doc's three buckets (seeds/004 section 13.1), whose
    // 64-column tiles hold whole per-64 requantization groups:
    return {
        // <= 16 tokens/expert (+0.5 for rounding of the balanced estimate):
        // one m64 wgmma with half its rows idle still beats padding every
        // expert's pool segment to 64 rows (RL long tail, very large EP).
        {16.5, 32, MathMode::Single},
        // <= 64: one warpgroup covers the whole block; the second would have
        // no rows of its own.
        {64.5, 64, MathMode::Single},
        // Prefill / large-EP decode: two warpgroups split 128 rows and share
        // each weight tile, halving weight SMEM traffic per FLOP.
        {kUnbounded, 128, MathMode::CooperativeM},
    };
  }
  // Per-128 requantization needs 128 output channels = 256 gate/up-interleaved
  // L1 columns in one tile. A 64x256 FP32 tile held twice (accumulator +
  // promotion) is 256 registers per thread, so the two math warpgroups split
  // N (m64n128 each, DeepGEMM #360) and exchange row amax through SMEM. That
  // caps BLOCK_M at 64: a 128x256 tile would not fit 2 x 224 x 128 registers.
  return {
      // Same reason as above: small experts keep their pool segments short.
      {16.5, 32, MathMode::CooperativeN},
      // Everything larger: the 64x256 tile has the MMA area of 128x128.
      {kUnbounded, 64, MathMode::CooperativeN},
  };
}

int64_t maxTokensForExpected(const LayerConfig &c, double maxExpectedTokens) {
  if (std::isinf(maxExpectedTokens) || c.ranks * c.topk <= 0)
    return c.maxTokensPerRank;
  // t * R * K / E <= x  <=>  t <= x * E / (R * K)
  double bound = std::floor(maxExpectedTokens * double(c.experts) /
                            double(c.ranks * c.topk));
  return std::min<int64_t>(c.maxTokensPerRank, int64_t(bound));
}

MathMode defaultMathMode(int64_t blockM, int64_t requantBlock) {
  for (const BlockMBucket &b : blockMBuckets(requantBlock))
    if (b.blockM == blockM)
      return b.mathMode;
  // BLOCK_M outside the buckets (an override): two warpgroups need 128 rows
  // to split M.
  return blockM >= 128 ? MathMode::CooperativeM : MathMode::Single;
}

int64_t defaultL1BlockN(int64_t requantBlock) {
  // Gate and up rows are interleaved (granularity 8) by the weight transform,
  // so N weight rows yield N/2 outputs: a tile of 2 x requantBlock rows holds
  // exactly one requantization group and its amax never leaves the CTA.
  return 2 * requantBlock;
}

int64_t defaultL2BlockN(const LayerConfig &c, MathMode mode) {
  // Each warpgroup runs m64n128 (64 accumulator + 64 promotion registers per
  // thread), the widest tile that fits the 224-register budget. The stage
  // kernels also build BLOCK_N 256 (two column blocks per warpgroup, the
  // grouped GEMM's 1.01-1.23x tile) as an override (l1-block-n / l2-block-n:
  // lit and ptxas only; it has not run in a layer on the GPU yet, so it is
  // not the default).
  if (mode == MathMode::CooperativeN)
    return c.hidden % 256 == 0 ? 256 : 128;
  return 128;
}

Schedule fastestBuiltSchedule(const LayerConfig &c, int64_t blockM) {
  // Measured on one H200 at EP1, V4-Flash and V4-Pro (bench/RESULTS.md
  // 2026-12-01): split against unfused, interleaved call by call, 0.942 /
  // 0.949 / 0.934 / 0.922 / 0.918 / 0.929 of the time at 1 / 8 / 128 / 512 /
  // 2048 / 8192 tokens (V4-Flash) and 0.947 / 0.972 / 0.953 / 0.959 / 0.948
  // / 0.970 (V4-Pro); fused-gemm against unfused 0.92-1.01 at 1-2048 and
  // 1.09 / 1.13 at 8192 (fast math), and V4-Flash at 8192 host-timed split
  // 4971 us against fused-gemm 5617 us. The whole layer as one kernel
  // (megamoe-expand one-kernel on a fused-gemm plan, 2026-12-03 "One
  // kernel"): 1.01-1.04x fused-gemm's time and 1.00-1.30x split's at 1-8192
  // tokens (V4-Flash; V4-Pro 1.00-1.30x split's). So split then, at every
  // token count and both BLOCK_M variants. No other chip has been measured:
  // there the unfused schedule, the bitwise reference.
  //
  // Since the fused-gemm kernel's wave order (W 4, lag 1 at BLOCK_M 64,
  // fusedGemmWaveOrder), fused-gemm against split, interleaved call by
  // call, GPU-timed, y bitwise equal (bench/RESULTS.md 2026-12-07,
  // "fused-gemm with the wave order against split"; one H100): plans whose
  // only variant is BLOCK_M 64 (V4-Flash max 2048 tokens, V4-Pro max 4096,
  // fast math) 1.005 / 0.977 / 1.003 / 1.001 / 1.013 of split's time at 1 /
  // 8 / 128 / 512 / 2048 tokens (V4-Flash) and 0.950 / 0.997 / 0.969 /
  // 0.967 / 0.975 / 0.928 at 1 / 8 / 128 / 512 / 2048 / 4096 (V4-Pro); with
  // a BLOCK_M 128 variant (max 8192), 1.145 (V4-Flash) and 1.184 (V4-Pro)
  // at 8192, where the BLOCK_M 128 kernel keeps the phase order. So
  // fused-gemm for a BLOCK_M 64 variant, split for a BLOCK_M 128 one (a
  // plan for 8192 tokens runs both: Variant::schedule).
  //
  // The BLOCK_M 128 fused-gemm kernel with the wave order (W 4, lag 1; no
  // spills since its router weights are read after the mainloop) against
  // split's default there (V4-Pro: l1-pair-stages), fast math, two calls on
  // one H100, interleaved, y bitwise equal (bench/RESULTS.md 2026-12-07,
  // "The no-spill pair stages, ..." pair c and "fused-gemm's BLOCK_M 128
  // wave order against split, the second call"): V4-Pro 0.913 / 0.957 and
  // 0.970 / 0.907 / 0.935 at (2048 /) 4096 / 8192 tokens; V4-Flash 0.988 /
  // 1.062 and 1.001 / 0.987 / 1.058. So fused-gemm at BLOCK_M 128 where H
  // is above V4-Flash's 4096 with fast math (the measured case), split
  // elsewhere.
  //
  // Since the split schedule's L1 kernel in clusters of 2 (stageL1Cluster)
  // and its L2 GEMM in expert blocks (stageL2ExpertBlocks), both only at
  // BLOCK_M 128 of the split schedule: split with both against split
  // without, interleaved call by call, GPU-timed, y bitwise equal (one H100,
  // fast math, bench/RESULTS.md 2026-12-07 "The split L1 kernel in clusters
  // of 2"), V4-Pro 0.847 at 8192 tokens where fused-gemm (the BLOCK_M 128
  // wave order) was 0.951 in the same call, V4-Flash 0.947 against 0.995.
  // So split at BLOCK_M 128 where the m-blocks share weights
  // (sharedWeightsMinTokens). Below it too, though
  // fused-gemm's wave order measured 0.968 of split's time there (V4-Pro
  // 6144 tokens): a plan with a fused-gemm BLOCK_M 128 variant beside the
  // shared split one gave a wrong y (rel. L2 1.41, one H100,
  // bench/RESULTS.md 2026-12-07 "The three-variant plans"), a build bug
  // since fixed (each layer GEMM built for its own variant, 5b55c0f) but
  // not re-run on a GPU: that mix waits for its bitwise check.
  if (c.chip != Chip::SM90a)
    return Schedule::Unfused;
  if (blockM == 64)
    return Schedule::FusedGemm;
  return Schedule::Split;
}

int64_t stageL1BlockN(const LayerConfig &c, Schedule schedule) {
  // The unfused L1 GEMM (f32 out, gate/up scales) in 128 x 256 tiles: the
  // unfused layer with BLOCK_N 256 on both GEMMs against 128 on both, one
  // H200, same call, interleaved (bench/RESULTS.md 2026-12-01, "BLOCK_N 256
  // in the layer"): V4-Flash 512 / 2048 / 8192 tokens 1.001 / 0.996 / 0.972
  // of the time, V4-Pro 0.926 / 0.925 / 0.970; y bitwise equal. The SwiGLU
  // epilogue (split, fused-gemm) has no BLOCK_N 256 form.
  if (schedule == Schedule::Unfused && c.chip == Chip::SM90a &&
      (2 * c.intermediate) % 256 == 0)
    return 256;
  return 128;
}

int64_t stageL2BlockN(const LayerConfig &c, Schedule schedule) {
  // The L2 GEMM (combine-scatter epilogue) in 128 x 256 tiles: the split
  // layer with L2 BLOCK_N 256 against 128, same run as above: V4-Flash 512 /
  // 2048 / 8192 tokens 0.981 / 0.984 / 0.978 of the time, V4-Pro 0.998 /
  // 0.997 / 0.987; y bitwise equal. The fused-gemm kernel's L2 tiles share
  // the L1 ring (128).
  if (schedule != Schedule::FusedGemm && schedule != Schedule::Fused &&
      c.chip == Chip::SM90a && c.hidden % 256 == 0)
    return 256;
  return 128;
}

int64_t stageExpertAlign(const LayerConfig &c, Schedule schedule,
                         int64_t blockM) {
  // A 128-row variant pads each expert's rows to 128 (V4-Flash at 8192
  // tokens/rank: 49152 rows in 65536 pool rows, V4-Pro 49152 in 73728);
  // padded to 64 instead, an expert's last m-block is a 64-row half block
  // when its rows fit; in the L2 GEMM one math warpgroup computes it while
  // the other skips its stages (docs/UnfusedSchedule.md, "Half blocks"). The split
  // schedule takes it on sm_90a (the unfused schedule, the bitwise
  // reference, keeps 128; the fused GEMM kernel's arrivals count two
  // warpgroups per tile). Measured, split with half blocks against split
  // with 128-row segments, one H200, interleaved, two passes (bench/
  // RESULTS.md 2026-12-02, "Half blocks", run 4): V4-Flash (fast-math)
  // 8192 tokens 0.981 / 0.980 of the time, 4096 1.000 / 1.012; V4-Pro 8192
  // 1.012 / 0.995, 4096 0.989 / 1.010 (512 and 2048 run the BLOCK_M 64
  // variant); y bitwise equal to unfused on every scenario. Only the L2 GEMM
  // skips a half block's rows (the L1 kernels with one warpgroup on it were
  // slower, run 3): kept for V4-Flash's 2% and the padding rows it takes out
  // of the pull and the L2 GEMM.
  if (blockM == 128 && schedule == Schedule::Split && c.chip == Chip::SM90a)
    return kHalfBlockRows;
  return blockM;
}

bool stageL1Pull(const LayerConfig &, Schedule, const Variant &) {
  // Off: measured slower than moe_pull before the L1 kernel at every size
  // but one (bench/RESULTS.md 2026-12-02, "The pull in the L1 kernel"; V4-
  // Flash 0.995-1.042, V4-Pro 1.005-1.090 at 1-8192 tokens, launches
  // hidden) with the copy through registers, and again with each row moved
  // through SMEM by bulk copies (bench/RESULTS.md 2026-12-02, "... through
  // SMEM by bulk copies": V4-Flash 0.956-1.041, V4-Pro 0.992-1.079): the
  // first m-blocks' tiles wait for their rows, and at 8192 tokens the copy
  // competes with the GEMM for memory bandwidth. megamoe-plan="l1-pull=true"
  // asks for it (docs/SplitSchedule.md, "The pull in the L1 kernel").
  return false;
}

bool l1PairStagesApply(const LayerConfig &c, Schedule schedule,
                       const Variant &v) {
  return schedule == Schedule::Split && c.chip == Chip::SM90a &&
         v.blockM == 128 && v.l1BlockN == 128 && v.kSplit == 1 &&
         splitFusesActivation(c, v);
}

bool stageL1PairStages(const LayerConfig &c, Schedule schedule,
                       const Variant &v) {
  // Measured on one H100, EP1, split layers with and without the pair as
  // one pass, interleaved, y bitwise equal (bench/RESULTS.md 2026-12-07,
  // "l1-pair-stages"), time with / without at 4096 / 6144 / 8192 tokens:
  // V4-Pro (H 7168) 0.992 / 0.874 / 0.851-0.880 in three calls; V4-Flash
  // (H 4096) 0.996-1.017 / 1.050 / 0.993-1.026 (level to 5% slower; its
  // kernel spills 112 bytes as V4-Pro's does). On where it was measured
  // faster: hidden sizes above V4-Flash's 4096 (only 4096 and 7168 were
  // measured); megamoe-plan l1-pair-stages=true|false overrides.
  return l1PairStagesApply(c, schedule, v) && c.hidden > 4096;
}

bool l1ClusterApply(const LayerConfig &c, Schedule schedule,
                    const Variant &v) {
  return schedule == Schedule::Split && c.chip == Chip::SM90a &&
         v.blockM == 128 && v.halfBlocks() && v.kSplit == 1 && !v.l1Pull;
}
bool stageL1Cluster(const LayerConfig &c, Schedule schedule,
                    const Variant &v) {
  // Where it applies. Why: at EP1 with 8192 tokens V4-Pro's split L1 kernel
  // (pair stages) read 29 GB from DRAM for 16.9 GB of weights: an expert's
  // ~1.5 m-blocks read its weights separately, and a tile order that keeps
  // them close did not share them through L2 (the CTAs drift apart in
  // time); a cluster's multicast shares them by construction. Measured (one
  // H100, EP1, fast math, bench/RESULTS.md 2026-12-07 "The split L1 kernel
  // in clusters of 2"; y bitwise equal to unfused on every scenario, EP1,
  // one-GPU EP2 and EP4, V4-Flash and V4-Pro): Nsight at V4-Pro 8192 tokens
  // 29.11 -> 21.62 GB read, 9.73 -> 7.55 ms; the layer 0.865 (V4-Pro) and
  // 0.962 (V4-Flash) of split's time at 8192 tokens, 0.999-1.001 at 512 and
  // 2048 (their BLOCK_M 64 variant: no cluster). megamoe-plan
  // l1-cluster=false turns it off.
  return l1ClusterApply(c, schedule, v);
}
bool l2ExpertBlocksApply(const LayerConfig &c, Schedule schedule,
                         const Variant &v) {
  // Per-64 activations (two A scales per K block) are not built with them.
  return schedule == Schedule::Split && c.chip == Chip::SM90a &&
         v.blockM == 128 && v.halfBlocks() && v.kSplit == 1 &&
         c.recipe.requantBlock == 128;
}

bool stageL2ExpertBlocks(const LayerConfig &c, Schedule schedule,
                         const Variant &v) {
  // Where it applies. Why: at EP1 with 8192 tokens V4-Pro's split L2 GEMM
  // read 12.8 GB from DRAM for 8.45 GB of weights: an expert's ~170 rows
  // are two m-blocks whose tiles read its weights twice. Measured (one
  // H100, EP1, fast math, bench/RESULTS.md 2026-12-07 "The split L1 kernel
  // in clusters of 2"; y bitwise equal to unfused on every scenario): Nsight
  // at V4-Pro 8192 tokens 13.00 -> 8.79 GB read, 4.65 -> 3.74 ms; the layer
  // 0.948 (V4-Pro) and 0.982 (V4-Flash) of split's time at 8192 tokens, and
  // with l1-cluster 0.847 / 0.947 against l1-cluster alone's 0.865 / 0.962.
  // megamoe-plan l2-expert-blocks=false turns it off.
  return l2ExpertBlocksApply(c, schedule, v);
}

bool stageL1WeightTiles(const LayerConfig &) {
  // Off until measured in the layer (megamoe-plan l1-weight-tiles=true asks
  // for it): a plain read kernel streamed the tiled layout 7% faster than
  // the grouped GEMM's row-major access order (bench/RESULTS.md 2026-12-03,
  // "Weight prefetch", the read-kernel paragraph).
  return false;
}

std::pair<int64_t, int64_t>
fusedGemmWaveOrder(const LayerConfig &c, Schedule schedule, const Variant &v) {
  // Measured on one H100 (bench/RESULTS.md 2026-12-07, "Wave order"),
  // V4-Flash EP1, clamp 10, compare_cubins interleaved call by call, against
  // the phase order (every L1 tile, then every L2 tile) of the same kernel:
  //   BLOCK_M 64 only, waves of 4 m-blocks, lag 1: 0.959 / 0.937 / 0.964 /
  //   0.761 of its time at 8 / 512 / 2048 / 8192 tokens (8 m-blocks: 0.965
  //   / 0.957 / 0.974 / 0.800). At 2048 / 8192 tokens, against W 8 lag 1:
  //   W 4 0.981 / 0.923, W 2 0.996 / 1.019, W 16 1.032 / 1.059, lag 0
  //   1.046 / 0.945, lag 2 1.019 / 1.035; against W 4 lag 1 (another call):
  //   W 3 1.103 / 1.294, W 6 0.997 / 1.060, lag 0 1.274 / 1.461 (an L2
  //   tile then waits for L1 tiles still running). The time is sensitive to
  //   where the L2 waits fall; W 4 lag 1 was the best point seen.
  // BLOCK_M 128 keeps the phase order: its math warpgroups spill with the
  // wave loop's mapping (docs/FusedSchedule.md, "Wave order"), and the
  // planner's V4-Flash variants at 8192 tokens (BLOCK_M 128) measured 1.021
  // with W 4 and 0.965 with W 8, V4-Pro's 0.893 with W 4.
  if (schedule == Schedule::FusedGemm && v.blockM == 64 && v.kSplit == 1)
    return {4, 1};
  // BLOCK_M 128 above H 4096 with fast math (V4-Pro, no spills since
  // e6cb89b): W 4, lag 1, 0.907-0.970 of split's time at 2048-8192 tokens
  // in two calls (fastestBuiltSchedule says where; V4-Flash's H 4096 was
  // level to 1.06 slower, so the phase order stays there, and without fast
  // math, not measured).
  if (schedule == Schedule::FusedGemm && v.blockM == 128 && v.kSplit == 1 &&
      c.hidden > 4096 && c.fastMath)
    return {4, 1};
  // With l1-pull the pool is a ring (stagePoolTokens), which needs a wave
  // order at every BLOCK_M: W 4, lag 1 there too. Measured with the ring
  // (one H100, EP1, bench/RESULTS.md 2026-12-07, "fused-gemm with its
  // dispatch warps pulling the rows into a pool ring"): 0.94-1.06x the
  // time of fused-gemm with moe_pull and the worst-case pool, 0.97-1.00x
  // split at 128-2048 tokens, 1.08-1.16x at 8192; so l1-pull stays off.
  if (schedule == Schedule::FusedGemm && v.kSplit == 1 && v.l1Pull)
    return {4, 1};
  return {0, 1};
}

int64_t stageKSplit(const LayerConfig &c, Schedule schedule,
                    const Variant &v) {
  // Not yet measured on the GPU: off until it is (megamoe-plan k-split=N
  // asks for it).
  (void)c;
  (void)schedule;
  (void)v;
  return 1;
}

int64_t kSplitTiles(int64_t numSMs, int64_t kSplit) {
  return kSplit > 1 ? (kSplit - 1) * numSMs / kSplit : 0;
}

int64_t defaultNumSMs(Chip chip) {
  // The persistent grid is one CTA per SM and synchronizes in software, so it
  // must never exceed the SMs that are resident (H200/H100 SXM: 132).
  return chip == Chip::SM100a ? 148 : 132;
}

RegisterBudget defaultRegisters() {
  // seeds/004 section 4.2: 48 for WG0 (dispatch and TMA warps share a
  // warpgroup and setmaxnreg is warpgroup-wide; DeepGEMM SM100 gives its
  // dispatch warps 48), 224 for each math warpgroup (PR #360 ran 224 without
  // spills): 48*128 + 224*256 = 63,488 of 65,536. The idle warpgroup of Single
  // mode gives its registers back (24 is setmaxnreg's minimum).
  return RegisterBudget{48, 224, 24};
}

int64_t entryRegisters(Chip chip, int64_t threads) {
  // One CTA per SM: the SM's registers / threads (65,536 / 384 = 170 on
  // sm_90a), at most the per-thread maximum, in setmaxnreg's units of 8.
  if (threads <= 0)
    return 0;
  ChipLimits limits = chipLimits(chip);
  return std::min(limits.maxRegistersPerThread,
                  limits.registersPerSM / threads) /
         8 * 8;
}

int64_t mathRegistersNeeded(int64_t warpgroupN) {
  // m64nN FP32 accumulator: 64*N/128 = N/2 registers per thread; the promoted
  // sum (per-128-K scales applied on CUDA cores) needs as many again. The
  // working set (descriptors, scales, barrier phases, epilogue temporaries) is
  // an estimate until ptxas -v reports the generated kernel.
  return warpgroupN + kMathWorkingRegisters;
}

int64_t pullChunkBytes(int64_t hidden) {
  // DeepGEMM's chunking (3584 B for H=7168, 4096 B for H=4096): halve the row
  // until a chunk fits the dispatch warp's 4 KiB SMEM slot.
  int64_t chunk = hidden;
  while (chunk > 4096 && chunk % 2 == 0)
    chunk /= 2;
  return chunk;
}

int64_t gemmRasterGroupN(int64_t n, int64_t k, int64_t blockN) {
  // When one expert's weights (N * K bytes) take more than about half of the
  // H200's 50 MB L2, the m-major order (one group of all N blocks) streams
  // them from HBM again every wave, so groups of 8 (or 4, 2) N blocks are
  // used; below that m-major measured faster (grouped GEMM at 8 x 4096 rows:
  // K=2048..4096 shapes lost about 4% with groups of 8, N=4096 K=7168
  // gained 7%).
  // A group that does not divide the N blocks leaves a narrower last raster
  // (warpspec.tile_loop); before the tile loop had one, groups were the
  // largest of 8, 4, 2 dividing them, which put BLOCK_N 192's 22 and 38
  // blocks (N 4096, 7168) in rasters of 2 (bench/RESULTS.md 2026-12-02,
  // "BLOCK_N 192 with partial N tiles").
  if (blockN <= 0)
    return 1;
  int64_t nBlocks = nTiles(n, blockN);
  if (n * k <= (int64_t(24) << 20))
    return nBlocks;
  return std::min<int64_t>(8, nBlocks);
}

GroupedGemmRows groupedGemmRows(Chip chip, int64_t rowsPerExpert) {
  // Swap-AB against BLOCK_M 64 on the same rows, one H100 run, 8 experts,
  // N x K 4096x7168, 7168x2048, 4096x4096, 4096x2048 (bench/RESULTS.md
  // 2026-12-07, "Swap-AB at decode"), outputs bitwise equal: at 1, 8 and 16
  // rows per expert BLOCK_M 16 1.06-1.09x and 32 1.04-1.06x; at 32 rows 32
  // 1.04-1.05x, 16 0.83-0.95x; at 64 rows both slower (0.80-0.90x,
  // 0.60-0.65x). Above that BLOCK_M 128 (the standalone default).
  if (chip == Chip::SM90a && rowsPerExpert > 0 && rowsPerExpert <= 32)
    return {rowsPerExpert <= 16 ? 16 : 32, true};
  return {};
}

int64_t groupedGemmBlockN(Chip chip, int64_t blockM, int64_t n, bool swiglu,
                          bool combineScatter) {
  // A 128 x 256 tile moves A 16 KiB + B 32 KiB from L2 into SMEM per 8.4
  // MFLOP (25% less per FLOP than 128 x 128). Measured, one H200 run, two
  // passes, 8 experts x {4096, 512} rows, N x K = 4096x7168, 7168x2048,
  // 4096x4096, 4096x2048 (bench/RESULTS.md 2026-12-01): BLOCK_N 256 over
  // 128 at BLOCK_M 128 1.01-1.10x (pass 1) and 1.01-1.23x (pass 2), at
  // BLOCK_M 64 1.00-1.15x; outputs bitwise equal. (With 3 stages instead of
  // 4 it was 0.99-1.07x at BLOCK_M 128.) BLOCK_N 192 (one m64n192 MMA,
  // an option) is not chosen: 1.02-1.04x over the 128 x 256 cluster-2
  // default at N 6144 (8 x 4096 rows), but with partial last tiles at N
  // 4096 / 7168 0.90-1.06x (bench/RESULTS.md 2026-12-02, "BLOCK_N 192");
  // with the narrower last raster, c2 pf against the default c2 pf at 8 x
  // 4096 0.97-1.06x and 0.93-1.00x in two passes, at 8 x 512 0.85-0.89x (one
  // H100, bench/RESULTS.md 2026-12-07). BLOCK_M 256 (block-m=256, an
  // option the plan does not pick) is built with BLOCK_N 128 only (two row
  // blocks per warpgroup hold the registers two column blocks would); it
  // measured 0.95-1.03x of the 128 x 256 c2 pf default at 8 x 4096 (same
  // run), bitwise equal.
  // Swap-AB tiles (BLOCK_M 16 or 32) are two warpgroups of 64 weight rows
  // in one weight-scale block: 128.
  if (blockM < 64)
    return 128;
  if (chip == Chip::SM90a && blockM != 256 && n % 256 == 0 && !swiglu &&
      !combineScatter)
    return 256;
  return 128;
}

int64_t unrolledStageCount(int64_t fit, int64_t kBlocks) {
  // The 128 x 128 grouped GEMM with 4 stages and its K loop unrolled over
  // them (constant stage addresses) against the 5 stages that fit, rolled,
  // one H200 run, two passes in opposite column order (bench/RESULTS.md
  // 2026-12-01, "K loop unrolled over the stages"): 1.10-1.18x (pass 1) and
  // 1.07-1.17x (pass 2) at 8 x 4096 rows, 1.00-1.19x at 8 x 512, on the
  // four benchmark (N, K); unrolled against rolled at the same 4 stages
  // 1.02-1.13x. Giving up more than one stage, or going below 4, was not
  // measured: then the loop stays rolled at `fit`.
  for (int64_t s = fit; s >= std::max<int64_t>(4, fit - 1); --s)
    if (kBlocks % s == 0)
      return s;
  return fit;
}

int64_t groupedGemmClusterM(const GemmProblem &p) {
  // Two CTAs sharing each 128 x 256 weight tile by TMA multicast (16 + 16
  // KiB from L2 per K block instead of 16 + 32), with scale prefetch, against
  // the plain 128 x 256 kernel, two H200 runs (bench/RESULTS.md 2026-12-01,
  // "Cluster of 2 and scale prefetch at BLOCK_N 256"): at 8 x 4096 rows
  // 1.035-1.073x (run 1) and 1.040-1.089x (run 2) on all four (N, K); at
  // 8 x 512 0.81-1.03x (run 1, one outlier row) and 1.00-1.05x (run 2);
  // outputs bitwise equal. At BLOCK_N 128 the cluster measured 0.87-1.06x
  // (not taken), and with the K loops unrolled 0.91-0.97x of the plain
  // unrolled 128 x 128 kernel (2026-12-01, "Runs 4 and 5"); with both
  // unrolled, 128 x 256 cluster 2 + prefetch against cluster 1 measured
  // 0.96-1.09x (run 4) and was ahead in 7 of 8 rows (run 2): kept. The
  // layer kernels have no cluster form (static-M grids,
  // owner predicates in their epilogues: GroupedGemmConfig.cpp).
  bool standalone = p.staticM == 0 && !p.swiglu && !p.combineScatter;
  if (p.chip == Chip::SM90a && standalone && p.blockM == 128 &&
      p.blockN == 256)
    return 2;
  return 1;
}

bool groupedGemmScalePrefetch(const GemmProblem &p) {
  // Same runs: BLOCK_N 256 with prefetch against without, cluster 1: 0.99-
  // 1.02x at 8 x 4096 and 0.89-1.02x at 8 x 512 (run 1); cluster 2: 1.00-
  // 1.02x at 8 x 4096 and 0.88-1.02x at 8 x 512 (run 1), 0.98-1.12x (run
  // 2). At BLOCK_N 128 0.91-1.03x (mostly below 1; unrolled, 0.88-0.99x of
  // the plain kernel, "Runs 4 and 5"): on for BLOCK_N 256 only, where the
  // cluster-2 + prefetch pair was the best column at 8 x 4096 rows. The
  // carried scales cost 2 registers.
  return p.blockN == 256;
}

int64_t groupedGemmTmaWarps(const GemmProblem &p) {
  // One TMA warp against four, same kernels otherwise, one H100, two passes
  // in opposite column order (bench/RESULTS.md 2026-12-07, "One TMA warp"):
  // 128 x 256 cluster 2 + prefetch at 8 x 4096 rows 1.01-1.12x (pass 1) and
  // 1.01-1.04x (pass 2) on the four (N, K); at 8 x 512 0.95-1.03x. Four
  // warps polling a full ring took issue slots from the math warps of their
  // SM sub-partitions (Nsight, 22% of the stall samples). At 128 x 128
  // cluster 2 one warp measured 0.86-1.02x, at 128 x 256 cluster 1
  // 0.89-1.04x (0.97-0.98x in pass 2): there the loads of a stage issued
  // by four warps at once are worth more than the polling costs. Not with
  // pullRows (two dispatch warps share warpgroup 0).
  if (p.clusterM == 2 && p.blockN == 256 && !p.pullRows)
    return 1;
  return 4;
}

bool swigluSplitColumns(int64_t blockM) {
  // The SwiGLU + requant epilogue is latency-bound (IEEE divisions branch to
  // a slow path, so ptxas cannot interleave the 64 elements of a thread):
  // with one math warpgroup, BLOCK_M 64 tiles lost 1.14-1.21x against the
  // unfused schedule (V4-Flash EP1, 128-2048 tokens, bench/RESULTS.md
  // 2026-12-01); two warpgroups on the two column blocks of the pair
  // measured 0.96-0.98x (V4-Pro 0.91-0.93x). A 128-row tile has two
  // warpgroups already, and four do not fit the register file.
  return blockM == 64;
}

bool splitFusesActivation(const LayerConfig &c, const Variant &v) {
  // Split / unfused layer time on one H200, EP1, side by side
  // (bench/RESULTS.md 2026-12-01, "Division-free requantization"): BLOCK_M
  // 64 variants 0.90-0.97x (V4-Flash 128-2048 tokens, V4-Pro 8-2048; 1.02x
  // at V4-Flash 8 tokens, within the run-to-run spread), and with fast-math
  // every size 0.88-1.00x.
  // Without fast-math the BLOCK_M 128 variant lost (V4-Flash 8192 tokens
  // 1.02x, V4-Pro 1.09x): its two math warpgroups run SiLU's IEEE divisions
  // (64 per thread and pair) while the tensor cores wait, where
  // moe_activation hides them behind memory.
  return v.blockM < 128 || c.fastMath;
}

int64_t unfusedSmallBlockMaxTokens(const LayerConfig &c) {
  // At decode an expert gets a handful of rows: a 128-row tile computes
  // mostly padding and the GEMMs turn compute-bound on it (V4-Flash, 8
  // tokens/rank: 42 experts x 128 rows x 4096 x 4096 x 2 = 180 GFLOP for L1
  // alone); 64-row tiles halve that (measured: 488 -> 354 us for the layer).
  // Past 64 expected rows per expert (T x R x K / E under balanced routing)
  // 128-row tiles pad about as much and run two math warpgroups.
  return 64 * c.experts / (c.ranks * c.topk);
}

int64_t sharedWeightsMinTokens(const LayerConfig &c) {
  // The m-blocks of an expert share its weight tiles only where it has two
  // or more of them. Measured (one H100, EP1, fast math, split with
  // l1-cluster and l2-expert-blocks against split without, bench/RESULTS.md
  // 2026-12-07 "The split L1 kernel in clusters of 2"), by expected rows
  // per expert (T x R x K / E): 96 rows 1.050 (V4-Flash 4096 tokens) and
  // 1.079 (V4-Pro 6144), 128 rows 0.849 (V4-Pro 8192), 144 rows 0.915
  // (V4-Flash 6144), 192 rows 0.939 (V4-Flash 8192). From 112 rows, halfway
  // between the loss and the gain.
  constexpr int64_t kRowsPerExpert = 112;
  int64_t perToken = c.ranks * c.topk;
  return (kRowsPerExpert * c.experts + perToken - 1) / perToken;
}

int64_t unfusedBlockM(const LayerConfig &c) {
  return c.maxTokensPerRank <= unfusedSmallBlockMaxTokens(c) ? 64 : 128;
}

int64_t worstCasePoolTokens(const LayerConfig &c, int64_t maxBlockM) {
  int64_t local = c.localExperts();
  // Every token of every rank may pick up to min(K, E/R) of this rank's
  // experts; each expert's segment is padded to a whole BLOCK_M.
  int64_t rows = c.ranks * c.maxTokensPerRank * std::min(c.topk, local) +
                 local * (maxBlockM - 1);
  return alignUp(rows, kPoolAlignment);
}

int64_t stagePoolTokens(const LayerConfig &c, const Plan &plan) {
  int64_t maxBlockM = 0;
  for (const Variant &v : plan.variants)
    maxBlockM = std::max(maxBlockM, v.blockM);
  int64_t worst = worstCasePoolTokens(c, maxBlockM);
  int64_t ringRows = std::min(worst, kFusedGemmRingMBlocks * maxBlockM);
  bool ring = !plan.variants.empty() && ringRows < worst;
  for (const Variant &v : plan.variants)
    ring = ring && ringRefusal(plan, v, ringRows).empty();
  // 256 m-blocks: about two m-blocks per SM in flight at 132 SMs, the
  // symmetric buffer of V4-Pro at EP8 and 8192 tokens per rank 1133 MiB
  // (4830 MiB with the worst case; the project's bound is 1.2 GiB). A ring
  // of 128 m-blocks measured 0.94-1.06x the worst-case pool's time at EP1
  // (bench/RESULTS.md 2026-12-07, "fused-gemm with its dispatch warps
  // pulling the rows into a pool ring"); its dispatch warps then wait for
  // slots (57% of their loop at V4-Flash 8192 tokens) while the GEMM does
  // not wait for rows.
  return ring ? ringRows : worst;
}

int64_t defaultPoolTokens(const LayerConfig &c, int64_t numSMs,
                          int64_t maxBlockM) {
  // A ring of two pool blocks per SM: every SM can work on one block while the
  // dispatch warps fill the next. Balanced routing at large T and skewed
  // routing at any T wrap around it; the worst-case pool (4.2 GB for V4-Pro at
  // 8192 tokens/rank, EP8) is what made the first SM90 ports use 4-5 GiB.
  constexpr int64_t kRingBlocksPerSM = 2;
  int64_t ring = alignUp(kRingBlocksPerSM * numSMs * maxBlockM, kPoolAlignment);
  return std::min(ring, worstCasePoolTokens(c, maxBlockM));
}

int64_t expertsPerWave(const LayerConfig &c, const Variant &v,
                       int64_t tokensPerRank, int64_t numSMs,
                       int64_t poolTokens) {
  int64_t local = c.localExperts();
  if (local <= 0 || v.blockM <= 0 || v.l1BlockN <= 0 || numSMs <= 0)
    return 1;
  double perExpert = expectedTokensPerExpert(c, tokensPerRank);
  int64_t mBlocks =
      std::max<int64_t>(1, int64_t(std::ceil(perExpert / v.blockM)));
  // A wave's expected pool rows must fit the ring (DeepGEMM #364).
  int64_t cap =
      std::clamp<int64_t>(poolTokens / (mBlocks * v.blockM), 1, local);
  // Under one token per expert most experts are empty and their tiles are
  // skipped: one wave (no wave boundaries) is best.
  if (perExpert < 1)
    return cap;
  int64_t blocksPerExpert = mBlocks * ((2 * c.intermediate) / v.l1BlockN);
  // An L1 BLOCK_N wider than 2 x I has no tile (validatePlan rejects it; the
  // heuristic must not divide by zero first).
  if (blocksPerExpert < 1)
    return cap;
  // One expert already fills every SM: the smallest wave keeps that expert's
  // weights hot in L2.
  if (blocksPerExpert >= numSMs)
    return 1;
  // About two L1 tiles per SM per wave absorb uneven expert loads (DeepGEMM's
  // imbalance factor 2) ...
  int64_t minWave = std::min(cap, ceilDiv(2 * numSMs, blocksPerExpert));
  // ... then, up to twice that, take the wave whose waves fill the SMs best
  // (the last wave is usually partial); ties keep the smaller wave.
  auto fill = [&](int64_t e) {
    int64_t slots = 0;
    for (int64_t first = 0; first < local; first += e) {
      int64_t blocks = std::min(e, local - first) * blocksPerExpert;
      slots += ceilDiv(blocks, numSMs) * numSMs;
    }
    return double(local * blocksPerExpert) / double(slots);
  };
  int64_t best = minWave;
  double bestFill = fill(minWave);
  for (int64_t e = minWave + 1; e <= std::min(cap, 2 * minWave); ++e) {
    double f = fill(e);
    if (f > bestFill + 1e-9) {
      best = e;
      bestFill = f;
    }
  }
  return best;
}

} // namespace megamoe::config
