//===- SmemModelTest.cpp - the shared-memory layout rule ------------------===//
#include "Shapes.h"

#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/SmemModel.h"

#include <gtest/gtest.h>

using namespace megamoe::config;
using namespace megamoe::config::testing;

namespace {

TEST(SmemModel, AlignsEachRegionInOrder) {
  std::vector<SmemRegionPlan> r = {
      {"a", 100, 1, 1}, {"b", 256, 2, 1024}, {"c", 16, 3, 8}, {"d", 1, 1, 0}};
  EXPECT_EQ(layoutSmem(r), 1024 + 512 + 48 + 1);
  EXPECT_EQ(r[0].offset, 0);
  EXPECT_EQ(r[1].offset, 1024);
  EXPECT_EQ(r[2].offset, 1536);
  EXPECT_EQ(r[3].offset, 1584); // alignment 0 counts as 1
  EXPECT_EQ(layoutSmem(r, 128), 1664);
}

TEST(SmemModel, EmptyLayoutIsZero) {
  std::vector<SmemRegionPlan> none;
  EXPECT_EQ(layoutSmem(none, 128), 0);
}

/// The fused plan's SharedMemoryUsage is laid out by the same rule; for
/// every valid tile its total is the sum of the regions (no padding), as
/// the plan computed it before the regions existed.
TEST(SmemModel, FusedUsageIsTheSumOfItsRegions) {
  for (int64_t requant : {128, 64})
    for (LayerConfig c : {v4Flash(8, 8192), v4Pro(8, 8192), mimo(2, 512)}) {
      c.recipe.requantBlock = requant;
      Plan p;
      ASSERT_TRUE(makePlan(c, {}, p).empty());
      for (const Variant &v : p.variants) {
        SharedMemoryUsage u = sharedMemoryUsage(c, p.roles, v);
        int64_t sum = u.fixed + v.stages * u.perStage + u.otherBarriers;
        EXPECT_EQ(u.total, (sum + 127) / 128 * 128);
        ASSERT_EQ(u.regions.size(), 9u);
        EXPECT_EQ(u.regions[4].name, "stage_a");
        EXPECT_EQ(u.regions[4].offset, u.fixed);
        EXPECT_EQ(u.regions[4].slots, v.stages);
      }
    }
}

} // namespace
