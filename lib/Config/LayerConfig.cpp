//===- LayerConfig.cpp - layer validation ---------------------------------===//
#include "megamoe/Config/LayerConfig.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace megamoe::config {

namespace {

template <typename... Parts> std::string cat(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

} // namespace

std::vector<std::string> validate(const LayerConfig &c) {
  std::vector<std::string> errors;
  auto fail = [&](std::string message) {
    errors.push_back(std::move(message));
  };

  // Shapes. Every GEMM dimension is tiled by the 128x128 weight-scale blocks.
  if (c.hidden < 128 || c.hidden % 128 != 0)
    fail(cat("hidden (H = ", c.hidden,
             ") must be a positive multiple of 128, the scale-block size"));
  if (c.intermediate < 128 || c.intermediate % 128 != 0)
    fail(cat("intermediate (I = ", c.intermediate,
             ") must be a positive multiple of 128, the scale-block size"));
  if (c.ranks < 1 || c.ranks > kMaxRanks)
    fail(cat("ranks (R = ", c.ranks, ") must be between 1 and ", kMaxRanks,
             " (one NVLink domain)"));
  if (c.experts < 1 || c.experts > kMaxExperts)
    fail(cat("experts (E = ", c.experts, ") must be between 1 and ",
             kMaxExperts));
  else if (c.ranks >= 1 && c.experts % c.ranks != 0)
    fail(cat("experts (E = ", c.experts, ") must be divisible by ranks (R = ",
             c.ranks, ") so every rank holds E/R experts"));
  if (c.topk < 1 || (c.experts >= 1 && c.topk > c.experts))
    fail(cat("top-k (K = ", c.topk,
             ") must satisfy 1 <= K <= experts (E = ", c.experts, ")"));
  if (c.maxTokensPerRank < 1)
    fail(cat("max tokens per rank (T = ", c.maxTokensPerRank,
             ") must be at least 1"));
  // Pool rows and source indices (token * K + k, rank * T + token) are i32 in
  // the kernel.
  // (Checked multiplication: an absurd T or K must give this sentence, not
  // an int64 overflow.)
  int64_t slots = 0;
  if (c.maxTokensPerRank >= 1 && c.topk >= 1 && c.ranks >= 1 &&
      (__builtin_mul_overflow(c.maxTokensPerRank, c.topk, &slots) ||
       __builtin_mul_overflow(slots, c.ranks, &slots) ||
       slots > std::numeric_limits<int32_t>::max()))
    fail(cat("max tokens per rank (T = ", c.maxTokensPerRank,
             ") x top-k (K = ", c.topk, ") x ranks (R = ", c.ranks,
             ") must stay below 2^31: the kernel indexes token slots in i32"));
  if (c.hidden > 65536 || c.intermediate > 65536)
    fail(cat("hidden (H = ", c.hidden, ") and intermediate (I = ",
             c.intermediate, ") must be at most 65536"));

  // Recipe: what the SM90 FP8 kernel implements.
  const Recipe &r = c.recipe;
  if (r.activation != DType::E4M3 || r.weight != DType::E4M3)
    fail(cat("recipe: activations (", toString(r.activation), ") and weights (",
             toString(r.weight),
             ") must be e4m3; only FP8 x FP8 is supported"));
  if (r.output != DType::BF16)
    fail(
        cat("recipe: the output type (", toString(r.output), ") must be bf16"));
  // Both chips run the FP32-scales-per-128 recipe; SM100's native UE8M0
  // scales per 32 K (docs/SM100.md, option (a)) have no kernel yet.
  const char *ue8m0 =
      c.chip == Chip::SM100a
          ? "; sm_100a runs the FP32-per-128 recipe (docs/SM100.md option "
            "(b)): UE8M0 scales per 32 K are not implemented"
          : "";
  if (r.inputScaleBlock != 128)
    fail(cat("recipe: the input scale block (", r.inputScaleBlock,
             ") must be 128 channels", ue8m0));
  if (r.weightScaleBlock != 128)
    fail(cat("recipe: the weight scale block (", r.weightScaleBlock,
             ") must be 128 (128x128 blocks)", ue8m0));
  if (r.requantBlock != 128 && r.requantBlock != 64)
    fail(cat("recipe: the L1-output requantization block (", r.requantBlock,
             ") must be 128 or 64 channels"));

  if (c.clamp && !(std::isfinite(*c.clamp) && *c.clamp > 0))
    fail(cat("activation clamp (", *c.clamp,
             ") must be a finite positive number"));
  return errors;
}

namespace {
struct DTypeInfo {
  DType type;
  const char *name;
  int64_t bytes;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::E4M3, "e4m3", 1}, {DType::BF16, "bf16", 2}, {DType::F32, "f32", 4},
    {DType::E5M2, "e5m2", 1}, {DType::F16, "f16", 2},   {DType::U8, "u8", 1},
    {DType::I32, "i32", 4},   {DType::U32, "u32", 4},   {DType::I64, "i64", 8},
    {DType::U64, "u64", 8}};
} // namespace

const char *toString(DType type) {
  for (const DTypeInfo &d : kDTypes)
    if (d.type == type)
      return d.name;
  return "?";
}

int64_t bytesOf(DType type) {
  for (const DTypeInfo &d : kDTypes)
    if (d.type == type)
      return d.bytes;
  return 0;
}

const char *toString(Activation activation) {
  switch (activation) {
  case Activation::SwiGLU:
    return "swiglu";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view text) {
  for (const DTypeInfo &d : kDTypes)
    if (text == d.name)
      return d.type;
  return std::nullopt;
}

std::optional<Activation> parseActivation(std::string_view text) {
  if (text == "swiglu")
    return Activation::SwiGLU;
  return std::nullopt;
}

} // namespace megamoe::config
