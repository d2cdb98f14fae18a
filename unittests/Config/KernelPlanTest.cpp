//===- KernelPlanTest.cpp - the grouped GEMM's kernel plan ----------------===//
//
// Pins the stages, shared memory, registers and raster groups of the grouped
// GEMMs that scripts/ptx-snapshot.sh compiles (the values the builder used
// before the plan moved to lib/Config: stage = BLOCK_M x 128 + 128 x 128 +
// BLOCK_M x 4 rounded to 128 + 16 bytes of full/empty mbarriers; fixed = 64
// x 128 x out bytes per math warpgroup; stages = (232448 - fixed) / stage,
// at most 8; the plan's bytes are the layout's, KernelPlanLayoutTest).
//
//===----------------------------------------------------------------------===//
#include "Shapes.h"

#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Config/Plan.h"

#include <gtest/gtest.h>

using namespace megamoe::config;
using namespace megamoe::config::testing;

namespace {

GemmProblem gemm(int64_t n, int64_t k, int64_t blockM,
                 DType out = DType::BF16) {
  GemmProblem p;
  p.n = n;
  p.k = k;
  p.blockM = blockM;
  p.out = out;
  return p;
}

struct Expected {
  int64_t n, k, blockM;
  DType out;
  int64_t stages, stageBytes, fixedBytes, smemBytes, threads, entryRegisters,
      rasterGroupN;
};

TEST(KernelPlan, SnapshotShapes) {
  const Expected cases[] = {
      // The four (N, K) of bench/RESULTS.md at BLOCK_M 128 and 64. At 128
      // 5 stages fit; 4 divide the K blocks, so the K loop unrolls over them
      // (config::unrolledStageCount).
      {4096, 7168, 128, DType::BF16, 4, 33296, 32768, 165952, 384, 168, 8},
      {4096, 7168, 64, DType::BF16, 8, 24848, 16384, 215168, 256, 248, 8},
      {7168, 2048, 128, DType::BF16, 4, 33296, 32768, 165952, 384, 168, 56},
      {7168, 2048, 64, DType::BF16, 8, 24848, 16384, 215168, 256, 248, 56},
      {4096, 4096, 128, DType::BF16, 4, 33296, 32768, 165952, 384, 168, 32},
      {4096, 4096, 64, DType::BF16, 8, 24848, 16384, 215168, 256, 248, 32},
      {4096, 2048, 128, DType::BF16, 4, 33296, 32768, 165952, 384, 168, 32},
      {4096, 2048, 64, DType::BF16, 8, 24848, 16384, 215168, 256, 248, 32},
      // F32 out (the layer options case and the L1 GEMMs): at 128, 5 fit
      // and 4 divide the 16 K blocks.
      {4096, 2048, 128, DType::F32, 4, 33296, 65536, 198720, 384, 168, 32},
      {4096, 2048, 64, DType::F32, 8, 24848, 32768, 231552, 256, 248, 32},
  };
  for (const Expected &e : cases) {
    KernelPlan p = planGroupedGemmKernel(gemm(e.n, e.k, e.blockM, e.out));
    SCOPED_TRACE(::testing::Message() << e.n << "x" << e.k << " BLOCK_M "
                                      << e.blockM << " " << toString(e.out));
    EXPECT_EQ(p.stages, e.stages);
    EXPECT_EQ(p.stageBytes(), e.stageBytes);
    EXPECT_EQ(p.fixedBytes(), e.fixedBytes);
    EXPECT_EQ(p.smemBytes, e.smemBytes);
    EXPECT_EQ(p.smemBytes, p.fixedBytes() + p.stages * p.stageBytes());
    EXPECT_EQ(p.threads, e.threads);
    EXPECT_EQ(p.entryRegisters, e.entryRegisters);
    EXPECT_EQ(p.rasterGroupN, e.rasterGroupN);
    EXPECT_EQ(p.blockK, 128);
    EXPECT_TRUE(validateKernelPlan(p).empty());
  }
}

TEST(KernelPlan, Roles) {
  KernelPlan two = planGroupedGemmKernel(gemm(4096, 7168, 128));
  ASSERT_EQ(two.roles.size(), 3u);
  EXPECT_EQ(two.roles[0].name, "tma");
  EXPECT_EQ(two.roles[0].warpBegin, 0);
  EXPECT_EQ(two.roles[0].warpEnd, 4);
  EXPECT_EQ(two.roles[0].registers, 40);
  EXPECT_FALSE(two.roles[0].mma);
  for (int wg = 0; wg < 2; ++wg) {
    const RolePlan &r = two.roles[1 + wg];
    EXPECT_EQ(r.name, "math" + std::to_string(wg));
    EXPECT_EQ(r.warpBegin, 4 + 4 * wg);
    EXPECT_EQ(r.warpEnd, 8 + 4 * wg);
    EXPECT_EQ(r.registers, 232);
    EXPECT_TRUE(r.mma);
  }
  EXPECT_EQ(two.mathWarpgroups(), 2);
  EXPECT_EQ(planGroupedGemmKernel(gemm(4096, 7168, 64)).mathWarpgroups(), 1);
}

TEST(KernelPlan, SmemRegionsAreLaidOutInOrder) {
  KernelPlan p = planGroupedGemmKernel(gemm(4096, 7168, 128));
  std::vector<std::string> names;
  for (const SmemRegionPlan &r : p.smem)
    names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a_tiles", "b_tiles", "d_tiles",
                                             "a_scales", "ring_barriers"}));
  // 4 stages (5 fit; 4 divide the 56 K blocks: config::unrolledStageCount).
  EXPECT_EQ(p.smem[0].offset, 0);
  EXPECT_EQ(p.smem[0].slots, 4);
  EXPECT_EQ(p.smem[1].offset, 4 * 128 * 128);
  EXPECT_EQ(p.smem[2].offset, 8 * 128 * 128);
  EXPECT_EQ(p.smem[3].offset, 8 * 128 * 128 + 2 * 64 * 128 * 2);
  EXPECT_EQ(p.smem[3].bytes(), 4 * 512);
  EXPECT_EQ(p.smem[4].offset, 8 * 128 * 128 + 2 * 64 * 128 * 2 + 4 * 512);
  EXPECT_EQ(p.smem[4].bytes(), 4 * 16);
  // sm_100a adds the TMEM state (address word + 2 commit mbarriers).
  GemmProblem g = gemm(4096, 7168, 128);
  g.chip = Chip::SM100a;
  KernelPlan s = planGroupedGemmKernel(g);
  EXPECT_EQ(s.smem.back().name, "tmem_state");
  EXPECT_EQ(s.smem.back().bytes(), 8 + 2 * 8);
}

