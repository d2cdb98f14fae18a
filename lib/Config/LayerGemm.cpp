//===- LayerGemm.cpp - the grouped GEMMs of a planned layer ---------------===//
#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Config/Plan.h"

namespace megamoe::config {

GemmProblem layerGemmProblem(const LayerConfig &c, const Plan &plan,
                             const Variant &v, LayerGemm gemm) {
  bool l1 = gemm == LayerGemm::L1;
  GemmProblem g;
  g.chip = c.chip;
  g.experts = c.localExperts();
  g.n = l1 ? 2 * c.intermediate : c.hidden;
  g.k = l1 ? c.hidden : c.intermediate;
  g.blockM = v.blockM; // the pool block
  g.blockN = l1 ? v.l1BlockN : v.l2BlockN;
  g.stages = v.stages;
  // Release lag 1 (GemmProblem's default) and as many stages as fit, both
  // measured at decode, where each SM streams weights at ~31 GB/s: the
  // split layer with lag 0 against lag 1, one H200, interleaved
  // (bench/RESULTS.md 2026-12-02, "Decode"): V4-Flash 1.036 / 0.996 /
  // 1.006 / 1.007 / 1.005 / 1.031 of the time at 1 / 8 / 128 / 512 / 2048 /
  // 8192 tokens, V4-Pro 1.010-1.027; 3 stages against 5: V4-Flash 1.016 /
  // 1.048 / ... / 1.160. A deeper ring does not speed the decode stream: the
  // 1-token L1 tile took 31.4 (lag 0) and 32.1 us (lag 1) for its 1 MiB.
  // L1 keeps FP32 for the SwiGLU + requant stage; its weights' gate and up
  // rows are interleaved by 8 (the weight transform), so each 128-row block
  // has two scales per K block.
  g.out = l1 ? DType::F32 : DType::BF16;
  g.bScaleInterleave = l1 ? kGateUpInterleave : 0;
  // The split schedule's L1 requantizes SwiGLU's output in its epilogue.
  Schedule schedule = scheduleOf(plan, v);
  g.swiglu =
      l1 && (schedule == Schedule::FusedGemm ||
             (schedule == Schedule::Split && splitFusesActivation(c, v)));
  // The fused GEMM kernel's L2 waits on the L1 tiles of its m-block.
  g.swigluArrivals = l1 && schedule == Schedule::FusedGemm;
  // The activation's requantization block: L1's SwiGLU epilogue writes one
  // scale per requantBlock columns, which L2 reads as 128 / requantBlock A
  // scales per K block (l2_pool_sf [I / requantBlock, pool rows]).
  g.swigluRequantBlock = c.recipe.requantBlock;
  g.aScaleGroups = l1 ? 1 : 128 / c.recipe.requantBlock;
  g.swigluClamp = c.clamp;
  g.fastMath = c.fastMath;
  // moe_layout writes the m-block count (pool_info[0]); the pool is static.
  g.deviceMBlocks = true;
  g.staticM = plan.poolTokens;
  // A ring pool (the fused GEMM kernel with l1-pull): the layout's rows
  // wrap around the pool's.
  if (poolWraps(c, plan))
    g.poolLayoutRows = poolLayoutRows(c, plan);
  // The last wave's tiles split along K (Variant::kSplit), into the
  // layer's split_partials region (config::kSplitTiles tiles).
  g.kSplit = v.kSplit;
  g.kSplitTiles = v.kSplit > 1 ? kSplitTiles(plan.numSMs, v.kSplit) : 0;
  // A 1-token decode tile has 1 real row of 64: its units move 1/32 of
  // the partial bytes.
  g.poolRanks = v.kSplit > 1 ? c.ranks : 0;
  // An expert's last m-block may be 64 rows (Variant::expertAlign).
  g.halfBlocks = v.halfBlocks();
  // The L2 GEMM may take an expert's 64-row units four at a time: 256 x 128
  // tiles (the variant's L2 BLOCK_N), two row blocks per math warpgroup
  // (Variant::l2ExpertBlocks).
  if (!l1 && v.l2ExpertBlocks) {
    g.blockM = kExpertBlockRows;
    g.halfBlocks = false;
    g.expertBlocks = true;
  }
  // The L1 kernel may run in clusters of 2 that share an expert's weight
  // tiles (Variant::l1Cluster; the layout pairs its m-blocks).
  if (l1 && v.l1Cluster)
    g.clusterM = 2;
  g.bWeightTiles = l1 && plan.l1WeightTiles;
  // The L1 kernel may run each pair as one BLOCK_N 256 pass.
  g.swigluPairStages = l1 && g.swiglu && v.l1PairStages;
  // The L1 kernel may fill its own pool rows (Variant::l1Pull).
  g.pullRows = l1 && g.swiglu && v.l1Pull;
  if (g.pullRows) {
    g.pullTopk = c.topk;
    g.pullRanks = c.ranks;
    g.pullTokens = c.maxTokensPerRank;
    g.pullScaleBlock = c.recipe.inputScaleBlock;
    g.pullAlign = v.expertAlign > 0 ? v.expertAlign : v.blockM;
  }
  // L2 sends every row to its source rank's combine buffer [K, T, H].
  g.combineScatter = !l1;
  g.combineTokens = c.maxTokensPerRank;
  g.combineTopk = c.topk;
  g.combineRanks = c.ranks;
  return g;
}

} // namespace megamoe::config
