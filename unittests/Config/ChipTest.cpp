//===- ChipTest.cpp - chip limits and names -------------------------------===//
#include "megamoe/Config/Chip.h"

#include <gtest/gtest.h>

using namespace megamoe::config;

namespace {

TEST(Chip, Sm90aLimits) {
  ChipLimits l = chipLimits(Chip::SM90a);
  EXPECT_EQ(l.smemPerBlock, 232448); // 227 KiB
  EXPECT_EQ(l.registersPerSM, 65536);
  EXPECT_EQ(l.maxRegistersPerThread, 255);
  EXPECT_EQ(l.producerRegisters, 40);
  EXPECT_EQ(l.mathRegisters, 232);
  // The grouped GEMM's three warpgroups fit one SM at these targets.
  EXPECT_LE(128 * l.producerRegisters + 256 * l.mathRegisters,
            l.registersPerSM);
}

TEST(Chip, Sm100aLimitsAndRegisterTargets) {
  ChipLimits l = chipLimits(Chip::SM100a);
  EXPECT_EQ(l.smemPerBlock, 232448);
  EXPECT_EQ(l.registersPerSM, 65536);
  EXPECT_EQ(l.tmemColumns, 512);
  // Recipe (b) keeps the SM90 register total: the same targets.
  EXPECT_EQ(l.producerRegisters, 40);
  EXPECT_EQ(l.mathRegisters, 232);
  EXPECT_EQ(chipLimits(Chip::SM90a).tmemColumns, 0);
}

TEST(Chip, NamesRoundTrip) {
  for (Chip c : {Chip::SM90a, Chip::SM100a})
    EXPECT_EQ(parseChip(toString(c)), c);
  EXPECT_FALSE(parseChip("sm_80"));
}

} // namespace