TEST(KernelPlan, ExplicitStagesAreKept) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.stages = 3;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_EQ(p.stages, 3);
  EXPECT_EQ(p.smemBytes, 32768 + 3 * 33296);
}

TEST(KernelPlan, TooManyStagesDoNotFit) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.stages = 8;
  std::vector<std::string> e = validateKernelPlan(planGroupedGemmKernel(g));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "8 stages of 33296 B plus 32768 B need 299136 B of shared "
                  "memory, more than the 232448 B an sm_90a block can have");
}

TEST(KernelPlan, OneStageIsTooFew) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.stages = 1;
  std::vector<std::string> e = validateKernelPlan(planGroupedGemmKernel(g));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "fewer than 2 pipeline stages fit in shared memory");
}

TEST(KernelPlan, RegisterRules) {
  KernelPlan p = planGroupedGemmKernel(gemm(4096, 7168, 128));
  // Each also increases beyond what the producer releases (the second
  // message: SetmaxnregIncreasesNeedReleasedRegisters).
  p.roles[1].registers = 236;
  std::vector<std::string> e = validateKernelPlan(p);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NE(e[0].find("role 'math0' has a register target of 236"),
            std::string::npos);
  p.roles[1].registers = 256;
  p.roles[2].registers = 256;
  e = validateKernelPlan(p);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_NE(e[0].find("need 70656 registers, more than the 65536"),
            std::string::npos)
      << e[0];
  EXPECT_NE(e[1].find("setmaxnreg increases"), std::string::npos) << e[1];
  p = planGroupedGemmKernel(gemm(4096, 7168, 128));
  p.entryRegisters = 176;
  e = validateKernelPlan(p);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("384 threads x 176 registers"), std::string::npos);
}

