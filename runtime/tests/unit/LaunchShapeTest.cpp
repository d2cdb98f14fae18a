//===- LaunchShapeTest.cpp - the manifest's grids and TMA extents ---------===//
//
// The launch fields' reader (docs/Manifest.md, "Launch shapes"): every
// accepted form, and each rejected one with the message it gives.
//
//===----------------------------------------------------------------------===//
#include "megamoe/runtime/LaunchShape.h"
#include "TestUtil.h"
#include "megamoe/runtime/Manifest.h"

using namespace megamoe::rt;

namespace {

/// A one-kernel manifest with grid[0] = `grid`, the descriptor's
/// global_shape[1] = `dim` and runtime symbols `runtime`.
std::string manifest(const std::string &grid, const std::string &dim,
                     const std::string &runtime = R"(["M"])") {
  return R"({"format": "megamoe-manifest", "version": 2, "chip": "sm_90a",
    "cubin": "k.cubin", "symbols": {"K": 256}, "runtime_symbols": )" +
         runtime + R"(,
    "kernels": [{"name": "k", "block": [128, 1, 1], "grid": [)" +
         grid + R"(, 1, 1],
      "params": [{"name": "a", "kind": "tma_descriptor", "tma": "a"}],
      "tma_descriptors": [{"name": "a", "dtype": "e4m3", "rank": 2,
        "global_shape": [256, )" +
         dim + R"(], "global_strides_bytes": [256],
        "box": [128, 64], "swizzle": "128B"}]}]})";
}

const KernelSpec &kernel(const Manifest &m) { return m.kernels.at(0); }

TEST(LaunchShape, ReadsEveryForm) {
  Manifest m = parseManifest(manifest("7", R"({"symbol": "M", "times": 4})"));
  EXPECT_EQ(kernel(m).grid[0], LaunchDim::constant(7));
  EXPECT_EQ(kernel(m).tmaDescriptors[0].globalShape[0],
            LaunchDim::constant(256));
  EXPECT_EQ(kernel(m).tmaDescriptors[0].globalShape[1],
            LaunchDim::times("M", 4));
  m = parseManifest(manifest(R"({"ctas": "num_sms"})", R"({"symbol": "M"})"));
  EXPECT_EQ(kernel(m).grid[0], LaunchDim::numSms());
  EXPECT_EQ(kernel(m).tmaDescriptors[0].globalShape[1], LaunchDim::times("M"));
  m = parseManifest(manifest(R"({"ctas": "num_sms", "max": 8})", "300"));
  EXPECT_EQ(kernel(m).grid[0], LaunchDim::numSms(8));
  EXPECT_EQ(kernel(m).tmaDescriptors[0].globalShape[1],
            LaunchDim::constant(300));
}

TEST(LaunchShape, Evaluates) {
  const SymbolTable m{{"M", 96}};
  EXPECT_EQ(evaluate(LaunchDim::constant(5), 132, m), 5);
  EXPECT_EQ(evaluate(LaunchDim::numSms(), 132, m), 132);
  EXPECT_EQ(evaluate(LaunchDim::numSms(8), 132, m), 8);
  EXPECT_EQ(evaluate(LaunchDim::numSms(200), 132, m), 132);
  EXPECT_EQ(evaluate(LaunchDim::times("M", 4), 132, m), 384);
  EXPECT_RT_ERROR(evaluate(LaunchDim::times("N", 2), 132, m),
                  ErrorKind::InvalidArgument,
                  "N * 2 needs the runtime symbol 'N', which was not given");
  EXPECT_RT_ERROR(
      evaluate(LaunchDim::times("M", int64_t(1) << 60), 132, {{"M", 64}}),
      ErrorKind::InvalidArgument, "overflows 64 bits");
}

TEST(LaunchShape, Describes) {
  EXPECT_EQ(describe(LaunchDim::constant(7168)), "7168");
  EXPECT_EQ(describe(LaunchDim::numSms()), "num_sms");
  EXPECT_EQ(describe(LaunchDim::numSms(8)), "min(num_sms, 8)");
  EXPECT_EQ(describe(LaunchDim::times("M")), "M");
  EXPECT_EQ(describe(LaunchDim::times("M", 4)), "M * 4");
}

