//===- TmaTest.cpp - TMA descriptor parameter computation -----------------===//
#include "megamoe/runtime/Tma.h"
#include "TestUtil.h"

using namespace megamoe::rt;

namespace {

TmaSpec gemmA() {
  TmaSpec t;
  t.name = "a";
  t.dtype = DType::E4M3;
  t.rank = 2;
  t.globalShape = {LaunchDim::times("K"), LaunchDim::times("M")};
  t.globalStridesBytes = {LaunchDim::times("K")};
  t.box = {128, 128};
  t.elementStrides = {1, 1};
  t.swizzle = Swizzle::B128;
  return t;
}

const SymbolTable kSyms = {{"K", 7168}, {"M", 300}};

TEST(Tma, EvaluatesShapesAndStrides) {
  TmaParams p = computeTmaParams(gemmA(), kSyms, 0x10000, 7168 * 300);
  EXPECT_EQ(p.rank, 2u);
  EXPECT_EQ(p.globalDim[0], 7168u);
  EXPECT_EQ(p.globalDim[1], 300u);
  EXPECT_EQ(p.globalStrides[0], 7168u);
  EXPECT_EQ(p.box[0], 128u);
  EXPECT_EQ(p.elementStrides[1], 1u);
  EXPECT_EQ(p.extentBytes, 7168u * 300);
  EXPECT_EQ(p.globalAddress, 0x10000u);
}

TEST(Tma, Rank3BF16Extent) {
  TmaSpec t;
  t.name = "y";
  t.dtype = DType::BF16;
  t.rank = 3;
  t.globalShape = {LaunchDim::constant(64), LaunchDim::constant(10),
                   LaunchDim::constant(3)};
  t.globalStridesBytes = {LaunchDim::constant(256), LaunchDim::constant(4096)};
  t.box = {64, 8, 1};
  t.elementStrides = {1, 1, 1};
  TmaParams p = computeTmaParams(t, {}, 256, 0);
  // last element: 63*2 + 9*256 + 2*4096, plus its 2 bytes
  EXPECT_EQ(p.extentBytes, 63u * 2 + 9 * 256 + 2 * 4096 + 2);
}

TEST(Tma, RejectsMisalignedOrNullAddress) {
  EXPECT_RT_ERROR(computeTmaParams(gemmA(), kSyms, 0x10008, 0),
                  ErrorKind::InvalidArgument,
                  "TMA descriptor 'a': the tensor address 0x10008 is not "
                  "16-byte aligned");
  EXPECT_RT_ERROR(computeTmaParams(gemmA(), kSyms, 0, 0),
                  ErrorKind::InvalidArgument, "null");
}

TEST(Tma, RejectsStrideNotMultipleOf16) {
  EXPECT_RT_ERROR(
      computeTmaParams(gemmA(), {{"K", 7160}, {"M", 4}}, 0x10000, 0),
      ErrorKind::InvalidArgument,
      "global_strides_bytes[0] = K = 7160 must be a positive "
      "multiple of 16");
}

TEST(Tma, RejectsZeroDimension) {
  EXPECT_RT_ERROR(
      computeTmaParams(gemmA(), {{"K", 7168}, {"M", 0}}, 0x10000, 0),
      ErrorKind::InvalidArgument, "global_shape[1] = M = 0");
}

TEST(Tma, RejectsBoxWiderThanSwizzle) {
  TmaSpec t = gemmA();
  t.swizzle = Swizzle::B64;
  EXPECT_RT_ERROR(computeTmaParams(t, kSyms, 0x10000, 0),
                  ErrorKind::InvalidArgument,
                  "128 bytes exceeds the 64B swizzle span");
  t.swizzle = Swizzle::None;
  t.box = {8, 128};
  EXPECT_RT_ERROR(computeTmaParams(t, kSyms, 0x10000, 0),
                  ErrorKind::InvalidArgument, "must be a multiple of 16 bytes");
}

TEST(Tma, RejectsTensorSmallerThanDescriptor) {
  EXPECT_RT_ERROR(computeTmaParams(gemmA(), kSyms, 0x10000, 7168 * 299),
                  ErrorKind::InvalidArgument,
                  "addresses 2150400 bytes but the tensor holds 2143232");
}

TEST(Tma, UnknownSymbolIsNamed) {
  EXPECT_RT_ERROR(computeTmaParams(gemmA(), {{"K", 7168}}, 0x10000, 0),
                  ErrorKind::InvalidArgument,
                  "M needs the runtime symbol 'M', which was not given");
}

} // namespace
