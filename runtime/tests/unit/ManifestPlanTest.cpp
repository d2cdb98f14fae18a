//===- ManifestPlanTest.cpp - the compiler's plan read back from a manifest ===//
//
// A layer manifest carries the config and plan planToJson wrote; the runtime
// reads them with planFromJson and checks the rest of the manifest (buffer
// layout, variants, symbols, chip) against them. Plan in, plan out, equal;
// any part that disagrees is rejected naming the field.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "megamoe/runtime/Manifest.h"

#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Print.h"

using namespace megamoe;
using rt::ErrorKind;

namespace {

struct Shape {
  int64_t H, I, E, K, R, T;
  bool unfused;
};

config::LayerConfig layerConfig(const Shape &s) {
  config::LayerConfig c;
  c.hidden = s.H;
  c.intermediate = s.I;
  c.experts = s.E;
  c.topk = s.K;
  c.ranks = s.R;
  c.maxTokensPerRank = s.T;
  c.clamp = 10.0;
  return c;
}

config::Plan makePlan(const config::LayerConfig &c, bool unfused) {
  config::PlanOverrides o;
  if (unfused)
    o.schedule = config::Schedule::Unfused;
  config::Plan plan;
  std::vector<std::string> problems = config::makePlan(c, o, plan);
  EXPECT_TRUE(problems.empty()) << problems.front();
  return plan;
}

/// A manifest around planToJson's {"config", "plan", "buffer_layout"}:
/// one kernel without parameters and `extra` top-level members.
std::string manifestFor(const config::LayerConfig &c, const config::Plan &p,
                        const std::string &extra = "") {
  std::string doc = config::planToJson(c, p);
  std::string inner = doc.substr(doc.find('{') + 1);
  inner = inner.substr(0, inner.rfind('}'));
  return R"({"format": "megamoe-manifest", "version": 2, "chip": ")" +
         std::string(config::toString(c.chip)) +
         R"(", "cubin": "layer.cubin", "kernels": [{"name": "k",
          "block": [384, 1, 1], "grid": [{"ctas": "num_sms"}, 1, 1], "params": []}],)" +
         extra + inner + "}";
}

