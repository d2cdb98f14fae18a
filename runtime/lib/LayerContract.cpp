//===- LayerContract.cpp - the layer's tensors and their checks -----------===//
#include "megamoe/runtime/LayerContract.h"
#include "megamoe/runtime/Error.h"

#include <cstring>
#include <iterator>

namespace megamoe::rt {

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void checkLayerConfig(const LayerConfig &c) {
  std::vector<std::string> problems = config::validate(c);
  if (problems.empty())
    return;
  std::string more =
      problems.size() > 1
          ? " (and " + std::to_string(problems.size() - 1) + " more)"
          : "";
  fail(ErrorKind::InvalidArgument,
       "layer config: " + problems.front() + more);
}

namespace {

std::string text(int64_t v) { return std::to_string(v); }
std::string text(bool v) { return v ? "true" : "false"; }
std::string text(config::DType v) { return config::toString(v); }
std::string text(config::Chip v) { return config::toString(v); }
std::string text(config::Activation v) { return config::toString(v); }
std::string text(const std::optional<double> &v) {
  return v ? std::to_string(*v) : std::string("none");
}

} // namespace

void checkConfigMatches(const LayerConfig &compiled, const LayerConfig &given,
                        const std::string &manifestName) {
  auto check = [&](const char *field, const auto &want, const auto &got) {
    if (!(want == got))
      fail(ErrorKind::InvalidArgument,
           std::string("config does not match the manifest: ") + field +
               " = " + text(got) + " was given but the manifest (" +
               manifestName + ") was compiled for " + field + " = " +
               text(want));
  };
  const config::Recipe &w = compiled.recipe, &g = given.recipe;
  check("hidden", compiled.hidden, given.hidden);
  check("intermediate", compiled.intermediate, given.intermediate);
  check("experts", compiled.experts, given.experts);
  check("topk", compiled.topk, given.topk);
  check("ranks", compiled.ranks, given.ranks);
  check("max_tokens_per_rank", compiled.maxTokensPerRank,
        given.maxTokensPerRank);
  check("recipe.activation", w.activation, g.activation);
  check("recipe.weight", w.weight, g.weight);
  check("recipe.output", w.output, g.output);
  check("recipe.input_scale_block", w.inputScaleBlock, g.inputScaleBlock);
  check("recipe.weight_scale_block", w.weightScaleBlock, g.weightScaleBlock);
  check("recipe.requant_block", w.requantBlock, g.requantBlock);
  check("activation", compiled.activation, given.activation);
  check("clamp", compiled.clamp, given.clamp);
  check("fast_math", compiled.fastMath, given.fastMath);
  check("chip", compiled.chip, given.chip);
}

uint64_t LayerTensor::bytes() const {
  uint64_t n = (uint64_t)config::bytesOf(dtype);
  for (int64_t d : shape)
    n *= (uint64_t)d;
  return n;
}

std::vector<LayerTensor> layerTensors(const LayerConfig &c,
                                      int64_t numTokens) {
  const int64_t H = c.hidden, I = c.intermediate, K = c.topk;
  const int64_t T = c.maxTokensPerRank, L = c.localExperts();
  const int64_t xb = c.recipe.inputScaleBlock, wb = c.recipe.weightScaleBlock;
  const DType act = c.recipe.activation;
  const DType wt = c.recipe.weight;
  const DType out = c.recipe.output;
  using H_ = TensorHome;
  using X = TensorTransform;
  return {
      {"x", H_::Region, act, "[T, H]", {T, H}},
      {"x_sf", H_::Region, DType::F32, "[T, H/128]", {T, H / xb}},
      {"topk_idx", H_::Region, DType::I64, "[T, K]", {T, K}},
      {"topk_weights", H_::Region, DType::F32, "[T, K]", {T, K}},
      {"l1_weight_user", H_::User, wt, "[L, 2I, H]", {L, 2 * I, H}},
      {"l1_scale_user",
       H_::User,
       DType::F32,
       "[L, 2I/128, H/128]",
       {L, 2 * I / wb, H / wb}},
      {"l1_weight",
       H_::Forward,
       wt,
       "[L, 2I, H]",
       {L, 2 * I, H},
       X::L1Interleave,
       "l1_weight_user"},
      {"l1_scale",
       H_::Forward,
       DType::F32,
       "[L, 2I/128, H/128, 2]",
       {L, 2 * I / wb, H / wb, 2},
       X::L1ScalePairs,
       "l1_scale_user"},
      {"l2_weight", H_::Forward, wt, "[L, H, I]", {L, H, I}},
      {"l2_scale", H_::Forward, DType::F32, "[L, H/128, I/128]",
       {L, H / wb, I / wb}},
      {"y", H_::Forward, out, "[num_tokens, H]", {numTokens, H}},
      {"recv_stats", H_::Forward, DType::I32, "[L]", {L}},
  };
}

LayerTensor layerTensor(const LayerConfig &c, const std::string &name,
                        int64_t numTokens) {
  std::vector<LayerTensor> all = layerTensors(c, numTokens);
  std::string known;
  for (LayerTensor &t : all) {
    if (name == t.name)
      return std::move(t);
    known += (known.empty() ? "" : ", ") + std::string(t.name);
  }
  fail(ErrorKind::InvalidArgument,
       "unknown layer tensor '" + name + "' (known: " + known + ")");
}

namespace {

/// Called on every forward: messages are built only for a failure. `rows`
/// replaces the first dimension when >= 0 (y: this call's token count).
void checkTensor(const char *prefix, const TensorDesc &t,
                 const LayerTensor &spec, int64_t rows = -1) {
  auto who = [&] { return std::string(prefix) + spec.name; };
  if (t.dtype != spec.dtype)
    fail(ErrorKind::InvalidArgument, who() + " must be " +
                                         config::toString(spec.dtype) +
                                         ", got " + config::toString(t.dtype));
  bool same = t.shape.size() == spec.shape.size();
  for (size_t i = 0; same && i < t.shape.size(); ++i)
    same = t.shape[i] == (i == 0 && rows >= 0 ? rows : spec.shape[i]);
  if (!same) {
    std::vector<int64_t> want = spec.shape;
    if (rows >= 0)
      want[0] = rows;
    fail(ErrorKind::InvalidArgument,
         who() + " must have shape " + spec.symbols + " = " +
             shapeString(want) + ", got " + shapeString(t.shape));
  }
  // An empty tensor (0 tokens) may have any address.
  for (size_t i = 0; i < t.shape.size(); ++i)
    if (t.shape[i] == 0)
      return;
  if (t.address == 0)
    fail(ErrorKind::InvalidArgument, who() + " is a null pointer");
  if (t.address % 16 != 0)
    fail(ErrorKind::InvalidArgument, who() + " must be 16-byte aligned");
}

} // namespace

void checkForwardArgs(const LayerConfig &c,
                      const std::vector<LayerTensor> &tensors,
                      const ForwardArgs &a) {
  if (a.numTokens < 0 || a.numTokens > c.maxTokensPerRank)
    fail(ErrorKind::InvalidArgument,
         "forward: num_tokens = " + std::to_string(a.numTokens) +
             " is outside [0, max_tokens_per_rank = " +
             std::to_string(c.maxTokensPerRank) + "]");
  const TensorDesc *args[] = {&a.l1Weight, &a.l1Scale, &a.l2Weight,
                              &a.l2Scale,  &a.y,       &a.recvStats};
  const char *names[] = {"l1_weight", "l1_scale", "l2_weight",
                         "l2_scale",  "y",        "recv_stats"};
  for (const LayerTensor &t : tensors) {
    if (t.home != TensorHome::Forward)
      continue;
    for (size_t i = 0; i < std::size(names); ++i) {
      if (std::strcmp(t.name, names[i]) != 0)
        continue;
      // The statistics are optional: an empty descriptor means none.
      if (args[i] == &a.recvStats && a.recvStats.address == 0 &&
          a.recvStats.shape.empty())
        break;
      checkTensor("forward: ", *args[i], t, args[i] == &a.y ? a.numTokens : -1);
      break;
    }
  }
}

void checkForwardArgs(const LayerConfig &c, const ForwardArgs &a) {
  checkForwardArgs(c, layerTensors(c, a.numTokens), a);
}

View inputRegionType(const LayerConfig &c, const std::string &name) {
  LayerTensor t = layerTensor(c, name);
  if (t.home != TensorHome::Region)
    fail(ErrorKind::InvalidArgument,
         "'" + name +
             "' is not an input region (known: x, x_sf, topk_idx, "
             "topk_weights)");
  View v;
  v.dtype = t.dtype;
  v.shape = t.shape;
  v.bytes = t.bytes();
  return v;
}

void checkTransformArgs(const LayerConfig &c, const TensorDesc &w,
                        const TensorDesc &sf, const TensorDesc &wOut,
                        const TensorDesc &sfOut) {
  struct Arg {
    const char *name, *tensor;
    const TensorDesc &d;
  };
  for (const Arg &a : {Arg{"l1_weight", "l1_weight_user", w},
                       Arg{"l1_scale", "l1_scale_user", sf},
                       Arg{"l1_weight_out", "l1_weight", wOut},
                       Arg{"l1_scale_out", "l1_scale", sfOut}}) {
    LayerTensor t = layerTensor(c, a.tensor);
    t.name = a.name; // the caller's argument name in the message
    checkTensor("weight transform: ", a.d, t);
  }
  const uint64_t wBytes = layerTensor(c, "l1_weight").bytes();
  const uint64_t sfBytes = layerTensor(c, "l1_scale_user").bytes();
  auto overlap = [](uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
    return a < b + bn && b < a + an;
  };
  require(!overlap(w.address, wBytes, wOut.address, wBytes) &&
              !overlap(sf.address, sfBytes, sfOut.address, 2 * sfBytes),
          "weight transform: the outputs must not overlap the inputs");
}

} // namespace megamoe::rt