TEST(LaunchShape, RejectsExpressionsAndUnknownForms) {
  // The old expression strings name what replaced them.
  EXPECT_RT_ERROR(
      parseManifest(manifest(R"x("min(num_sms, 8)")x", "300")),
      ErrorKind::Manifest,
      "manifest: kernels[0].grid[0]: expected a positive integer or "
      "{\"ctas\": \"num_sms\"} (optionally with \"max\": N), got the string "
      "\"min(num_sms, 8)\" (manifests hold no expressions)");
  EXPECT_RT_ERROR(parseManifest(manifest("1", R"("M * 4")")),
                  ErrorKind::Manifest,
                  "kernels[0].tma_descriptors[0].global_shape[1]: expected a "
                  "positive integer or {\"symbol\": NAME} (optionally with "
                  "\"times\": N), got the string \"M * 4\"");
  EXPECT_RT_ERROR(parseManifest(manifest("0", "300")), ErrorKind::Manifest,
                  "kernels[0].grid[0]: value 0 outside [1, ");
  EXPECT_RT_ERROR(parseManifest(manifest("1", "-3")), ErrorKind::Manifest,
                  "global_shape[1]: value -3 outside [1, ");
  EXPECT_RT_ERROR(parseManifest(manifest("1.5", "300")), ErrorKind::Manifest,
                  "kernels[0].grid[0]: expected a positive integer");
  EXPECT_RT_ERROR(parseManifest(manifest(R"({"ctas": "all"})", "300")),
                  ErrorKind::Manifest, "got {\"ctas\":\"all\"}");
  EXPECT_RT_ERROR(parseManifest(manifest(R"({"max": 8})", "300")),
                  ErrorKind::Manifest, "kernels[0].grid[0]: expected");
  EXPECT_RT_ERROR(
      parseManifest(manifest(R"({"ctas": "num_sms", "max": 0})", "300")),
      ErrorKind::Manifest, "kernels[0].grid[0].max: value 0 outside [1, ");
  EXPECT_RT_ERROR(
      parseManifest(manifest(R"({"ctas": "num_sms", "min": 2})", "300")),
      ErrorKind::Manifest,
      "kernels[0].grid[0]: unknown key 'min' (known: ctas, max)");
  // A grid is never sized by a runtime symbol.
  EXPECT_RT_ERROR(parseManifest(manifest(R"({"symbol": "M"})", "300")),
                  ErrorKind::Manifest,
                  "unknown key 'symbol' (known: ctas, max)");
  // Nor a descriptor by the SM count.
  EXPECT_RT_ERROR(parseManifest(manifest("1", R"({"ctas": "num_sms"})")),
                  ErrorKind::Manifest,
                  "global_shape[1]: unknown key 'ctas' (known: symbol, times)");
  EXPECT_RT_ERROR(
      parseManifest(manifest("1", R"({"symbol": "M", "times": -1})")),
      ErrorKind::Manifest, "global_shape[1].times: value -1 outside [1, ");
  EXPECT_RT_ERROR(parseManifest(manifest("1", R"({"symbol": 4})")),
                  ErrorKind::Manifest, "global_shape[1]: expected");
}

TEST(LaunchShape, SymbolsMustBeListedRuntimeSymbols) {
  EXPECT_RT_ERROR(parseManifest(manifest("1", R"({"symbol": "K"})")),
                  ErrorKind::Manifest,
                  "global_shape[1]: 'K' is not a runtime symbol of this "
                  "manifest (runtime_symbols: M)");
  EXPECT_RT_ERROR(
      parseManifest(manifest("1", R"({"symbol": "M"})", "[]")),
      ErrorKind::Manifest,
      "'M' is not a runtime symbol of this manifest (it lists none)");
}

} // namespace
