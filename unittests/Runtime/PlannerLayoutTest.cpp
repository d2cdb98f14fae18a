//===- PlannerLayoutTest.cpp - the planner's layout read by the runtime ---===//
//
// The contract between lib/Config (which places the symmetric-buffer regions
// and prints them as the manifest's "buffer_layout") and the runtime (which
// reads that field and exposes the input regions as typed views): every
// region survives the round trip, and the runtime's view sizes are the
// planner's region sizes.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Plan.h"
#include "megamoe/Config/Print.h"
#include "megamoe/runtime/LayerContract.h"
#include "megamoe/runtime/Manifest.h"

#include <gtest/gtest.h>

namespace {

using namespace megamoe;

struct Shape {
  int64_t H, I, E, K, R, T;
};

class PlannerLayout : public ::testing::TestWithParam<Shape> {};

TEST_P(PlannerLayout, RuntimeReadsThePlannersLayout) {
  const Shape s = GetParam();
  config::LayerConfig c;
  c.hidden = s.H;
  c.intermediate = s.I;
  c.experts = s.E;
  c.topk = s.K;
  c.ranks = s.R;
  c.maxTokensPerRank = s.T;
  config::Plan plan;
  std::vector<std::string> problems = config::makePlan(c, {}, plan);
  ASSERT_TRUE(problems.empty()) << problems.front();
  config::BufferLayout layout = config::computeBufferLayout(c, plan);

  std::string manifest =
      R"({"format": "megamoe-manifest", "version": 1, "chip": "sm_90a",
          "cubin": "layer.cubin", "kernels": [{"name": "k",
          "block": [384, 1, 1], "grid": ["num_sms", 1, 1], "params": []}],
          "buffer_layout": )" +
      config::layoutToJson(layout) + "}";
  rt::Manifest m = rt::parseManifest(manifest);
  ASSERT_TRUE(m.bufferLayout);
  EXPECT_EQ(m.bufferLayout->totalBytes, (uint64_t)layout.totalBytes);
  EXPECT_EQ(m.bufferLayout->workspaceBytes, (uint64_t)layout.workspaceBytes);
  ASSERT_EQ(m.bufferLayout->regions.size(), layout.regions.size());
  for (const config::Region &r : layout.regions) {
    const rt::BufferRegion *got = m.bufferLayout->find(r.name);
    ASSERT_TRUE(got) << r.name;
    EXPECT_EQ(got->offset, (uint64_t)r.offset) << r.name;
    EXPECT_EQ(got->bytes, (uint64_t)r.bytes) << r.name;
  }

  rt::LayerConfig rc;
  rc.hidden = s.H;
  rc.intermediate = s.I;
  rc.experts = s.E;
  rc.topk = s.K;
  rc.ranks = s.R;
  rc.maxTokens = s.T;
  for (const char *name : {"x", "x_sf", "topk_idx", "topk_weights"}) {
    rt::View v = rt::inputRegionType(rc, name);
    const config::Region *r = layout.find(name);
    ASSERT_TRUE(r) << name;
    EXPECT_EQ(v.shape, r->shape) << name;
    EXPECT_EQ(std::string(rt::dtypeName(v.dtype)), r->element) << name;
    EXPECT_LE(v.bytes, (uint64_t)r->bytes) << name;
  }
}

// V4-Flash and V4-Pro (DESIGN anchors) at a small and a large token bound.
INSTANTIATE_TEST_SUITE_P(Anchors, PlannerLayout,
                         ::testing::Values(Shape{4096, 2048, 256, 6, 8, 512},
                                           Shape{4096, 2048, 256, 6, 2, 8192},
                                           Shape{7168, 3072, 384, 6, 8, 8192},
                                           Shape{256, 128, 8, 8, 8, 1}));

} // namespace
