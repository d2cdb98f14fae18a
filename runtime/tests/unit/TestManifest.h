//===- TestManifest.h - the fixture layer manifest of the unit tests -*- C++
//-*-===//
//
// One hand-written layer manifest in the shape megamoe-expand{schedule=
// unfused} emits (docs/UnfusedSchedule.md), cut down to three kinds of
// kernel: a pointer/value kernel (moe_route), a GEMM-like kernel with region-
// and input-bound TMA descriptors, and a one-CTA barrier kernel. ScheduleTest
// edits it; ManifestFuzzTest mutates it (around the compiler's own plan).
// H = 256, I = 128, E = 4, K = 2, R = 2: L = 2, P = 256.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_TESTS_UNIT_TESTMANIFEST_H
#define MEGAMOE_RUNTIME_TESTS_UNIT_TESTMANIFEST_H

#include "megamoe/Config/LayerConfig.h"

#include <cstdint>
#include <string>
#include <vector>

namespace testmanifest {

/// The fixture layer's config (H = 256, I = 128, E = 4, K = 2, R = 2) for
/// `maxTokens` tokens per rank.
inline megamoe::config::LayerConfig layerConfig(int64_t maxTokens) {
  megamoe::config::LayerConfig c;
  c.hidden = 256;
  c.intermediate = 128;
  c.experts = 4;
  c.topk = 2;
  c.ranks = 2;
  c.maxTokensPerRank = maxTokens;
  return c;
}

inline std::string barrierKernel() {
  return R"json(
   {"name": "moe_combine_barrier", "block": [32, 1, 1], "grid": [1, 1, 1],
    "params": [
      {"name": "barriers", "kind": "pointer", "bind": "region:barriers"},
      {"name": "peer_offsets", "kind": "pointer", "bind": "peer_offsets"},
      {"name": "rank", "kind": "i32", "bind": "value:rank"}]})json";
}

inline std::string routeKernel() {
  return R"json(
   {"name": "moe_route", "block": [256, 1, 1], "grid": [{"ctas": "num_sms"}, 1, 1],
    "params": [
      {"name": "topk_idx", "kind": "pointer", "bind": "region:topk_idx"},
      {"name": "errors", "kind": "pointer", "bind": "region:errors"},
      {"name": "y", "kind": "pointer", "bind": "input:y"},
      {"name": "rank", "kind": "i32", "bind": "value:rank"},
      {"name": "num_tokens", "kind": "i32", "bind": "value:num_tokens"}]})json";
}

/// A GEMM-like kernel `name` over the pool (A, box rows `boxRows`) and the
/// L1 weights (B), with the grid `grid` (JSON text).
inline std::string
gemmKernel(const std::string &name, int boxRows,
           const std::string &grid = R"([{"ctas": "num_sms"}, 1, 1])") {
  return R"json(
   {"name": ")json" +
         name + R"json(", "block": [384, 1, 1], "grid": )json" + grid +
         R"json(,
    "dynamic_smem_bytes": 200000,
    "params": [
      {"name": "a", "kind": "tma_descriptor", "tma": "a", "bind": "region:l1_pool"},
      {"name": "b", "kind": "tma_descriptor", "tma": "b", "bind": "input:l1_weight"},
      {"name": "sfb", "kind": "pointer", "bind": "input:l1_scale"}],
    "tma_descriptors": [
      {"name": "a", "dtype": "e4m3", "rank": 2, "global_shape": [256, 256],
       "global_strides_bytes": [256], "box": [128, )json" +
         std::to_string(boxRows) + R"json(],
       "element_strides": [1, 1], "swizzle": "128B", "interleave": "none",
       "l2_promotion": "256B", "oob_fill": "zero"},
      {"name": "b", "dtype": "e4m3", "rank": 2, "global_shape": [256, 512],
       "global_strides_bytes": [256], "box": [128, 128], "swizzle": "128B"}]})json";
}

inline std::string bufferLayout() {
  return R"json("buffer_layout": {"total_bytes": 1048576, "workspace_bytes": 512, "regions": [
    {"name": "barriers", "offset": 0, "bytes": 128},
    {"name": "errors", "offset": 256, "bytes": 16},
    {"name": "topk_idx", "offset": 4096, "bytes": 1024},
    {"name": "l1_pool", "offset": 65536, "bytes": 65536}]})json";
}

/// A layer manifest: `symbols` (the object's text), `schedule` (a
/// "schedule" or "variants" member with its trailing comma), `kernels` and
/// the buffer layout.
inline std::string layerManifest(const std::string &symbols,
                                 const std::string &schedule,
                                 const std::vector<std::string> &kernels) {
  std::string text = R"json({
  "format": "megamoe-manifest", "version": 2, "chip": "sm_90a",
  "cubin": "layer.cubin",
  "symbols": )json" + symbols +
                     ",\n  " + schedule + "\n  \"kernels\": [";
  for (size_t i = 0; i < kernels.size(); ++i)
    text += (i ? "," : "") + kernels[i];
  return text + "\n  ],\n  " + bufferLayout() + "\n}";
}

} // namespace testmanifest

#endif // MEGAMOE_RUNTIME_TESTS_UNIT_TESTMANIFEST_H
