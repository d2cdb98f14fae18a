//===- BufferLayoutTest.cpp - the symmetric buffer's regions
//---------------===//
#include "Shapes.h"

#include "megamoe/Config/BufferLayout.h"

#include <gtest/gtest.h>

using namespace megamoe::config;
using namespace megamoe::config::testing;

namespace {

BufferLayout layoutOf(const LayerConfig &c, Plan *planOut = nullptr) {
  Plan p;
  std::vector<std::string> errors = makePlan(c, {}, p);
  for (const std::string &e : errors)
    ADD_FAILURE() << e;
  if (planOut)
    *planOut = p;
  return computeBufferLayout(c, p);
}

int64_t bytesOf(const BufferLayout &l, const std::string &name) {
  const Region *r = l.find(name);
  EXPECT_NE(r, nullptr) << name;
  return r ? r->bytes : -1;
}

// Aligned, ordered, non-overlapping, inside the total; sizes = shape x element.
void expectWellFormed(const BufferLayout &l) {
  ASSERT_FALSE(l.regions.empty());
  int64_t end = 0;
  for (const Region &r : l.regions) {
    EXPECT_EQ(r.offset % BufferLayout::kAlignment, 0) << r.name;
    EXPECT_GE(r.offset, end) << r.name << " overlaps the region before it";
    int64_t product = r.elementBytes;
    for (int64_t d : r.shape)
      product *= d;
    EXPECT_EQ(r.bytes, product) << r.name;
    EXPECT_GT(r.bytes, 0) << r.name;
    end = r.offset + r.bytes;
  }
  EXPECT_GE(l.totalBytes, end);
  EXPECT_EQ(l.totalBytes % BufferLayout::kAlignment, 0);
  EXPECT_EQ(l.workspaceBytes, l.find("x")->offset); // counters come first
}

TEST(BufferLayout, WellFormedForEveryAnchor) {
  for (int64_t R : {1, 2, 8})
    for (int64_t T : {1, 8, 512, 8192})
      for (const LayerConfig &c :
           {v4Flash(R, T), v4Pro(R, T), mimo(R, T),
            shape(7168, 2048, 48, 6, R, T), shape(7168, 3072, 48, 6, R, T)})
        expectWellFormed(layoutOf(c));
}

TEST(BufferLayout, SmallestLayerByHand) {
  // H = I = 128, E = 2, K = 2, R = 2, T = 1: one local expert, pool 128 rows.
  BufferLayout l = layoutOf(shape(128, 128, 2, 2, 2, 1));
  expectWellFormed(l);
  struct Expect {
    const char *name;
    int64_t offset, bytes;
  } expected[] = {
      {"barriers", 0, 128},
      {"expert_send_count", 128, 16},
      {"expert_recv_count", 256, 16},
      {"expert_recv_count_sum", 384, 8},
      {"l1_full", 512, 16},
      {"l1_empty", 640, 16},
      {"l2_full", 768, 16},
      {"l2_empty", 896, 16},
      {"x", 1024, 128},
      {"x_sf", 1152, 4},
      {"topk_idx", 1280, 16},
      {"topk_weights", 1408, 8},
      {"src_token_index", 1536, 8},
      {"l1_pool", 1664, 16384},
      {"l1_pool_sf", 18048, 512},
      {"l1_pool_weight", 18560, 512},
      {"pool_source", 19072, 1536},
      {"l2_pool", 20608, 16384},
      {"l2_pool_sf", 36992, 512},
      {"combine", 37504, 512},
  };
  ASSERT_EQ(l.regions.size(), std::size(expected));
  for (size_t i = 0; i < l.regions.size(); ++i) {
    EXPECT_EQ(l.regions[i].name, expected[i].name);
    EXPECT_EQ(l.regions[i].offset, expected[i].offset) << expected[i].name;
    EXPECT_EQ(l.regions[i].bytes, expected[i].bytes) << expected[i].name;
  }
  EXPECT_EQ(l.workspaceBytes, 1024);
  EXPECT_EQ(l.totalBytes, 38016);
}

TEST(BufferLayout, TopkEqualsExperts) {
  // K = E = 4 on 2 ranks: every token lands on both local experts.
  Plan p;
  BufferLayout l = layoutOf(shape(128, 128, 4, 4, 2, 1), &p);
  expectWellFormed(l);
  EXPECT_EQ(p.poolTokens, 128); // 2*1*2 + 2*31 = 66 -> 128
  EXPECT_EQ(bytesOf(l, "topk_idx"), 1 * 4 * 8);
  EXPECT_EQ(bytesOf(l, "combine"), 4 * 1 * 128 * 2);
  EXPECT_EQ(bytesOf(l, "src_token_index"), 2 * 2 * 1 * 4);
}

TEST(BufferLayout, V4FlashEP8At8192ByHand) {
  Plan p;
  BufferLayout l = layoutOf(v4Flash(8, 8192), &p);
  const int64_t T = 8192, H = 4096, I = 2048, K = 6, P = 16896;
  ASSERT_EQ(p.poolTokens, P);
  EXPECT_EQ(bytesOf(l, "x"), T * H);
  EXPECT_EQ(bytesOf(l, "x_sf"), T * (H / 128) * 4);
  EXPECT_EQ(bytesOf(l, "topk_idx"), T * K * 8);
  EXPECT_EQ(bytesOf(l, "combine"), K * T * H * 2);
  EXPECT_EQ(bytesOf(l, "l1_pool"), P * H);
  EXPECT_EQ(bytesOf(l, "l2_pool"), P * I);
  EXPECT_EQ(bytesOf(l, "l2_pool_sf"), (I / 128) * P * 4);
  EXPECT_EQ(bytesOf(l, "src_token_index"), 32 * 8 * T * 4);
  EXPECT_EQ(bytesOf(l, "l1_full"), (P / 32) * 4);
  // The big regions plus at most one alignment pad per region.
  int64_t sum = 0;
  for (const Region &r : l.regions)
    sum += r.bytes;
  EXPECT_GE(l.totalBytes, sum);
  EXPECT_LT(l.totalBytes, sum + int64_t(l.regions.size()) * 128);
}

TEST(BufferLayout, Requant64DoublesL2Scales) {
  LayerConfig c = v4Flash(8, 512);
  c.recipe.requantBlock = 64;
  Plan p;
  BufferLayout l = layoutOf(c, &p);
  EXPECT_EQ(bytesOf(l, "l2_pool_sf"), (2048 / 64) * p.poolTokens * 4);
}

TEST(BufferLayout, V4ProAt8192MeetsTheTarget) {
  // ANCHORS.md: <= 1.2 GiB per rank for V4-Pro at 8192 tokens/rank.
  const int64_t target = int64_t(1.2 * (1 << 30));
  for (int64_t R : {2, 8})
    EXPECT_LE(layoutOf(v4Pro(R, 8192)).totalBytes, target) << "EP" << R;
}

TEST(BufferLayout, IndependentOfTheVariant) {
  // Ranks may run different variants in one call: the layout must not depend
  // on which one (only on config and plan).
  Plan p;
  LayerConfig c = v4Flash(8, 8192);
  BufferLayout a = layoutOf(c, &p);
  p.variants.erase(p.variants.begin());
  BufferLayout b = computeBufferLayout(c, p);
  EXPECT_EQ(a.totalBytes, b.totalBytes);
}

} // namespace