// setmaxnreg.inc only takes what the CTA's warps released: 40 / 232 at an
// entry of 168 is exactly balanced (128 x 128 released, 256 x 64 wanted);
// a 48-register producer leaves the math warpgroups 1,024 short.
TEST(KernelPlan, SetmaxnregIncreasesNeedReleasedRegisters) {
  KernelPlan p = planGroupedGemmKernel(gemm(4096, 7168, 128));
  ASSERT_EQ(p.entryRegisters, 168);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  p.roles[0].registers = 48;
  std::vector<std::string> e = validateKernelPlan(p);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("increases need 16384 registers above the entry's 168 "
                      "per thread, but the decreases release only 15360"),
            std::string::npos)
      << e[0];
}

// pullRows: warpgroup 0 is two TMA warps and two dispatch warps, at the
// producer's registers; the TMA role stays the producer.
TEST(KernelPlan, PullRowsSplitsWarpgroupZero) {
  GemmProblem g = gemm(4096, 4096, 128);
  g.swiglu = true;
  g.pullRows = true;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  ASSERT_EQ(p.roles.size(), 4u);
  EXPECT_EQ(p.producerRole().name, "tma");
  EXPECT_EQ(p.producerRole().warpBegin, 2);
  EXPECT_EQ(p.producerRole().warpEnd, 4);
  ASSERT_TRUE(p.dispatchRole());
  EXPECT_EQ(p.dispatchRole()->warpBegin, 0);
  EXPECT_EQ(p.dispatchRole()->warpEnd, 2);
  EXPECT_EQ(p.dispatchRole()->registers, p.producerRole().registers);
  EXPECT_EQ(p.roles[1].name, "math0");
  EXPECT_EQ(p.mathWarpgroups(), 2);
  EXPECT_FALSE(planGroupedGemmKernel(gemm(4096, 4096, 128)).dispatchRole());
}

TEST(KernelPlan, Sm100PlanIsValid) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.chip = Chip::SM100a;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  EXPECT_EQ(p.tmemColumns(), 256);
  EXPECT_EQ(planGroupedGemmKernel(gemm(4096, 7168, 128)).tmemColumns(), 0);
}

TEST(KernelPlan, Sm100TmemColumnOverflow) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.chip = Chip::SM100a;
  KernelPlan p = planGroupedGemmKernel(g);
  p.blockN = 512;
  std::vector<std::string> e = validateKernelPlan(p);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("2 MMA warpgroups x BLOCK_N 512 = 1024 TMEM columns, "
                      "more than the 512 of an sm_100a CTA"),
            std::string::npos)
      << e[0];
}

TEST(KernelPlan, WrongRoleLayouts) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.chip = Chip::SM100a;
  KernelPlan p = planGroupedGemmKernel(g);
  p.roles[1].warpBegin = 5; // math0: warps [5, 8)
  std::vector<std::string> e = validateKernelPlan(p);
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("role 'math0' issues MMAs on warps [5, 8), which is not "
                      "whole warpgroups"),
            std::string::npos)
      << e[0];
  p = planGroupedGemmKernel(g);
  p.roles.pop_back(); // one MMA warpgroup for BLOCK_M 128
  e = validateKernelPlan(p);
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("BLOCK_M 128 needs 2 MMA warpgroups (one per 64 rows), "
                      "the plan has 1"),
            std::string::npos)
      << e[0];
}

