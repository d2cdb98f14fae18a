//===- GroupedGemmConfig.cpp - shapes and resources of the grouped GEMM ---===//
//
// The shape rules of the options live here; every resource (registers,
// stages, shared memory) comes from the kernel plan of lib/Config.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Kernels/GroupedGemm.h"
#include "megamoe/Config/BufferLayout.h"

using namespace megamoe;
namespace cfg = megamoe::config;

cfg::KernelPlan GroupedGemmConfig::plan() const {
  return cfg::planGroupedGemmKernel(*this);
}

static std::string str(int64_t v) { return std::to_string(v); }

std::optional<std::string>
megamoe::verifyGroupedGemmConfig(const GroupedGemmConfig &c) {
  if (c.experts < 1)
    return "experts must be >= 1, got " + str(c.experts);
  if (c.tmaWarps != 1 && c.tmaWarps != 4)
    return "tma-warps must be 4 (one TMA load and commit per operand) or 1 "
           "(every load of a stage under one commit), got " +
           str(c.tmaWarps);
  if (c.tmaWarps == 1 && c.pullRows)
    return "tma-warps 1 is not built with pull-rows (warpgroup 0 holds two "
           "TMA warps and two dispatch warps)";
  if (c.swapAB) {
    // The swapped MMA (warpspec.mma.block_scaled swap_ab): 64 weight rows
    // per math warpgroup as its M, the tile's rows as its n; the epilogue
    // stores the transposed accumulator through one 128-byte panel per row.
    if (c.chip != cfg::Chip::SM90a)
      return std::string("swap-ab is built for sm_90a only, got chip '") +
             cfg::toString(c.chip) + "'";
    if (c.blockM != 16 && c.blockM != 32)
      return "swap-ab needs block-m 16 or 32 (the activation rows are the "
             "MMA's n), got " +
             str(c.blockM);
    if (c.blockN != 128)
      return "swap-ab needs block-n 128 (two math warpgroups of 64 weight "
             "rows in one weight-scale block), got " +
             str(c.blockN);
    if (c.out != cfg::DType::BF16 || c.clusterM != 1 || c.swiglu ||
        c.combineScatter || c.halfBlocks || c.pullRows || c.kSplit != 1 ||
        c.bWeightTiles || c.mmaTurns || c.bScaleInterleave != 0 ||
        c.aScaleGroups != 1 || c.outTileColumns != 0)
      return "swap-ab is built for the standalone bf16 TMA-store GEMM: no "
             "cluster, swiglu, combine-scatter, half-blocks, pull-rows, "
             "k-split, tiled weights, mma-turns, b-scale-interleave, per-64 "
             "A scales or out-tile-columns";
  } else if (c.blockM != 64 && c.blockM != 128 && c.blockM != 256) {
    return "block-m must be 128 (two math warpgroups), 64 (one) or 256 (two "
           "of two 64-row blocks each), or 16 or 32 with swap-ab, got " +
           str(c.blockM);
  }
  if (c.blockM == 256) {
    // Two row blocks per warpgroup hold 2 x 64 promoted registers, as two
    // column blocks do: not both (config::warpgroupRowBlocks). The layer
    // epilogues and the K-split work on one 64-row block per warpgroup.
    if (c.chip != cfg::Chip::SM90a)
      return std::string("block-m 256 is built for sm_90a only, got chip '") +
             cfg::toString(c.chip) + "'";
    if (c.blockN != 128)
      return "block-m 256 needs block-n 128 (each warpgroup computes two "
             "64 x 128 row blocks; two of 256 or 192 columns do not fit its "
             "registers), got " +
             str(c.blockN);
    if (c.swiglu || (c.combineScatter && !c.expertBlocks) || c.halfBlocks ||
        c.pullRows)
      return "block-m 256 is built for the TMA-store epilogue and for "
             "expert-blocks with combine-scatter (not swiglu, half-blocks, "
             "pull-rows, or combine-scatter without expert-blocks)";
  }
  if (c.expertBlocks) {
    // The layer's L2 GEMM over the half-block layout's 64-row units, four
    // per block (config::kExpertBlockRows; moe_layout's pool_expert_block).
    if (c.blockM != cfg::kExpertBlockRows || !c.combineScatter)
      return "expert-blocks needs block-m " + str(cfg::kExpertBlockRows) +
             " and combine-scatter (the layer's L2 GEMM), got block-m " +
             str(c.blockM) +
             (c.combineScatter ? "" : " without combine-scatter");
    if (c.staticM <= 0 || !c.deviceMBlocks)
      return "expert-blocks needs static-m > 0 and device-m-blocks (a layer "
             "pool laid out by moe_layout)";
    if (c.kSplit != 1 || c.clusterM != 1 || c.poolRing() || c.mmaTurns ||
        c.aScaleGroups != 1)
      return "expert-blocks is not built with k-split, a cluster, a ring "
             "pool, mma-turns or per-64 A scales (a-scale-groups 2)";
  }
  if (c.blockN != 128 && c.blockN != 192 && c.blockN != 256)
    return "block-n must be 128 (one 128x128 weight scale block per tile "
           "column range), 192 (one m64n192 MMA whose columns straddle two "
           "scale blocks) or 256 (two column blocks of 128, computed one after "
           "the other), got " +
           str(c.blockN);
  if (c.bWeightTiles) {
    // One B box = one 128 x 128 tile of the tiled layout; a cluster's
    // multicast splits the box along its outermost dimension (the row tile),
    // which is not a half tile here.
    if (c.chip != cfg::Chip::SM90a)
      return "the tiled weight layout is built for sm_90a only";
    if (cfg::columnBlockRows(c.blockN) != cfg::kWeightTileRows ||
        c.clusterM != 1 || c.n % cfg::kWeightTileRows != 0 ||
        c.k % cfg::kWeightTileK != 0)
      return "the tiled weight layout needs 128-row column blocks (block-n "
             "128 or 256), no cluster, and n and k multiples of 128; got "
             "block-n " + str(c.blockN) + ", cluster " + str(c.clusterM) +
             ", n " + str(c.n) + ", k " + str(c.k);
  }
  if (c.blockN == 192) {
    // One 96 + 96-register accumulator pair per warpgroup on sm_90a; the
    // layer epilogues (SwiGLU pairs, the combine scatter) handle 128-column
    // blocks only.
    if (c.chip != cfg::Chip::SM90a)
      return std::string("block-n 192 is built for sm_90a only, got chip '") +
             cfg::toString(c.chip) + "'";
    if (c.swiglu || c.combineScatter)
      return "block-n 192 is built for the TMA-store epilogue only (not "
             "swiglu or combine-scatter)";
    if (c.bScaleInterleave)
      return "block-n 192 does not support b-scale-interleave (its tiles "
             "straddle two scale blocks already)";
    // The last tile may be partial (config::nTiles); every tile starts on a
    // 64-column scale region and the scales are whole 128-row blocks.
    if (c.n < 128 || c.n % 128 != 0)
      return "block-n 192 needs n to be a positive multiple of 128 (whole "
             "weight-scale blocks; the last tile may be partial), got " +
             str(c.n);
  }
  if (c.blockN == 256) {
    // The two column blocks are two SM90 wgmma accumulators per warpgroup;
    // the SwiGLU epilogue handles one column block per accumulator.
    if (c.chip != cfg::Chip::SM90a)
      return std::string("block-n 256 is built for sm_90a only, got chip '") +
             cfg::toString(c.chip) + "'";
    if (c.swiglu)
      return "block-n 256 does not support swiglu (its tile is already a pair "
             "of 128-column blocks, computed one after the other)";
  }
  if (c.blockN != 192 && (c.n < c.blockN || c.n % c.blockN != 0))
    return "n must be a positive multiple of block-n " + str(c.blockN) +
           ", got " + str(c.n);
  if (c.k < GroupedGemmConfig::kBlockK || c.k % GroupedGemmConfig::kBlockK)
    return "k must be a positive multiple of 128 (the scale block), got " +
           str(c.k);
  if (c.maxM < c.blockM || c.maxM % c.blockM != 0)
    return "max-m must be a positive multiple of block-m " + str(c.blockM) +
           ", got " + str(c.maxM);
  // Expert blocks start on any 64-row unit: the pool is a multiple of the
  // layout's m-block (128), not of theirs.
  int64_t staticAlign = c.expertBlocks ? cfg::kHalfBlockRows : c.blockM;
  if (c.staticM < 0 || c.staticM % staticAlign != 0)
    return "static-m must be 0 (M given at launch) or a positive multiple of " +
           std::string(c.expertBlocks ? "64 (expert blocks)" : "block-m ") +
           (c.expertBlocks ? "" : str(c.blockM)) + ", got " + str(c.staticM);
  // TMA coordinates are signed 32-bit; B rows are E * N.
  if (c.experts * c.n >= (int64_t(1) << 31) ||
      c.rowCapacity() >= (int64_t(1) << 31))
    return "experts * n and max-m (or static-m) must stay below 2^31 (TMA "
           "coordinates)";
  if (c.out != cfg::DType::BF16 && c.out != cfg::DType::F32)
    return std::string("out-type must be bf16 or f32, got '") +
           cfg::toString(c.out) + "'";
  if (c.bScaleInterleave != 0 && c.bScaleInterleave != 8)
    return "b-scale-interleave must be 0 (one scale per 128x128 weight block) "
           "or 8 (rows interleaved by 8 between two scale blocks), got " +
           str(c.bScaleInterleave);
  if (c.releaseLag != 0 && c.releaseLag != 1)
    return "release-lag must be 0 or 1, got " + str(c.releaseLag);
  if (c.outTileColumns != 0) {
    int64_t panel = cfg::kOutputPanelBytes / c.outBytes();
    if (c.swiglu || c.combineScatter || c.outTileColumns < 0 ||
        c.outTileColumns % panel != 0 || c.blockN % c.outTileColumns != 0)
      return "out-tile-columns must be 0 (the plan's) or, for the TMA-store "
             "epilogue, a multiple of the " +
             str(panel) + "-column output panel that divides block-n " +
             str(c.blockN) + ", got " + str(c.outTileColumns);
  }
  if (!c.releaseFence && (c.releaseLag != 0 || c.chip != cfg::Chip::SM90a))
    return "release-fence=false needs release-lag 0 on sm_90a (a lag-1 "
           "release never fences; on sm_90a the row scales are read before "
           "the MMA), got release-lag " +
           str(c.releaseLag) + " on " + cfg::toString(c.chip);
  if (c.combineScatter) {
    if (c.out != cfg::DType::BF16)
      return std::string("combine-scatter needs out-type bf16 (the combine "
                         "buffer holds bf16 rows), got '") +
             cfg::toString(c.out) + "'";
    if (c.staticM <= 0)
      return "combine-scatter needs static-m > 0 (pool_source has one entry "
             "per pool row of a compile-time pool)";
    if (c.combineTokens < 1 || c.combineTopk < 1 || c.combineRanks < 1)
      return "combine-scatter needs combine-tokens, combine-topk and "
             "combine-ranks >= 1 (the combine buffer [topk, tokens, n] and the "
             "rank count), got " +
             str(c.combineTokens) + ", " + str(c.combineTopk) + ", " +
             str(c.combineRanks);
    if (c.combineTokens >= (int64_t(1) << 31) ||
        c.combineTopk >= (int64_t(1) << 31) ||
        c.combineRanks >= (int64_t(1) << 31))
      return "combine-tokens, combine-topk and combine-ranks must stay below "
             "2^31 (compared with i32 pool_source entries)";
  }
  if (c.swigluArrivals && !c.swiglu)
    return "swiglu-arrivals needs swiglu (the arrivals are its tiles')";
  if (c.kSplit != 1) {
    if (c.kSplit != 2 && c.kSplit != 4)
      return "k-split must be 1, 2 or 4, got " + str(c.kSplit);
    if (c.blockM != 64)
      return "k-split needs block-m 64 (one math warpgroup per column block "
             "hands its partial sum on), got " + str(c.blockM);
    if (c.clusterM != 1)
      return "k-split and cluster-m exclude each other (a split tile's "
             "units do not share stages)";
    if (c.swigluArrivals || c.pullRows)
      return "k-split is not built with swiglu-arrivals or pull-rows (the "
             "fused GEMM kernel's arrivals, the L1 kernel's pull)";
    if ((c.k / GroupedGemmConfig::kBlockK) % c.kSplit != 0)
      return "k-split " + str(c.kSplit) + " must divide the K blocks (" +
             str(c.k / GroupedGemmConfig::kBlockK) + ")";
    if (c.poolRanks < 0)
      return "k-split's pool-ranks must be >= 0, got " + str(c.poolRanks);
    if (c.kSplitTiles < 1)
      return "k-split needs k-split-tiles >= 1 (the split_partials region's "
             "tiles)";
  }
  if (c.halfBlocks) {
    if (c.blockM != 128)
      return "half-blocks needs block-m 128 (a half block is one math "
             "warpgroup's 64 rows), got " + str(c.blockM);
    if (c.staticM <= 0 || !c.deviceMBlocks)
      return "half-blocks needs static-m > 0 and device-m-blocks (a layer "
             "pool laid out by moe_layout)";
    if (c.swigluArrivals)
      return "half-blocks does not support swiglu-arrivals (the fused GEMM "
             "kernel counts two warpgroups' arrivals per L1 tile)";
  }
  if (c.swiglu) {
    if (c.combineScatter)
      return "swiglu and combine-scatter are two epilogues; pick one";
    if (c.bScaleInterleave != cfg::kGateUpInterleave)
      return "swiglu needs b-scale-interleave " +
             str(cfg::kGateUpInterleave) +
             " (gate and up rows interleaved, as the L1 weight transform "
             "lays them out)";
    if (c.staticM <= 0 || !c.deviceMBlocks)
      return "swiglu needs static-m > 0 and device-m-blocks (the pool of a "
             "layer: row weights and scales are indexed by pool row)";
    if (c.n % (2 * c.blockN) != 0)
      return "swiglu needs n to be a multiple of 2 x block-n (a tile is a "
             "pair of column blocks holding one 128-column requantization "
             "group), got n " +
             str(c.n);
  }
  if (c.swigluPairStages) {
    // One BLOCK_N 256 pass over the pair: two column blocks per stage and
    // warpgroup (2 x 64 promoted + 64 scratch registers), as the BLOCK_N
    // 256 TMA-store GEMM, then each block's SwiGLU.
    if (!c.swiglu || c.swigluArrivals)
      return "swiglu-pair-stages needs swiglu without swiglu-arrivals (the "
             "split schedule's L1 kernel; the fused GEMM kernel's ring is "
             "shared with its L2 tiles)";
    if (c.chip != cfg::Chip::SM90a)
      return std::string("swiglu-pair-stages is built for sm_90a only, got "
                         "chip '") +
             cfg::toString(c.chip) + "'";
    if (c.blockM != 128 || c.blockN != 128)
      return "swiglu-pair-stages needs block-m 128 and block-n 128 (each "
             "math warpgroup computes its 64 rows of both 128-column blocks; "
             "at block-m 64 the warpgroups split the pair already), got "
             "block-m " +
             str(c.blockM) + ", block-n " + str(c.blockN);
    if (c.kSplit != 1)
      return "swiglu-pair-stages does not support k-split (a unit's "
             "partials are one column block at a time)";
  }
  if (c.pullRows) {
    // The copy is moe_pull's (PoolPull): a layer pool laid out by
    // moe_layout, read by the SwiGLU kernel's A loads (the split schedule's
    // L1 kernel, or the fused GEMM kernel's L1 tiles).
    if (!c.swiglu)
      return "pull-rows needs swiglu (the layer's L1 kernel fills its own "
             "pool rows)";
    if (c.chip != cfg::Chip::SM90a)
      return std::string("pull-rows is built for sm_90a, got chip '") +
             cfg::toString(c.chip) + "'";
    if (c.pullTopk < 1 || c.pullRanks < 1 || c.pullTokens < 1)
      return "pull-rows needs pull-topk, pull-ranks and pull-tokens >= 1, "
             "got " +
             str(c.pullTopk) + ", " + str(c.pullRanks) + ", " +
             str(c.pullTokens);
    if (c.pullTokens * c.pullTopk >= (int64_t(1) << 31) ||
        c.experts * c.pullRanks * c.pullTokens * c.pullTopk >=
            (int64_t(1) << 31))
      return "pull-rows: experts x ranks x tokens x topk must stay below "
             "2^31 (i32 slots and src_token_index entries)";
    if (c.pullScaleBlock < 1 || c.k % c.pullScaleBlock != 0)
      return "pull-rows needs a pull-scale-block that divides k (the input "
             "scales of a row), got k " +
             str(c.k) + ", pull-scale-block " + str(c.pullScaleBlock);
    int64_t align = c.halfBlocks ? cfg::kHalfBlockRows : c.blockM;
    if (c.pullAlign != align)
      return "pull-align must be the rows of one pool_block_expert entry (" +
             str(align) + (c.halfBlocks ? ", half blocks" : ", block-m") +
             "), got " + str(c.pullAlign);
  }
  if (c.aScaleGroups != 1 && c.aScaleGroups != 2)
    return "a-scale-groups must be 1 (A scaled per 128 K) or 2 (per 64 K), "
           "got " +
           str(c.aScaleGroups);
  if (c.aScaleGroups == 2 && c.chip != cfg::Chip::SM90a)
    return std::string("a-scale-groups 2 is built for sm_90a only (the "
                       "sm_100a block-scaled MMA promotes one A scale per K "
                       "block), got chip '") +
           cfg::toString(c.chip) + "'";
  if (c.swigluRequantBlock != 128 && c.swigluRequantBlock != 64)
    return "swiglu-requant-block must be 128 or 64 activation columns, got " +
           str(c.swigluRequantBlock);
  if (c.poolRing()) {
    // The fused GEMM kernel's ring pool (docs/FusedSchedule.md, "The
    // dispatch warps and the pool ring"): whole m-blocks per slot, the count
    // from moe_layout, and its rows written by this kernel's pull (L1) or read
    // by its scatter (L2).
    if (c.poolLayoutRows <= c.staticM || c.staticM % c.blockM != 0)
      return "pool-layout-rows (" + str(c.poolLayoutRows) +
             ") must exceed static-m (" + str(c.staticM) +
             "), a multiple of block-m (" + str(c.blockM) + ")";
    if (!c.deviceMBlocks || c.halfBlocks || c.kSplit != 1 || c.clusterM != 1 ||
        !(c.pullRows || c.combineScatter))
      return "a ring pool (pool-layout-rows) needs device-m-blocks, whole "
             "m-blocks (no half blocks), no k-split or cluster, and the "
             "layer's pulled L1 rows or its combine scatter";
  }
  if (c.clusterM != 1 && c.clusterM != 2)
    return "cluster-m must be 1 or 2 (CTAs per cluster), got " +
           str(c.clusterM);
  if (c.clusterM == 2) {
    // The standalone GEMM and the layer's L1 GEMMs (the SwiGLU or the TMA
    // store epilogue, their stores under the cluster tile's owner
    // predicate; a grid of whole clusters: kernelGrid and the runtime).
    // The combine scatter has no owner predicate; the pull and the ring
    // pool wait per m-block, which a cluster's pair would interleave.
    if (c.combineScatter || c.pullRows || c.poolRing())
      return "cluster-m 2 is built for the standalone grouped GEMM and the "
             "layer's L1 GEMM: not with combine-scatter, pull-rows or a ring "
             "pool";
    if (c.chip != cfg::Chip::SM90a)
      return std::string("cluster-m 2 is built for sm_90a, got '") +
             cfg::toString(c.chip) + "'";
  }
  if (c.mmaTurns) {
    // The turns alternate two warpgroups MMA for MMA: both must issue the
    // same MMAs on every tile, or one waits for a turn that never comes.
    // (Split columns, KernelPlan::splitN, are a BLOCK_M 64 layout.)
    if (c.chip != cfg::Chip::SM90a)
      return std::string("mma-turns is built for sm_90a (on sm_100a one "
                         "thread issues the MMAs), got '") +
             cfg::toString(c.chip) + "'";
    if (c.blockM != 128 || c.halfBlocks || c.kSplit != 1 || c.pullRows)
      return "mma-turns needs two math warpgroups that compute every tile "
             "alike: block-m 128, no half blocks, no k-split, no pulled "
             "rows; got block-m " +
             str(c.blockM) + (c.halfBlocks ? ", half blocks" : "") +
             (c.kSplit != 1 ? ", k-split " + str(c.kSplit) : "") +
             (c.pullRows ? ", pulled rows" : "");
  }
  if (c.stages < 0 || c.stages > cfg::kGroupedGemmMaxStages)
    return "stages must be in [1, " + str(cfg::kGroupedGemmMaxStages) +
           "] (or 0 for automatic), got " + str(c.stages);
  // The resources: what the kernel plan needs against the chip's limits.
  std::vector<std::string> errors = cfg::validateKernelPlan(c.plan());
  if (!errors.empty())
    return errors.front();
  return std::nullopt;
}