namespace {

BufferLayout unfusedLayoutOf(const LayerConfig &c) {
  PlanOverrides o;
  o.schedule = Schedule::Unfused;
  Plan p;
  for (const std::string &e : makePlan(c, o, p))
    ADD_FAILURE() << e;
  return computeBufferLayout(c, p);
}

TEST(UnfusedBufferLayout, WellFormedForEveryAnchor) {
  for (int64_t R : {1, 2, 8})
    for (int64_t T : {1, 8, 512})
      for (const LayerConfig &c : {v4Flash(R, T), v4Pro(R, T), mimo(R, T)})
        expectWellFormed(unfusedLayoutOf(c));
}

TEST(UnfusedBufferLayout, SmallLayerByHand) {
  // H = 512, I = 256, E = 8, K = 2, R = 2, T = 64: L = 4, 32 expected rows
  // per expert -> BLOCK_M 64, pool = 2 x 64 x 2 + 4 x 63 = 508 -> 512 rows.
  BufferLayout l = unfusedLayoutOf(shape(512, 256, 8, 2, 2, 64));
  EXPECT_EQ(bytesOf(l, "barriers"), 32 * 4);
  EXPECT_EQ(bytesOf(l, "send_count"), 8 * 4);
  EXPECT_EQ(bytesOf(l, "errors"), 4 * 4);
  EXPECT_EQ(l.workspaceBytes, 3 * 128);
  EXPECT_EQ(bytesOf(l, "recv_count"), 2 * 4 * 4);
  EXPECT_EQ(bytesOf(l, "src_token_index"), 4 * 2 * 64 * 2 * 4);
  EXPECT_EQ(bytesOf(l, "pool_row_start"), 4 * 3 * 4);
  EXPECT_EQ(bytesOf(l, "pool_block_expert"), 512 / 64 * 4);
  EXPECT_EQ(bytesOf(l, "l1_pool"), 512 * 512);
  EXPECT_EQ(bytesOf(l, "l1_pool_sf"), 4 * 512 * 4);
  EXPECT_EQ(bytesOf(l, "l1_out"), 512 * 512 * 4);
  EXPECT_EQ(bytesOf(l, "l2_pool"), 512 * 256);
  EXPECT_EQ(bytesOf(l, "l2_pool_sf"), 2 * 512 * 4);
  // No l2_out: the L2 GEMM scatters its rows into the combine buffers.
  EXPECT_EQ(l.find("l2_out"), nullptr);
  EXPECT_EQ(bytesOf(l, "combine"), 2 * 64 * 512 * 2);
  EXPECT_EQ(l.find("l1_pool_sf")->shape, (std::vector<int64_t>{4, 512}));
}

} // namespace