TEST(KernelPlan, RasterGroups) {
  // Weights of at most 24 MiB per expert: m-major (all N blocks).
  EXPECT_EQ(gemmRasterGroupN(4096, 4096, 128), 32);
  EXPECT_EQ(gemmRasterGroupN(7168, 3072, 128), 56);
  // Larger: rasters of 8, the last one narrower where 8 does not divide
  // the N blocks (BLOCK_N 192 at N 4096: 22 blocks, 8 + 8 + 6), all of
  // fewer than 8.
  EXPECT_EQ(gemmRasterGroupN(4096, 7168, 128), 8);
  EXPECT_EQ(gemmRasterGroupN(6144, 7168, 128), 8);
  EXPECT_EQ(gemmRasterGroupN(4096, 7168, 192), 8);
  EXPECT_EQ(gemmRasterGroupN(128 * 12, 1 << 15, 128), 8);
  EXPECT_EQ(gemmRasterGroupN(128 * 6, 1 << 16, 128), 6);
  EXPECT_EQ(gemmRasterGroupN(128 * 3, 1 << 17, 128), 3);
}

//===----------------------------------------------------------------------===//
// The layer's GEMMs (megamoe-expand, the unfused schedule)
//===----------------------------------------------------------------------===//

Plan unfusedPlan(const LayerConfig &c) {
  PlanOverrides o;
  o.schedule = Schedule::Unfused;
  Plan p;
  std::vector<std::string> errors = makePlan(c, o, p);
  EXPECT_TRUE(errors.empty());
  return p;
}

TEST(LayerGemm, MapsTheLayerOntoTwoGroupedGemms) {
  LayerConfig c = v4Flash(2, 128);
  Plan plan = unfusedPlan(c);
  const Variant &v = plan.variants.front();
  GemmProblem l1 = layerGemmProblem(c, plan, v, LayerGemm::L1);
  EXPECT_EQ(l1.experts, 128);
  EXPECT_EQ(l1.n, 4096); // 2 x I
  EXPECT_EQ(l1.k, 4096); // H
  EXPECT_EQ(l1.blockM, 64);
  EXPECT_EQ(l1.blockN, 256); // config::stageL1BlockN
  EXPECT_EQ(l1.stages, 0);
  EXPECT_EQ(l1.out, DType::F32);
  EXPECT_EQ(l1.bScaleInterleave, 8);
  EXPECT_TRUE(l1.deviceMBlocks);
  EXPECT_EQ(l1.staticM, plan.poolTokens);
  EXPECT_FALSE(l1.combineScatter);
  GemmProblem l2 = layerGemmProblem(c, plan, v, LayerGemm::L2);
  EXPECT_EQ(l2.n, 4096); // H
  EXPECT_EQ(l2.k, 2048); // I
  EXPECT_EQ(l2.out, DType::BF16);
  EXPECT_EQ(l2.bScaleInterleave, 0);
  EXPECT_TRUE(l2.combineScatter);
  EXPECT_EQ(l2.combineTokens, 128);
  EXPECT_EQ(l2.combineTopk, 6);
  EXPECT_EQ(l2.combineRanks, 2);
}

