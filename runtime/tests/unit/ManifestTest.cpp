//===- ManifestTest.cpp - manifest parsing and checks ---------------------===//
#include "megamoe/runtime/Manifest.h"
#include "TestUtil.h"

using namespace megamoe::rt;

namespace {

// The example of docs/Manifest.md (comments included: they are allowed).
const char *kExample = R"json({
  "format": "megamoe-manifest",
  "version": 2,
  "chip": "sm_90a",
  "cubin": "gemm.cubin",                       // file name, relative
  "ptx": "gemm.ptx",
  "symbols": {"E": 8, "N": 4096, "K": 7168, "MAX_M": 32768},
  "runtime_symbols": ["M"],
  "kernels": [{
    "name": "grouped_gemm_fp8",
    "block": [384, 1, 1],
    "grid": [{"ctas": "num_sms"}, 1, 1],        // one CTA per SM
    "cluster": [1, 1, 1],
    "dynamic_smem_bytes": 198656,
    "max_registers": 168,
    "params": [
      {"name": "a", "kind": "tma_descriptor", "tma": "a"},
      {"name": "out", "kind": "pointer"},
      {"name": "num_rows", "kind": "i32"}
    ],
    "tma_descriptors": [{
      "name": "a", "dtype": "e4m3", "rank": 2,
      "global_shape": [7168, {"symbol": "M"}], "global_strides_bytes": [7168],
      "box": [128, 128], "element_strides": [1, 1], "swizzle": "128B",
      "interleave": "none", "l2_promotion": "256B", "oob_fill": "zero"
    }],
    "resources": {"registers": 168, "spill_stores_bytes": 0,
                  "spill_loads_bytes": 0, "static_smem_bytes": 0,
                  "stack_bytes": 0}
  }],
  "buffer_layout": null
})json";

/// kExample with the first match of `from` replaced by `to`.
std::string edited(const std::string &from, const std::string &to) {
  std::string s = kExample;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(Manifest, ParsesTheDocumentedExample) {
  Manifest m = parseManifest(kExample, "/cache/x");
  EXPECT_EQ(m.version, 2);
  EXPECT_EQ(m.chip, "sm_90a");
  EXPECT_EQ(m.cubinPath(), "/cache/x/gemm.cubin");
  EXPECT_EQ(m.symbols.at("K"), 7168);
  ASSERT_EQ(m.runtimeSymbols.size(), 1u);
  EXPECT_EQ(m.runtimeSymbols[0], "M");
  ASSERT_EQ(m.kernels.size(), 1u);
  const KernelSpec &k = m.kernels[0];
  EXPECT_EQ(k.name, "grouped_gemm_fp8");
  EXPECT_EQ(k.block[0], 384u);
  EXPECT_EQ(k.grid[0], LaunchDim::numSms());
  EXPECT_EQ(k.grid[1], LaunchDim::constant(1));
  EXPECT_EQ(k.dynamicSmemBytes, 198656u);
  EXPECT_EQ(k.maxRegisters, 168u);
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_EQ(k.params[0].kind, ParamKind::TmaDescriptor);
  EXPECT_EQ(k.params[0].tma, "a");
  EXPECT_EQ(k.params[2].kind, ParamKind::I32);
  const TmaSpec *t = k.findTma("a");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->dtype, DType::E4M3);
  EXPECT_EQ(t->rank, 2u);
  EXPECT_EQ(t->globalShape[0], LaunchDim::constant(7168));
  EXPECT_EQ(t->globalShape[1], LaunchDim::times("M"));
  EXPECT_EQ(t->globalStridesBytes[0], LaunchDim::constant(7168));
  EXPECT_EQ(t->swizzle, Swizzle::B128);
  EXPECT_EQ(t->l2Promotion, L2Promotion::B256);
  EXPECT_FALSE(m.bufferLayout.has_value());
}

TEST(Manifest, RejectsNonJsonAndWrongFormat) {
  EXPECT_RT_ERROR(parseManifest("{", ""), ErrorKind::Manifest,
                  "not valid JSON");
  EXPECT_RT_ERROR(parseManifest(edited("\"megamoe-manifest\"", "\"other\"")),
                  ErrorKind::Manifest, "expected \"megamoe-manifest\"");
  EXPECT_RT_ERROR(parseManifest(edited("\"version\": 2", "\"version\": 1")),
                  ErrorKind::Manifest, "schema version 2, the manifest has 1");
}

