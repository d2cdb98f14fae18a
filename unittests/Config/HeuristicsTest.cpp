//===- HeuristicsTest.cpp - each plan choice against hand-computed values ==//
#include "Shapes.h"

#include "megamoe/Config/Heuristics.h"

#include <gtest/gtest.h>

using namespace megamoe::config;
using namespace megamoe::config::testing;

namespace {

TEST(Heuristics, ExpectedTokensPerExpert) {
  // T * R * K / E: V4-Flash EP8 = 48/256 per token.
  EXPECT_DOUBLE_EQ(expectedTokensPerExpert(v4Flash(8, 8192), 8), 1.5);
  EXPECT_DOUBLE_EQ(expectedTokensPerExpert(v4Pro(8, 8192), 8192), 1024.0);
  EXPECT_DOUBLE_EQ(expectedTokensPerExpert(v4Pro(8, 8192), 0), 0.0);
}

TEST(Heuristics, BucketBoundsInTokens) {
  // 16.5 * 256 / 48 = 88; 64.5 * 256 / 48 = 344.
  EXPECT_EQ(maxTokensForExpected(v4Flash(8, 8192), 16.5), 88);
  EXPECT_EQ(maxTokensForExpected(v4Flash(8, 8192), 64.5), 344);
  EXPECT_EQ(maxTokensForExpected(v4Flash(8, 50), 64.5), 50); // capped at T
  EXPECT_EQ(maxTokensForExpected(v4Pro(2, 8192), 16.5), 528);
}

TEST(Heuristics, BucketsPerRequantBlock) {
  std::vector<BlockMBucket> b128 = blockMBuckets(128);
  ASSERT_EQ(b128.size(), 2u);
  EXPECT_EQ(b128[0].blockM, 32);
  EXPECT_EQ(b128[1].blockM, 64);
  EXPECT_EQ(b128[1].mathMode, MathMode::CooperativeN);
  std::vector<BlockMBucket> b64 = blockMBuckets(64);
  ASSERT_EQ(b64.size(), 3u);
  EXPECT_EQ(b64[2].blockM, 128);
  EXPECT_EQ(b64[2].mathMode, MathMode::CooperativeM);
  EXPECT_EQ(b64[0].mathMode, MathMode::Single);
}

TEST(Heuristics, TileWidths) {
  EXPECT_EQ(defaultL1BlockN(128), 256);
  EXPECT_EQ(defaultL1BlockN(64), 128);
  EXPECT_EQ(defaultL2BlockN(v4Pro(8, 8), MathMode::CooperativeN), 256);
  EXPECT_EQ(
      defaultL2BlockN(shape(384, 128, 8, 2, 2, 1), MathMode::CooperativeN),
      128); // H = 384 is not a multiple of 256
  EXPECT_EQ(defaultL2BlockN(v4Pro(8, 8), MathMode::CooperativeM), 128);
}

TEST(Heuristics, Registers) {
  EXPECT_EQ(entryRegisters(Chip::SM90a, 384),
            168); // 65536 / 384 = 170.67 -> 168
  EXPECT_EQ(entryRegisters(Chip::SM90a, 128), 255 / 8 * 8);
  EXPECT_EQ(mathRegistersNeeded(128), 192);
  EXPECT_EQ(mathRegistersNeeded(256), 320);
  RegisterBudget r = defaultRegisters();
  EXPECT_EQ(128 * r.producer + 256 * r.math, 63488);
}

TEST(Heuristics, PullChunk) {
  EXPECT_EQ(pullChunkBytes(7168), 3584);
  EXPECT_EQ(pullChunkBytes(4096), 4096);
  EXPECT_EQ(pullChunkBytes(2 * 7168), 3584);
  EXPECT_EQ(pullChunkBytes(384), 384);
}

TEST(Heuristics, SharedMemoryHandComputed) {
  // V4-Pro, BLOCK_M 64 cooperative-n, 256-wide tiles, BLOCK_K 128, 4 stages.
  LayerConfig c = v4Pro(8, 8192);
  Variant v;
  v.blockM = 64;
  v.l1BlockN = 256;
  v.l2BlockN = 256;
  v.blockK = 128;
  v.mathMode = MathMode::CooperativeN;
  v.stages = 4;
  SharedMemoryUsage u = sharedMemoryUsage(c, RoleLayout(), v);
  EXPECT_EQ(u.expertCounts, 2048); // 384 * 4 = 1536 -> 1024-aligned
  EXPECT_EQ(u.pullBuffers, 7168);  // 2 warps * 3584
  EXPECT_EQ(u.staging, 32768);     // max(64*128*2, 64*256*2 B)
  EXPECT_EQ(u.amaxExchange, 1024); // 64 rows * 2 WGs * 4 B -> 1024
  EXPECT_EQ(u.fixed, 43008);
  EXPECT_EQ(u.stageA, 8192);     // 64 x 128 FP8
  EXPECT_EQ(u.stageB, 32768);    // 256 x 128 FP8
  EXPECT_EQ(u.stageScales, 256); // 64 rows * 1 scale * 4 B
  EXPECT_EQ(u.perStage, 8192 + 32768 + 256 + 16);
  EXPECT_EQ(u.otherBarriers, (2 + 16) * 8);
  EXPECT_EQ(u.total, 208128); // 43008 + 4*41232 + 144 -> 128-aligned
  EXPECT_EQ(maxStagesThatFit(c, RoleLayout(), v), 4); // 5 would be 249,344
}

TEST(Heuristics, SharedMemoryCooperativeM) {
  // seeds/004 section 8.2: BLOCK_M 128 x 128 x 128 is ~33 KB/stage, 5 stages.
  LayerConfig c = v4Pro(8, 8192);
  c.recipe.requantBlock = 64;
  Variant v;
  v.blockM = 128;
  v.l1BlockN = 128;
  v.l2BlockN = 128;
  v.blockK = 128;
  v.mathMode = MathMode::CooperativeM;
  v.stages = 0;
  SharedMemoryUsage u = sharedMemoryUsage(c, RoleLayout(), v);
  EXPECT_EQ(u.amaxExchange, 0);
  EXPECT_EQ(u.stageScales, 128 * 2 * 4); // two per-64 scales per row
  EXPECT_EQ(u.perStage, 16384 + 16384 + 1024 + 16);
  EXPECT_EQ(maxStagesThatFit(c, RoleLayout(), v), 5);
}

TEST(Heuristics, WorstCasePool) {
  // 8 ranks * 8 tokens * min(6, 32) + 32 experts * 31 padding = 1376 -> 1408.
  EXPECT_EQ(worstCasePoolTokens(v4Flash(8, 8), 32), 1408);
  // K = E: a token lands on every local expert: 2*1*min(4,2) + 2*31 -> 128.
  EXPECT_EQ(worstCasePoolTokens(shape(128, 128, 4, 4, 2, 1), 32), 128);
  // V4-Pro EP8 T=8192: 393,216 rows + padding, ~4.2 GB of pool.
  EXPECT_EQ(worstCasePoolTokens(v4Pro(8, 8192), 64), 396288);
}

TEST(Heuristics, PoolIsRingOfTwoBlocksPerSM) {
  EXPECT_EQ(defaultPoolTokens(v4Pro(8, 8192), 132, 64), 2 * 132 * 64);
  EXPECT_EQ(defaultPoolTokens(v4Flash(8, 8), 132, 32), 1408); // worst is less
}

TEST(Heuristics, ExpertsPerWave) {
  Variant v;
  v.blockM = 64;
  v.l1BlockN = 256;
  // 1024 tokens/expert: 16 m-blocks * 24 n-blocks >= 132 SMs -> 1.
  EXPECT_EQ(expertsPerWave(v4Pro(8, 8192), v, 8192, 132, 16896), 1);
  // Under one token per expert: every local expert in one wave.
  v.blockM = 32;
  EXPECT_EQ(expertsPerWave(v4Pro(2, 8), v, 1, 132, 6144), 192);
  // The ring caps a wave: 1024 rows of pool fit 32 one-block experts.
  EXPECT_EQ(expertsPerWave(v4Pro(2, 8), v, 1, 132, 1024), 32);
  // V4-Flash EP8, 8 tokens: 16 blocks/expert, minimum wave ceil(264/16) = 17;
  // 24 fills 3+1 waves of 132 as well as 32 does, and is smaller.
  EXPECT_EQ(expertsPerWave(v4Flash(8, 8), v, 8, 132, 1408), 24);
  // Fewer SMs: the same sweep gives a smaller wave.
  EXPECT_LE(expertsPerWave(v4Flash(8, 8), v, 8, 16, 1408), 4);
}

} // namespace