/// The fused GEMM kernel's ring serves L1 (one A scale per row and K block)
/// and L2: per-64 activations give L2 two, so the slots hold two rows of
/// BLOCK_M scales; per-128 keeps one.
TEST(LayerGemm, FusedRingHoldsTheLargerScaleGroups) {
  for (int64_t requant : {128, 64}) {
    LayerConfig c = v4Flash(1, 8192);
    c.recipe.requantBlock = requant;
    PlanOverrides o;
    o.schedule = Schedule::FusedGemm;
    Plan plan;
    ASSERT_TRUE(makePlan(c, o, plan).empty());
    for (const Variant &v : plan.variants) {
      GemmProblem l1 = layerGemmProblem(c, plan, v, LayerGemm::L1);
      GemmProblem l2 = layerGemmProblem(c, plan, v, LayerGemm::L2);
      EXPECT_EQ(l1.aScaleGroups, 1);
      EXPECT_EQ(l2.aScaleGroups, 128 / requant);
      KernelPlan k = planFusedGemmKernel(l1, l2);
      EXPECT_EQ(k.aScaleGroups, 128 / requant);
      const SmemRegionPlan *slot = nullptr;
      for (const SmemRegionPlan &r : k.smem)
        if (r.name == "a_scales")
          slot = &r;
      ASSERT_NE(slot, nullptr);
      EXPECT_EQ(slot->bytesPerSlot, v.blockM * 4 * (128 / requant))
          << "BLOCK_M " << v.blockM << ", per-" << requant;
      EXPECT_EQ(slot->slots, k.stages);
      EXPECT_TRUE(validateKernelPlan(k).empty());
    }
  }
}

/// The layers of scripts/ptx-snapshot.sh: stages and SMEM of every variant's
/// L1 and L2 GEMM.
TEST(LayerGemm, SnapshotLayers) {
  struct Case {
    LayerConfig config;
    int64_t blockM;
    int64_t l1Stages, l1Smem, l2Stages, l2Smem, l1Raster, l2Raster;
  };
  const Case cases[] = {
      // BLOCK_N 256 (config::stageL1BlockN / stageL2BlockN): a 64 x 256
      // stage is 40 KiB (4 of them with the L1's 32 KiB f32 output tile, 5
      // with the L2's 8 KiB scatter tile), a 128 x 256 one 48.5 KiB (3 with
      // the L1's 64 KiB f32 tile, 4 with the L2's 16 KiB); rasters count
      // 256-column blocks.
      {v4Flash(1, 8), 64, 4, 197696, 5, 214352, 16, 16},
      {v4Flash(1, 512), 64, 4, 197696, 5, 214352, 16, 16},
      {v4Flash(1, 8192), 64, 4, 197696, 5, 214352, 16, 16},
      {v4Flash(1, 8192), 128, 3, 214576, 4, 215104, 16, 16},
      {v4Pro(1, 8), 64, 4, 197696, 5, 214352, 8, 28},
      {v4Pro(1, 8192), 128, 3, 214576, 4, 215104, 8, 28},
      {shape(512, 256, 8, 2, 2, 256), 128, 3, 214576, 4, 215104, 2, 2},
  };
  for (const Case &k : cases) {
    Plan plan = unfusedPlan(k.config);
    const Variant *v = nullptr;
    for (const Variant &x : plan.variants)
      if (x.blockM == k.blockM)
        v = &x;
    ASSERT_NE(v, nullptr) << "H " << k.config.hidden << " T "
                          << k.config.maxTokensPerRank << " BLOCK_M "
                          << k.blockM;
    KernelPlan l1 = planGroupedGemmKernel(
        layerGemmProblem(k.config, plan, *v, LayerGemm::L1));
    KernelPlan l2 = planGroupedGemmKernel(
        layerGemmProblem(k.config, plan, *v, LayerGemm::L2));
    SCOPED_TRACE(::testing::Message() << "H " << k.config.hidden << " T "
                                      << k.config.maxTokensPerRank);
    EXPECT_EQ(l1.stages, k.l1Stages);
    EXPECT_EQ(l1.smemBytes, k.l1Smem);
    EXPECT_EQ(l2.stages, k.l2Stages);
    EXPECT_EQ(l2.smemBytes, k.l2Smem);
    EXPECT_EQ(l1.rasterGroupN, k.l1Raster);
    EXPECT_EQ(l2.rasterGroupN, k.l2Raster);
    EXPECT_TRUE(validateKernelPlan(l1).empty());
    EXPECT_TRUE(validateKernelPlan(l2).empty());
  }
}

} // namespace

