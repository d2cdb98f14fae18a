//===- ArgsTest.cpp - binding launch arguments ----------------------------===//
#include "megamoe/runtime/Args.h"
#include "TestUtil.h"

#include <cstring>

using namespace megamoe::rt;

namespace {

Manifest gemmManifest() {
  return parseManifest(R"json({
    "format": "megamoe-manifest", "version": 2, "chip": "sm_90a",
    "cubin": "k.cubin", "symbols": {"K": 256}, "runtime_symbols": ["M"],
    "kernels": [{
      "name": "k", "block": [128, 1, 1],
      "grid": [{"ctas": "num_sms", "max": 4}, 1, 1],
      "cluster": [2, 1, 1],
      "params": [
        {"name": "a", "kind": "tma_descriptor", "tma": "a"},
        {"name": "out", "kind": "pointer"},
        {"name": "rows", "kind": "i32"},
        {"name": "mask", "kind": "u32"},
        {"name": "scale", "kind": "f32"}],
      "tma_descriptors": [{"name": "a", "dtype": "e4m3", "rank": 2,
        "global_shape": [256, {"symbol": "M"}], "global_strides_bytes": [256],
        "box": [128, 64], "swizzle": "128B"}]}]})json");
}

ArgMap goodArgs() {
  ArgMap a;
  a["a"].address = 0x1000;
  a["a"].bytes = 256 * 128;
  a["out"].address = 0x2000;
  a["rows"].integer = -5;
  a["mask"].integer = 0xffffffffll;
  a["scale"].real = 0.5;
  return a;
}

TEST(Args, BindsInParameterOrder) {
  Manifest m = gemmManifest();
  BoundLaunch b = bindLaunch(m, m.kernels[0], goodArgs(), {{"M", 128}}, 132);
  EXPECT_EQ(b.grid[0], 4u); // min(num_sms, 4)
  EXPECT_EQ(b.grid[1], 1u);
  ASSERT_EQ(b.params.size(), 5u);
  EXPECT_EQ(b.params[0].kind, ParamKind::TmaDescriptor);
  EXPECT_EQ(b.params[0].tma.globalDim[1], 128u);
  EXPECT_EQ(b.params[1].bits, 0x2000u);
  EXPECT_EQ((int32_t)(uint32_t)b.params[2].bits, -5);
  EXPECT_EQ(b.params[3].bits, 0xffffffffu);
  float f;
  uint32_t u = (uint32_t)b.params[4].bits;
  std::memcpy(&f, &u, 4);
  EXPECT_EQ(f, 0.5f);
  EXPECT_EQ(b.symbols.at("M"), 128);
  // Fewer SMs than the cap: one CTA per SM.
  EXPECT_EQ(bindLaunch(m, m.kernels[0], goodArgs(), {{"M", 128}}, 2).grid[0],
            2u);
}

TEST(Args, MissingAndUnknownArguments) {
  Manifest m = gemmManifest();
  ArgMap a = goodArgs();
  a.erase("out");
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], a, {{"M", 128}}, 132),
                  ErrorKind::InvalidArgument,
                  "kernel 'k', parameter 'out' (pointer) was not given");
  a = goodArgs();
  a["bias"].address = 0x10;
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], a, {{"M", 128}}, 132),
                  ErrorKind::InvalidArgument, "no parameter named 'bias'");
}

TEST(Args, ValuesOutOfRange) {
  Manifest m = gemmManifest();
  ArgMap a = goodArgs();
  a["rows"].integer = int64_t(1) << 40;
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], a, {{"M", 128}}, 132),
                  ErrorKind::InvalidArgument, "does not fit i32");
  a = goodArgs();
  a["mask"].integer = -1;
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], a, {{"M", 128}}, 132),
                  ErrorKind::InvalidArgument, "does not fit u32");
  a = goodArgs();
  a["out"].address = 0;
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], a, {{"M", 128}}, 132),
                  ErrorKind::InvalidArgument,
                  "parameter 'out' is a null pointer");
}

TEST(Args, RuntimeSymbols) {
  Manifest m = gemmManifest();
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], goodArgs(), {}, 132),
                  ErrorKind::InvalidArgument,
                  "runtime symbol 'M' was not given");
  EXPECT_RT_ERROR(
      bindLaunch(m, m.kernels[0], goodArgs(), {{"M", 128}, {"N", 1}}, 132),
      ErrorKind::InvalidArgument, "'N' is not a runtime symbol");
}

TEST(Args, GridChecks) {
  Manifest m = gemmManifest();
  // One SM: min(num_sms, 4) = 1 is not a multiple of the cluster size 2.
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], goodArgs(), {{"M", 64}}, 1),
                  ErrorKind::InvalidArgument,
                  "grid[0] = 1 is not a multiple of the cluster size 2");
  // Three SMs: min(num_sms, 4) = 3 runs one whole cluster of 2; 132 SMs
  // min(132, 4) = 4, two clusters.
  EXPECT_EQ(bindLaunch(m, m.kernels[0], goodArgs(), {{"M", 64}}, 3).grid[0],
            2u);
  EXPECT_EQ(bindLaunch(m, m.kernels[0], goodArgs(), {{"M", 64}}, 132).grid[0],
            4u);
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], goodArgs(), {{"M", 64}}, 0),
                  ErrorKind::InvalidArgument,
                  "grid[0] = min(num_sms, 4) = 0 must be in [1, ");
  // M = 0 gives an empty grid.
  ArgMap a = goodArgs();
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], a, {{"M", 0}}, 132),
                  ErrorKind::InvalidArgument, "global_shape[1] = M = 0");
}

TEST(Args, TensorTooSmallForDescriptor) {
  Manifest m = gemmManifest();
  ArgMap a = goodArgs();
  a["a"].bytes = 256 * 100;
  EXPECT_RT_ERROR(bindLaunch(m, m.kernels[0], a, {{"M", 128}}, 132),
                  ErrorKind::InvalidArgument, "but the tensor holds 25600");
}

} // namespace