/// `text` with the first `from` replaced by `to`.
std::string replaced(std::string text, const std::string &from,
                     const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

class ManifestPlan : public ::testing::TestWithParam<Shape> {};

TEST_P(ManifestPlan, PlanInPlanOutEqual) {
  config::LayerConfig c = layerConfig(GetParam());
  config::Plan plan = makePlan(c, GetParam().unfused);
  rt::Manifest m = rt::parseManifest(manifestFor(c, plan));
  ASSERT_TRUE(m.config && m.plan);
  // planToJson prints every field planFromJson reads: equal text, equal plan.
  EXPECT_EQ(config::planToJson(*m.config, *m.plan), config::planToJson(c, plan));
  EXPECT_EQ(m.plan->variants.size(), plan.variants.size());
  EXPECT_EQ(m.config->clamp, c.clamp);
  config::BufferLayout layout = config::computeBufferLayout(c, plan);
  ASSERT_TRUE(m.bufferLayout);
  EXPECT_EQ(m.bufferLayout->totalBytes, (uint64_t)layout.totalBytes);
  ASSERT_EQ(m.bufferLayout->regions.size(), layout.regions.size());
  for (size_t i = 0; i < layout.regions.size(); ++i) {
    EXPECT_EQ(m.bufferLayout->regions[i].name, layout.regions[i].name);
    EXPECT_EQ(m.bufferLayout->regions[i].offset,
              (uint64_t)layout.regions[i].offset);
  }
}

// V4-Flash and V4-Pro (DESIGN anchors), fused and unfused, and a tiny layer.
INSTANTIATE_TEST_SUITE_P(
    Anchors, ManifestPlan,
    ::testing::Values(Shape{4096, 2048, 256, 6, 8, 512, false},
                      Shape{4096, 2048, 256, 6, 8, 8192, true},
                      Shape{7168, 3072, 384, 6, 8, 8192, false},
                      Shape{7168, 3072, 384, 6, 1, 8192, true},
                      Shape{512, 256, 8, 2, 2, 256, true}));

Shape small() { return Shape{512, 256, 8, 2, 2, 256, true}; }

TEST(ManifestPlanChecks, ALayoutThatIsNotTheComputedOneIsRejected) {
  config::LayerConfig c = layerConfig(small());
  config::Plan plan = makePlan(c, true);
  config::BufferLayout layout = config::computeBufferLayout(c, plan);
  std::string total = "\"total_bytes\": " + std::to_string(layout.totalBytes);
  EXPECT_RT_ERROR(
      rt::parseManifest(replaced(
          manifestFor(c, plan), total,
          "\"total_bytes\": " + std::to_string(layout.totalBytes + 128))),
      ErrorKind::Manifest,
      "manifest: buffer_layout.total_bytes: " +
          std::to_string(layout.totalBytes + 128) +
          " but computeBufferLayout(config, plan) gives " +
          std::to_string(layout.totalBytes));
  EXPECT_RT_ERROR(rt::parseManifest(replaced(manifestFor(c, plan),
                                             "\"name\": \"l1_pool\"",
                                             "\"name\": \"l1_pool2\"")),
                  ErrorKind::Manifest,
                  "'l1_pool2' but computeBufferLayout gives 'l1_pool'");
}

TEST(ManifestPlanChecks, VariantsSymbolsAndChipMustBeThePlans) {
  config::LayerConfig c = layerConfig(small());
  config::Plan plan = makePlan(c, true);
  ASSERT_EQ(plan.variants.size(), 2u);
  const config::Variant &v0 = plan.variants[0], &v1 = plan.variants[1];
  auto variant = [](int64_t lo, int64_t hi, int64_t bm) {
    return "{\"min_tokens\": " + std::to_string(lo) +
           ", \"max_tokens\": " + std::to_string(hi) +
           ", \"block_m\": " + std::to_string(bm) +
           ", \"schedule\": [\"k\"]}";
  };
  std::string t = "\"symbols\": {\"T\": 256}, ";
  std::string good = t + "\"variants\": [" +
                     variant(0, v0.maxTokens, v0.blockM) + ", " +
                     variant(v1.minTokens, 256, v1.blockM) + "], ";
  rt::Manifest m = rt::parseManifest(manifestFor(c, plan, good));
  EXPECT_EQ(m.variants.size(), 2u);
  std::string wrongBlock = t + "\"variants\": [" +
                           variant(0, v0.maxTokens, 128) + ", " +
                           variant(v1.minTokens, 256, v1.blockM) + "], ";
  EXPECT_RT_ERROR(rt::parseManifest(manifestFor(c, plan, wrongBlock)),
                  ErrorKind::Manifest,
                  "manifest: variants[0]: [0, " +
                      std::to_string(v0.maxTokens) +
                      "] block_m 128 but the plan's variant is");
  EXPECT_RT_ERROR(rt::parseManifest(manifestFor(
                      c, plan, "\"symbols\": {\"H\": 1024}, ")),
                  ErrorKind::Manifest,
                  "manifest: symbols.H: 1024 but config gives 512");
  EXPECT_RT_ERROR(
      rt::parseManifest(replaced(manifestFor(c, plan), "\"chip\": \"sm_90a\"",
                                 "\"chip\": \"sm_100a\"")),
      ErrorKind::Manifest,
      "manifest: config.chip: sm_90a but the manifest's chip is sm_100a");
}

TEST(ManifestPlanChecks, ASingleScheduleIsThePlansOneVariant) {
  config::LayerConfig c = layerConfig(Shape{512, 256, 8, 2, 2, 64, true});
  config::Plan plan = makePlan(c, true);
  ASSERT_EQ(plan.variants.size(), 1u);
  rt::Manifest m =
      rt::parseManifest(manifestFor(c, plan, "\"schedule\": [\"k\"], "));
  std::vector<rt::ScheduleVariant> v = m.scheduleVariants();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].minTokens, 0);
  EXPECT_EQ(v[0].maxTokens, 64);
  EXPECT_EQ(v[0].blockM, plan.variants[0].blockM);
  config::LayerConfig c2 = layerConfig(small());
  config::Plan two = makePlan(c2, true);
  EXPECT_RT_ERROR(
      rt::parseManifest(manifestFor(c2, two, "\"schedule\": [\"k\"], ")),
      ErrorKind::Manifest,
      "manifest: schedule: one schedule but the plan has 2 variants");
}

TEST(ManifestPlanChecks, MissingOrBrokenPlansAreNamed) {
  config::LayerConfig c = layerConfig(small());
  config::Plan plan = makePlan(c, true);
  std::string text = manifestFor(c, plan);
  EXPECT_RT_ERROR(rt::parseManifest(replaced(text, "\"plan\":", "\"plan_\":")),
                  ErrorKind::Manifest,
                  "manifest: plan: missing; a layer manifest has both");
  EXPECT_RT_ERROR(
      rt::parseManifest(replaced(text, "\"hidden\":", "\"hidden_\":")),
      ErrorKind::Manifest, "manifest: config: config.hidden is missing");
  EXPECT_RT_ERROR(
      rt::parseManifest(replaced(text, "\"topk\": 2", "\"topk\": 9")),
      ErrorKind::Manifest, "manifest: config: top-k (K = 9)");
  EXPECT_RT_ERROR(
      rt::parseManifest(replaced(text, "\"schedule\": \"unfused\"",
                                 "\"schedule\": \"sideways\"")),
      ErrorKind::Manifest, "plan.schedule: unknown value \"sideways\"");
}

} // namespace