// The split schedule's SwiGLU GEMM: a 64-row tile splits its pair's two
// column blocks between two math warpgroups (one B tile each per stage, a
// per-row amax exchange); a 128-row tile keeps one warpgroup per 64 rows.
TEST(KernelPlan, SwiGLUSplitColumnsAt64Rows) {
  GemmProblem g;
  g.n = 4096;
  g.k = 4096;
  g.staticM = 4096;
  g.deviceMBlocks = true;
  g.bScaleInterleave = kGateUpInterleave;
  g.swiglu = true;
  g.blockM = 64;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_TRUE(p.splitN);
  EXPECT_EQ(p.mathWarpgroups(), 2);
  EXPECT_EQ(p.threads, 384);
  auto region = [&](const char *name) -> const SmemRegionPlan * {
    for (const SmemRegionPlan &r : p.smem)
      if (r.name == name)
        return &r;
    return nullptr;
  };
  ASSERT_NE(region("b_tiles1"), nullptr);
  EXPECT_EQ(region("b_tiles1")->slots, p.stages);
  ASSERT_NE(region("row_exchange"), nullptr);
  EXPECT_EQ(region("row_exchange")->bytesPerSlot, 2 * 64 * 4);
  // The e4m3 activation tile: 64 rows x the pair's 128 activation columns.
  EXPECT_EQ(region("d_tiles")->bytesPerSlot, 64 * 128);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  // The raster counts pairs.
  EXPECT_EQ(p.rasterGroupN, gemmRasterGroupN(4096, 4096, 256));

  g.blockM = 128;
  p = planGroupedGemmKernel(g);
  EXPECT_FALSE(p.splitN);
  EXPECT_EQ(p.mathWarpgroups(), 2);
  EXPECT_EQ(region("b_tiles1"), nullptr);
  EXPECT_EQ(region("d_tiles")->bytesPerSlot, 128 * 128);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  // A plan that claims split columns on 128 rows is refused.
  p.splitN = true;
  std::vector<std::string> errors = validateKernelPlan(p);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors.back().find("split columns"), std::string::npos)
      << errors.back();
}

//===----------------------------------------------------------------------===//
// BLOCK_N 256 (two column blocks of 128 per math warpgroup)
//===----------------------------------------------------------------------===//

TEST(KernelPlan, BlockN256) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.blockN = 256;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  // Two B column blocks of 128 rows per stage; a BF16 output tile of one
  // column block leaves room for 4 stages of A 16 KiB + B 32 KiB.
  EXPECT_EQ(p.stageBytes(), 128 * 128 + 2 * 128 * 128 + 512 + 16);
  EXPECT_EQ(p.outTileColumns, 128);
  EXPECT_EQ(p.stages, 4);
  EXPECT_EQ(p.rasterGroupN, gemmRasterGroupN(4096, 7168, 256));
  // FP32 output: a whole column block (128 x 128 x 4 B), 3 stages.
  g.out = DType::F32;
  p = planGroupedGemmKernel(g);
  EXPECT_EQ(p.outTileColumns, 128);
  EXPECT_EQ(p.stages, 3);
  // BLOCK_N 128 keeps its plan.
  EXPECT_EQ(planGroupedGemmKernel(gemm(4096, 7168, 128)).outTileColumns, 128);
}

