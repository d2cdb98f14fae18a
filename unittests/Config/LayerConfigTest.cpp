//===- LayerConfigTest.cpp - layer validation rules
//------------------------===//
#include "Shapes.h"

#include <gtest/gtest.h>

using namespace megamoe::config;
using namespace megamoe::config::testing;

namespace {

// The one message `c` gets; fails the test when there is not exactly one.
std::string onlyError(const LayerConfig &c) {
  std::vector<std::string> errors = validate(c);
  EXPECT_EQ(errors.size(), 1u);
  return errors.empty() ? std::string() : errors.front();
}

TEST(LayerConfig, AnchorShapesAreValid) {
  for (int64_t R : {1, 2, 8})
    for (int64_t T : {1, 8, 512, 8192}) {
      EXPECT_TRUE(validate(v4Flash(R, T)).empty());
      EXPECT_TRUE(validate(v4Pro(R, T)).empty());
      EXPECT_TRUE(validate(mimo(R, T)).empty());
      EXPECT_TRUE(validate(shape(7168, 2048, 48, 6, R, T)).empty());
      EXPECT_TRUE(validate(shape(7168, 3072, 48, 6, R, T)).empty());
    }
}

TEST(LayerConfig, EdgeCasesAreValid) {
  EXPECT_TRUE(validate(shape(128, 128, 4, 4, 2, 1)).empty()); // K = E, T = 1
  EXPECT_TRUE(
      validate(shape(128, 128, 72, 1, 72, 1)).empty()); // one expert/rank
}

TEST(LayerConfig, HiddenMultipleOf128) {
  std::string e = onlyError(shape(4000, 2048, 256, 6, 8, 8));
  EXPECT_NE(e.find("H = 4000"), std::string::npos) << e;
  EXPECT_NE(e.find("multiple of 128"), std::string::npos) << e;
}

TEST(LayerConfig, IntermediateMultipleOf128) {
  std::string e = onlyError(shape(4096, 2000, 256, 6, 8, 8));
  EXPECT_NE(e.find("I = 2000"), std::string::npos) << e;
}

TEST(LayerConfig, ExpertsDivisibleByRanks) {
  std::string e = onlyError(shape(4096, 2048, 256, 6, 3, 8));
  EXPECT_NE(e.find("E = 256"), std::string::npos) << e;
  EXPECT_NE(e.find("R = 3"), std::string::npos) << e;
}

TEST(LayerConfig, TopkWithinExperts) {
  std::string e = onlyError(shape(4096, 2048, 8, 9, 8, 8));
  EXPECT_NE(e.find("K = 9"), std::string::npos) << e;
  EXPECT_NE(e.find("1 <= K <= experts (E = 8)"), std::string::npos) << e;
  EXPECT_EQ(validate(shape(4096, 2048, 8, 0, 8, 8)).size(), 1u);
}

TEST(LayerConfig, TokensAtLeastOne) {
  std::string e = onlyError(shape(4096, 2048, 256, 6, 8, 0));
  EXPECT_NE(e.find("T = 0"), std::string::npos) << e;
}

TEST(LayerConfig, RanksWithinNVLinkDomain) {
  EXPECT_NE(onlyError(shape(4096, 2048, 146, 6, 73, 8)).find("R = 73"),
            std::string::npos);
}

TEST(LayerConfig, SlotIndicesFitI32) {
  std::string e = onlyError(shape(4096, 2048, 256, 8, 64, 1 << 22));
  EXPECT_NE(e.find("2^31"), std::string::npos) << e;
}

TEST(LayerConfig, ExpertsBounded) {
  EXPECT_NE(onlyError(shape(4096, 2048, 8192, 6, 8, 8)).find("E = 8192"),
            std::string::npos);
}

TEST(LayerConfig, RecipeRules) {
  LayerConfig c = v4Flash(8, 8);
  c.recipe.requantBlock = 32;
  EXPECT_NE(onlyError(c).find("(32) must be 128 or 64"), std::string::npos);
  c = v4Flash(8, 8);
  c.recipe.weight = DType::BF16;
  EXPECT_NE(onlyError(c).find("must be e4m3"), std::string::npos);
  c = v4Flash(8, 8);
  c.clamp = -1.0;
  EXPECT_NE(onlyError(c).find("clamp"), std::string::npos);
  c.clamp = 10.0;
  c.recipe.requantBlock = 64;
  EXPECT_TRUE(validate(c).empty());
}

TEST(LayerConfig, Ue8m0RecipeIsRejectedOnSm100) {
  LayerConfig c = v4Flash(8, 8);
  c.chip = Chip::SM100a;
  EXPECT_TRUE(validate(c).empty());
  c.recipe.inputScaleBlock = 32;
  EXPECT_NE(onlyError(c).find("UE8M0 scales per 32 K are not implemented"),
            std::string::npos);
  c = v4Flash(8, 8);
  c.chip = Chip::SM100a;
  c.recipe.weightScaleBlock = 32;
  EXPECT_NE(onlyError(c).find("sm_100a runs the FP32-per-128 recipe"),
            std::string::npos);
}

TEST(LayerConfig, AllErrorsAreReported) {
  EXPECT_EQ(validate(shape(100, 100, 10, 11, 4, 0)).size(), 5u);
}

TEST(LayerConfig, NamesRoundTrip) {
  for (Chip chip : {Chip::SM90a, Chip::SM100a})
    EXPECT_EQ(parseChip(toString(chip)), chip);
  for (DType t : {DType::E4M3, DType::BF16, DType::F32})
    EXPECT_EQ(parseDType(toString(t)), t);
  EXPECT_EQ(parseActivation("swiglu"), Activation::SwiGLU);
  EXPECT_FALSE(parseChip("sm_80"));
}

} // namespace
