//===- TargetTest.cpp - PTX version per chip
//-------------------------------===//
#include "megamoe/Conversion/Target.h"

#include <gtest/gtest.h>

TEST(Target, PtxVersionFromChip) {
  EXPECT_EQ(megamoe::ptxFeaturesForChip("sm_90a"), "+ptx86");
  EXPECT_EQ(megamoe::ptxFeaturesForChip("sm_100a"), "+ptx88");
  EXPECT_FALSE(megamoe::ptxFeaturesForChip("sm_50").has_value());
  EXPECT_FALSE(megamoe::ptxFeaturesForChip("").has_value());
}