TEST(KernelPlan, BlockM256) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.blockM = 256;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  // Two math warpgroups of two 64-row blocks each, 384 threads.
  EXPECT_EQ(p.rowBlocks, 2);
  EXPECT_EQ(p.mathWarpgroups(), 2);
  EXPECT_EQ(p.threads, 384);
  // A 32 KiB, B 16 KiB and 1 KiB of row scales per stage; the output tile
  // keeps one 64-column panel (2 x 64 rows x 128 B), so 4 stages fit.
  EXPECT_EQ(p.stageBytes(), 256 * 128 + 128 * 128 + 1024 + 16);
  EXPECT_EQ(p.outTileColumns, 64);
  EXPECT_EQ(p.stages, 4);
  EXPECT_TRUE(p.unrollsStages(7168));
  // FP32 output: a 32-column panel, same bytes.
  g.out = DType::F32;
  p = planGroupedGemmKernel(g);
  EXPECT_EQ(p.outTileColumns, 32);
  EXPECT_EQ(p.stages, 4);
  // Four warpgroups for 256 rows would be the wrong layout.
  KernelPlan wrong = planGroupedGemmKernel(gemm(4096, 7168, 128));
  wrong.blockM = 256;
  wrong.rowBlocks = 1;
  EXPECT_FALSE(validateKernelPlan(wrong).empty());
}

TEST(KernelPlan, SwapAB) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.blockM = 32;
  g.swapAB = true;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  // Two math warpgroups of 64 weight rows each for a 32-row tile.
  EXPECT_TRUE(p.swapAB);
  EXPECT_EQ(p.mathWarpgroups(), 2);
  EXPECT_EQ(p.threads, 384);
  // A 4 KiB, B 16 KiB, 128 B of row scales per stage; the output tile is
  // one [32, 64] bf16 slot per warpgroup (8 KiB); as many stages as allowed.
  EXPECT_EQ(p.stageBytes(), 32 * 128 + 128 * 128 + 128 + 16);
  EXPECT_EQ(p.outTileColumns, 64);
  EXPECT_EQ(p.stages, kGroupedGemmMaxStages);
  EXPECT_TRUE(p.unrollsStages(7168));
  // The same plan unswapped has no warpgroup for 32 rows.
  KernelPlan wrong = p;
  wrong.swapAB = false;
  EXPECT_FALSE(validateKernelPlan(wrong).empty());
}

TEST(KernelPlan, OutTileColumnsOverride) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.blockN = 256;
  // The whole BLOCK_N: four 64-column slots (64 KiB), so 3 stages fit.
  g.outTileColumns = 256;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  EXPECT_EQ(p.outTileColumns, 256);
  EXPECT_EQ(p.stages, 3);
  EXPECT_FALSE(p.unrollsStages(7168)); // 56 K blocks are not a multiple of 3
  // Asking for 4 stages beside it overflows shared memory.
  g.stages = 4;
  EXPECT_FALSE(validateKernelPlan(planGroupedGemmKernel(g)).empty());
  // Unset, the plan's two 64-column slots and 4 stages.
  GemmProblem d = gemm(4096, 7168, 128);
  d.blockN = 256;
  EXPECT_EQ(planGroupedGemmKernel(d).outTileColumns, 128);
  EXPECT_EQ(planGroupedGemmKernel(d).stages, 4);
}

TEST(KernelPlan, ReleaseFenceIsCarried) {
  GemmProblem g = gemm(4096, 2048, 128);
  EXPECT_TRUE(planGroupedGemmKernel(g).releaseFence);
  g.releaseLag = 0;
  g.releaseFence = false;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_EQ(p.releaseLag, 0);
  EXPECT_FALSE(p.releaseFence);
}

TEST(Heuristics, GroupedGemmBlockN) {
  EXPECT_EQ(groupedGemmBlockN(Chip::SM90a, 128, 4096, false, false), 256);
  EXPECT_EQ(groupedGemmBlockN(Chip::SM90a, 128, 384, false, false), 128);
  EXPECT_EQ(groupedGemmBlockN(Chip::SM90a, 128, 4096, true, false), 128);
  EXPECT_EQ(groupedGemmBlockN(Chip::SM90a, 128, 4096, false, true), 128);
  EXPECT_EQ(groupedGemmBlockN(Chip::SM100a, 128, 4096, false, false), 128);
  EXPECT_EQ(groupedGemmBlockN(Chip::SM90a, 64, 4096, false, false), 256);
  // BLOCK_M 256 is built with BLOCK_N 128 only.
  EXPECT_EQ(groupedGemmBlockN(Chip::SM90a, 256, 4096, false, false), 128);
}

