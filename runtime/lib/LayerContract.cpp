//===- LayerContract.cpp - the layer's shapes and their checks ------------===//
#include "megamoe/runtime/LayerContract.h"
#include "megamoe/runtime/Error.h"

#include <algorithm>

namespace megamoe::rt {

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void checkLayerConfig(const LayerConfig &c) {
  auto v = [](const char *n, int64_t x) {
    return std::string(n) + " = " + std::to_string(x);
  };
  require(c.hidden > 0 && c.hidden % 128 == 0,
          "layer config: hidden must be a positive multiple of 128 (" +
              v("hidden", c.hidden) + ")");
  require(c.intermediate > 0 && c.intermediate % 128 == 0,
          "layer config: intermediate must be a positive multiple of 128 (" +
              v("intermediate", c.intermediate) + ")");
  require(c.ranks >= 1,
          "layer config: ranks must be >= 1 (" + v("ranks", c.ranks) + ")");
  require(c.experts >= 1 && c.experts % c.ranks == 0,
          "layer config: experts must be a positive multiple of ranks (" +
              v("experts", c.experts) + ", " + v("ranks", c.ranks) + ")");
  require(c.topk >= 1 && c.topk <= c.experts,
          "layer config: topk must be in [1, experts] (" + v("topk", c.topk) +
              ", " + v("experts", c.experts) + ")");
  require(c.maxTokens >= 1, "layer config: max_tokens must be >= 1 (" +
                                v("max_tokens", c.maxTokens) + ")");
}

void checkManifestMatchesConfig(const Manifest &m, const LayerConfig &c) {
  auto check = [&](const char *name, int64_t value) {
    auto it = m.symbols.find(name);
    if (it != m.symbols.end())
      require(it->second == value,
              std::string("config does not match the manifest: ") + name +
                  " = " + std::to_string(value) + " but the manifest (" +
                  m.cubin + ") was compiled for " + name + " = " +
                  std::to_string(it->second));
  };
  check("hidden", c.hidden);
  check("intermediate", c.intermediate);
  check("experts", c.experts);
  check("topk", c.topk);
  check("ranks", c.ranks);
  check("max_tokens", c.maxTokens);
  // A layer schedule's manifest names the config H, I, E, K, R, T
  // (docs/UnfusedSchedule.md, "Symbols"); only there do the short names mean
  // the layer's config (a grouped GEMM's K is its reduction size).
  if (!m.hasLayerSchedule())
    return;
  check("H", c.hidden);
  check("I", c.intermediate);
  check("E", c.experts);
  check("K", c.topk);
  check("R", c.ranks);
  check("T", c.maxTokens);
}

namespace {

/// Called on every forward: messages are built only for a failure.
void checkTensor(const char *name, const TensorDesc &t, DType dtype,
                 std::initializer_list<int64_t> shape) {
  auto who = [&] { return std::string("forward: ") + name; };
  if (t.dtype != dtype)
    fail(ErrorKind::InvalidArgument, who() + " must be " + dtypeName(dtype) +
                                         ", got " + dtypeName(t.dtype));
  if (!std::equal(t.shape.begin(), t.shape.end(), shape.begin(), shape.end()))
    fail(ErrorKind::InvalidArgument, who() + " must have shape " +
                                         shapeString(shape) + ", got " +
                                         shapeString(t.shape));
  // An empty tensor (0 tokens) may have any address.
  for (int64_t d : shape)
    if (d == 0)
      return;
  if (t.address == 0)
    fail(ErrorKind::InvalidArgument, who() + " is a null pointer");
  if (t.address % 16 != 0)
    fail(ErrorKind::InvalidArgument, who() + " must be 16-byte aligned");
}

} // namespace

void checkForwardArgs(const LayerConfig &c, const ForwardArgs &a) {
  if (a.numTokens < 0 || a.numTokens > c.maxTokens)
    fail(ErrorKind::InvalidArgument,
         "forward: num_tokens = " + std::to_string(a.numTokens) +
             " is outside [0, max_tokens = " + std::to_string(c.maxTokens) +
             "]");
  const int64_t e = c.localExperts(), h = c.hidden, i = c.intermediate;
  checkTensor("l1_weight", a.l1Weight, DType::E4M3, {e, 2 * i, h});
  checkTensor("l1_scale", a.l1Scale, DType::F32, {e, 2 * i / 128, h / 128, 2});
  checkTensor("l2_weight", a.l2Weight, DType::E4M3, {e, h, i});
  checkTensor("l2_scale", a.l2Scale, DType::F32, {e, h / 128, i / 128});
  checkTensor("y", a.y, DType::BF16, {a.numTokens, h});
}

} // namespace megamoe::rt

namespace megamoe::rt {

View inputRegionType(const LayerConfig &c, const std::string &name) {
  View v;
  if (name == "x") {
    v.dtype = DType::E4M3;
    v.shape = {c.maxTokens, c.hidden};
  } else if (name == "x_sf") {
    v.dtype = DType::F32;
    v.shape = {c.maxTokens, c.hidden / 128};
  } else if (name == "topk_idx") {
    v.dtype = DType::I64;
    v.shape = {c.maxTokens, c.topk};
  } else if (name == "topk_weights") {
    v.dtype = DType::F32;
    v.shape = {c.maxTokens, c.topk};
  } else {
    fail(ErrorKind::InvalidArgument,
         "unknown input region '" + name +
             "' (known: x, x_sf, topk_idx, topk_weights)");
  }
  v.bytes = dtypeBytes(v.dtype);
  for (int64_t d : v.shape)
    v.bytes *= (uint64_t)d;
  return v;
}

void checkTransformArgs(const LayerConfig &c, const TensorDesc &w,
                        const TensorDesc &sf, const TensorDesc &wOut,
                        const TensorDesc &sfOut) {
  const int64_t e = c.localExperts(), h = c.hidden, i = c.intermediate;
  auto check = [](const char *name, const TensorDesc &t, DType dtype,
                  const std::vector<int64_t> &shape) {
    std::string who = std::string("weight transform: ") + name;
    require(t.dtype == dtype, who + " must be " + dtypeName(dtype) + ", got " +
                                  dtypeName(t.dtype));
    require(t.shape == shape, who + " must have shape " + shapeString(shape) +
                                  ", got " + shapeString(t.shape));
    require(t.address != 0 && t.address % 16 == 0,
            who + " must be a non-null 16-byte aligned pointer");
  };
  check("l1_weight", w, DType::E4M3, {e, 2 * i, h});
  check("l1_scale", sf, DType::F32, {e, 2 * i / 128, h / 128});
  check("l1_weight_out", wOut, DType::E4M3, {e, 2 * i, h});
  check("l1_scale_out", sfOut, DType::F32, {e, 2 * i / 128, h / 128, 2});
  uint64_t wBytes = (uint64_t)(e * 2 * i * h);
  uint64_t sfBytes = (uint64_t)(e * 2 * i / 128 * (h / 128)) * 4;
  auto overlap = [](uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
    return a < b + bn && b < a + an;
  };
  require(!overlap(w.address, wBytes, wOut.address, wBytes) &&
              !overlap(sf.address, sfBytes, sfOut.address, 2 * sfBytes),
          "weight transform: the outputs must not overlap the inputs");
}

} // namespace megamoe::rt
