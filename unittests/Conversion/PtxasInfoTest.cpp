//===- PtxasInfoTest.cpp - parsing of ptxas -v reports
//---------------------===//
#include "megamoe/Conversion/PtxasInfo.h"

#include <gtest/gtest.h>

using megamoe::parsePtxasVerbose;

// Captured from CUDA 13.0 ptxas -v -arch=sm_90a on a warp-specialized kernel.
TEST(PtxasInfo, ParsesKernelWithoutSpills) {
  const char *log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'ws_kernel' for 'sm_90a'\n"
      "ptxas info    : Function properties for ws_kernel\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 2 barriers, 8320 bytes smem\n"
      "ptxas info    : Compile time = 40.355 ms\n";
  auto infos = parsePtxasVerbose(log);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].name, "ws_kernel");
  EXPECT_EQ(infos[0].registers, 168);
  EXPECT_EQ(infos[0].barriers, 2);
  EXPECT_EQ(infos[0].staticSmemBytes, 8320);
  EXPECT_EQ(infos[0].spillStoresBytes, 0);
  EXPECT_EQ(infos[0].spillLoadsBytes, 0);
  EXPECT_EQ(infos[0].usedLine,
            "Used 168 registers, used 2 barriers, 8320 bytes smem");
}

TEST(PtxasInfo, ParsesSpillsStackAndSeveralFunctions) {
  const char *log =
      "ptxas info    : Compiling entry function 'a' for 'sm_90a'\n"
      "ptxas info    : Function properties for a\n"
      "    48 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads\n"
      "ptxas info    : Used 255 registers, 400 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'b' for 'sm_90a'\n"
      "ptxas info    : Function properties for b\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 32 registers, 1024 bytes smem, 360 bytes cmem[0]\n";
  auto infos = parsePtxasVerbose(log);
  ASSERT_EQ(infos.size(), 2u);
  EXPECT_EQ(infos[0].name, "a");
  EXPECT_EQ(infos[0].registers, 255);
  EXPECT_EQ(infos[0].stackFrameBytes, 48);
  EXPECT_EQ(infos[0].spillStoresBytes, 40);
  EXPECT_EQ(infos[0].spillLoadsBytes, 36);
  EXPECT_EQ(infos[0].staticSmemBytes, 0);
  EXPECT_EQ(infos[1].name, "b");
  EXPECT_EQ(infos[1].registers, 32);
  EXPECT_EQ(infos[1].staticSmemBytes, 1024);
}

TEST(PtxasInfo, IgnoresUnrelatedText) {
  auto infos = parsePtxasVerbose("ptxas warning : something\nrandom line\n");
  EXPECT_TRUE(infos.empty());
}