TEST(Heuristics, UnrolledStageCount) {
  EXPECT_EQ(unrolledStageCount(5, 56), 4); // one stage given up
  EXPECT_EQ(unrolledStageCount(8, 56), 8);
  EXPECT_EQ(unrolledStageCount(6, 24), 6);
  EXPECT_EQ(unrolledStageCount(7, 16), 7); // 4 would give up 3: rolled
  EXPECT_EQ(unrolledStageCount(5, 18), 5); // no divisor in [4, 5]
  EXPECT_EQ(unrolledStageCount(3, 16), 3); // below 4: rolled
}

TEST(Heuristics, GroupedGemmClusterAndPrefetch) {
  GemmProblem g;
  g.blockN = 256;
  EXPECT_EQ(groupedGemmClusterM(g), 2);
  EXPECT_TRUE(groupedGemmScalePrefetch(g));
  GemmProblem layer = g;
  layer.staticM = 4096; // a layer GEMM: no cluster form
  EXPECT_EQ(groupedGemmClusterM(layer), 1);
  GemmProblem narrow = g;
  narrow.blockN = 128;
  EXPECT_EQ(groupedGemmClusterM(narrow), 1);
  EXPECT_FALSE(groupedGemmScalePrefetch(narrow));
  GemmProblem small = g;
  small.blockM = 64;
  EXPECT_EQ(groupedGemmClusterM(small), 1);
  GemmProblem sm100 = g;
  sm100.chip = Chip::SM100a;
  EXPECT_EQ(groupedGemmClusterM(sm100), 1);
}

// tmaWarps 1: the TMA role is warp 0 and warps 1-3 an idle role at the
// producer's registers (setmaxnreg is warpgroup-wide), so the register
// budget and the setmaxnreg balance are those of the four-warp plan.
TEST(KernelPlan, OneTmaWarpLeavesThreeIdleWarps) {
  GemmProblem g = gemm(4096, 7168, 128);
  g.blockN = 256;
  g.clusterM = 2;
  g.tmaWarps = 1;
  KernelPlan p = planGroupedGemmKernel(g);
  EXPECT_TRUE(validateKernelPlan(p).empty());
  EXPECT_EQ(p.producerRole().warpBegin, 0);
  EXPECT_EQ(p.producerRole().warpEnd, 1);
  ASSERT_TRUE(p.idleRole());
  EXPECT_EQ(p.idleRole()->warpBegin, 1);
  EXPECT_EQ(p.idleRole()->warpEnd, 4);
  EXPECT_EQ(p.idleRole()->registers, p.producerRole().registers);
  EXPECT_FALSE(p.idleRole()->mma);
  EXPECT_EQ(p.threads, 384);
  EXPECT_EQ(p.roles[1].name, "math0");
  // Without the idle role the math warpgroups' increase would not be
  // covered by warpgroup 0's decrease (validateKernelPlan counts role warps).
  KernelPlan missing = p;
  missing.roles.pop_back();
  EXPECT_FALSE(validateKernelPlan(missing).empty());
  g.tmaWarps = 4;
  EXPECT_FALSE(planGroupedGemmKernel(g).idleRole());
}

TEST(Heuristics, GroupedGemmTmaWarps) {
  GemmProblem g;
  g.blockN = 256;
  g.clusterM = 2;
  EXPECT_EQ(groupedGemmTmaWarps(g), 1);
  GemmProblem single = g;
  single.clusterM = 1;
  EXPECT_EQ(groupedGemmTmaWarps(single), 4);
  GemmProblem narrow = g;
  narrow.blockN = 128;
  EXPECT_EQ(groupedGemmTmaWarps(narrow), 4);
}