TEST(Manifest, NamesTheOffendingField) {
  EXPECT_RT_ERROR(
      parseManifest(edited("\"box\": [128, 128]", "\"box\": [128]")),
      ErrorKind::Manifest,
      "kernels[0].tma_descriptors[0].box: expected 2 entries, got 1");
  EXPECT_RT_ERROR(
      parseManifest(edited("\"box\": [128, 128]", "\"box\": [512, 128]")),
      ErrorKind::Manifest, "outside [1, 256]");
  EXPECT_RT_ERROR(
      parseManifest(edited("\"swizzle\": \"128B\"", "\"swizzle\": \"256B\"")),
      ErrorKind::Manifest, "unknown value '256B'");
  EXPECT_RT_ERROR(
      parseManifest(edited("\"kind\": \"i32\"", "\"kind\": \"i16\"")),
      ErrorKind::Manifest, "kernels[0].params[2].kind");
  EXPECT_RT_ERROR(parseManifest(edited("\"tma\": \"a\"", "\"tma\": \"b\"")),
                  ErrorKind::Manifest, "no TMA descriptor named 'b'");
  EXPECT_RT_ERROR(
      parseManifest(edited("\"block\": [384, 1, 1]", "\"block\": [512, 4, 1]")),
      ErrorKind::Manifest, "more than 1024 threads");
  EXPECT_RT_ERROR(parseManifest(edited("\"cubin\": \"gemm.cubin\",", "")),
                  ErrorKind::Manifest, "missing field 'cubin'");
  EXPECT_RT_ERROR(parseManifest(edited("\"runtime_symbols\": [\"M\"]",
                                       "\"runtime_symbols\": [\"K\"]")),
                  ErrorKind::Manifest, "also a compile-time symbol");
  EXPECT_RT_ERROR(
      parseManifest(edited("{\"name\": \"out\", \"kind\": \"pointer\"}",
                           "{\"name\": \"a\", \"kind\": \"pointer\"}")),
      ErrorKind::Manifest, "duplicate parameter name 'a'");
}

// programmatic_launch (a kernel that begins with griddepcontrol.wait): off
// unless the manifest says true; anything but a boolean is an error.
TEST(Manifest, ProgrammaticLaunch) {
  EXPECT_FALSE(parseManifest(kExample).kernels[0].programmaticLaunch);
  Manifest m = parseManifest(edited("\"max_registers\": 168,",
                                    "\"max_registers\": 168, "
                                    "\"programmatic_launch\": true,"));
  EXPECT_TRUE(m.kernels[0].programmaticLaunch);
  EXPECT_RT_ERROR(parseManifest(edited("\"max_registers\": 168,",
                                       "\"max_registers\": 168, "
                                       "\"programmatic_launch\": 1,")),
                  ErrorKind::Manifest,
                  "kernels[0].programmatic_launch: must be true or false");
}

TEST(Manifest, BufferLayout) {
  Manifest m = parseManifest(
      edited("\"buffer_layout\": null",
             R"("buffer_layout": {"total_bytes": 4096, "workspace_bytes": 256,
           "alignment": 128, "regions": [
           {"name": "x", "offset": 0, "bytes": 1024},
           {"name": "x_sf", "offset": 1024, "bytes": 512}]})"));
  ASSERT_TRUE(m.bufferLayout);
  EXPECT_EQ(m.bufferLayout->totalBytes, 4096u);
  EXPECT_EQ(m.bufferLayout->workspaceBytes, 256u);
  ASSERT_TRUE(m.bufferLayout->find("x_sf"));
  EXPECT_EQ(m.bufferLayout->find("x_sf")->offset, 1024u);
  EXPECT_EQ(m.bufferLayout->find("y"), nullptr);
  EXPECT_RT_ERROR(parseManifest(edited(
                      "\"buffer_layout\": null",
                      R"("buffer_layout": {"total_bytes": 1000, "regions": [
           {"name": "x", "offset": 512, "bytes": 1024}]})")),
                  ErrorKind::Manifest, "ends past total_bytes 1000");
}

TEST(Manifest, MissingFileIsAnIoError) {
  EXPECT_RT_ERROR(loadManifestFile("/nonexistent/m.json"), ErrorKind::Io,
                  "cannot open '/nonexistent/m.json'");
}

} // namespace
