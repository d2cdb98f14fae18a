//===- ChipCheckTest.cpp - a cubin's chip against a device's capability ---===//
#include "megamoe/runtime/ChipCheck.h"

#include <gtest/gtest.h>

using namespace megamoe::rt;

namespace {

TEST(ChipCheck, MatchingChipsRun) {
  EXPECT_EQ(chipMismatch("sm_90a", 9, 0), "");
  EXPECT_EQ(chipMismatch("sm_100a", 10, 0), "");
}

TEST(ChipCheck, ClusterThatTheDeviceCannotRunIsRefused) {
  EXPECT_EQ(clusterUnsupported("k", 2, 66), "");
  EXPECT_EQ(clusterUnsupported("k", 2, 0),
            "kernel 'k' is launched in clusters of 2 CTAs, but the device "
            "cannot run one such cluster with its block and shared memory "
            "(cuOccupancyMaxActiveClusters = 0)");
  EXPECT_EQ(clusterUnsupported("k", 16, 4),
            "kernel 'k' asks for clusters of 16 CTAs, more than the 8 of a "
            "portable cluster");
}

TEST(ChipCheck, Sm100aCubinIsRefusedOnSm90) {
  EXPECT_EQ(chipMismatch("sm_100a", 9, 0),
            "the kernels were compiled for sm_100a (compute capability 10.0) "
            "but the device has compute capability 9.0: sm_100a kernels do "
            "not run there; compile them with chip=sm_90a");
}

TEST(ChipCheck, Sm90aCubinIsRefusedOnSm100) {
  EXPECT_EQ(chipMismatch("sm_90a", 10, 0),
            "the kernels were compiled for sm_90a (compute capability 9.0) "
            "but the device has compute capability 10.0: sm_90a kernels do "
            "not run there; compile them with chip=sm_100a");
  // 'a' targets are not forward compatible, not even within a family.
  EXPECT_NE(chipMismatch("sm_100a", 10, 3), "");
}

TEST(ChipCheck, MalformedChipIsReported) {
  for (const char *chip : {"", "sm90a", "sm_", "sm_9", "sm_1000a", "sm_9xa"})
    EXPECT_NE(chipMismatch(chip, 9, 0).find("is not a CUDA target name"),
              std::string::npos)
        << chip;
}

} // namespace
