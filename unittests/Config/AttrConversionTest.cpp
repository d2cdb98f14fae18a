//===- AttrConversionTest.cpp - #megamoe.config/plan <-> config library --===//
//
// The attributes are the IR form of LayerConfig and Plan: converting there and
// back must lose nothing, or the verifier would check a different plan than
// the one the pass chose.
//
//===----------------------------------------------------------------------===//
#include "Shapes.h"

#include "megamoe/Config/Print.h"
#include "megamoe/Dialect/MegaMoE/IR/MegaMoE.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace megamoe::config;
using namespace megamoe::config::testing;

namespace {

TEST(AttrConversion, ConfigAndPlanRoundTrip) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::megamoe::MegaMoEDialect>();
  for (LayerConfig c : {v4Flash(8, 8), v4Pro(2, 8192), mimo(8, 512)}) {
    c.recipe.requantBlock = c.ranks == 2 ? 64 : 128;
    c.clamp = c.ranks == 2 ? std::optional<double>(7.5) : std::nullopt;
    c.fastMath = c.ranks == 8;
    Plan p;
    ASSERT_TRUE(makePlan(c, {}, p).empty());
    auto configAttr = mlir::megamoe::ConfigAttr::get(&context, c);
    auto planAttr = mlir::megamoe::PlanAttr::get(&context, p);
    LayerConfig c2 = configAttr.getLayerConfig();
    Plan p2 = planAttr.getPlan();
    EXPECT_EQ(planToJson(c2, p2), planToJson(c, p));
  }
}

// The split plan's half blocks (expert_align 64) through #megamoe.plan.
TEST(AttrConversion, SplitPlanWithHalfBlocksRoundTrips) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::megamoe::MegaMoEDialect>();
  LayerConfig c = v4Flash(1, 8192);
  PlanOverrides o;
  o.schedule = Schedule::Split;
  Plan p;
  ASSERT_TRUE(makePlan(c, o, p).empty());
  ASSERT_TRUE(p.variants.back().halfBlocks());
  Plan p2 = mlir::megamoe::PlanAttr::get(&context, p).getPlan();
  EXPECT_EQ(p2.variants.back().expertAlign, 64);
  EXPECT_EQ(planToJson(c, p2), planToJson(c, p));
}

// l1_pull (omitted from the IR when false) through #megamoe.plan.
TEST(AttrConversion, SplitPlanWithL1PullRoundTrips) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::megamoe::MegaMoEDialect>();
  LayerConfig c = v4Flash(1, 8192);
  c.fastMath = true;
  PlanOverrides o;
  o.schedule = Schedule::Split;
  for (bool pull : {true, false}) {
    o.l1Pull = pull;
    Plan p;
    ASSERT_TRUE(makePlan(c, o, p).empty());
    auto attr = mlir::megamoe::PlanAttr::get(&context, p);
    for (mlir::Attribute v : attr.getVariants())
      EXPECT_EQ(mlir::cast<mlir::megamoe::VariantAttr>(v).getL1Pull(), pull);
    Plan p2 = attr.getPlan();
    for (const Variant &v : p2.variants)
      EXPECT_EQ(v.l1Pull, pull);
    EXPECT_EQ(planToJson(c, p2), planToJson(c, p));
  }
}

// k_split (omitted from the IR when 1) through #megamoe.plan.
TEST(AttrConversion, KSplitRoundTrips) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::megamoe::MegaMoEDialect>();
  LayerConfig c = v4Flash(1, 8192);
  PlanOverrides o;
  o.schedule = Schedule::Split;
  o.kSplit = 4;
  Plan p;
  ASSERT_TRUE(makePlan(c, o, p).empty());
  auto attr = mlir::megamoe::PlanAttr::get(&context, p);
  auto first = mlir::cast<mlir::megamoe::VariantAttr>(attr.getVariants()[0]);
  EXPECT_EQ(first.getKSplit(), 4);
  Plan p2 = attr.getPlan();
  EXPECT_EQ(p2.variants[0].kSplit, 4);
  EXPECT_EQ(p2.variants[1].kSplit, 1);
  EXPECT_EQ(planToJson(c, p2), planToJson(c, p));
}

TEST(AttrConversion, GetCheckedReportsTheRules) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::megamoe::MegaMoEDialect>();
  std::vector<std::string> messages;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    messages.push_back(d.str());
    return mlir::success();
  });
  auto emitError = [&] {
    return mlir::emitError(mlir::UnknownLoc::get(&context));
  };
  auto attr = mlir::megamoe::ConfigAttr::getChecked(
      emitError, &context, shape(4096, 2048, 256, 6, 3, 8));
  EXPECT_FALSE(attr);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("R = 3"), std::string::npos) << messages[0];
}

} // namespace
