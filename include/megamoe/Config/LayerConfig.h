//===- LayerConfig.h - the MoE layer as the user describes it ---*- C++ -*-===//
//
// Plain C++17, no MLIR/LLVM: the compiler (the #megamoe.config attribute) and
// the runtime (which has no LLVM) describe a layer with the same struct and
// validate it with the same rules.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONFIG_LAYERCONFIG_H
#define MEGAMOE_CONFIG_LAYERCONFIG_H

#include "megamoe/Config/Chip.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace megamoe::config {

/// Element types: those of the layer's recipe (e4m3, bf16, f32; validate
/// says which the recipe accepts) and those of the other tensors the
/// compiler, the manifest and the runtime name (TMA descriptors, routing
/// tensors, counters). Their names and sizes live here only.
enum class DType { E4M3, BF16, F32, E5M2, F16, U8, I32, U32, I64, U64 };

/// The only activation of DeepSeek-style MoE layers.
enum class Activation { SwiGLU };

/// Data types and scale-block sizes (DESIGN.md section 3).
struct Recipe {
  DType activation = DType::E4M3; // x and the requantized L1 output
  DType weight = DType::E4M3;     // L1 and L2 weights
  DType output = DType::BF16;     // y
  int64_t inputScaleBlock = 128;  // x_sf: one f32 per token per 128 channels
  int64_t weightScaleBlock = 128; // one f32 per 128x128 weight block
  /// L1 output (the L2 input) requantization: one f32 per token per 128
  /// (default) or 64 channels.
  int64_t requantBlock = 128;
};

/// One routed-expert MoE layer under expert parallelism.
struct LayerConfig {
  int64_t hidden = 0;           // H
  int64_t intermediate = 0;     // I
  int64_t experts = 0;          // E (global)
  int64_t topk = 0;             // K
  int64_t ranks = 1;            // R (EP size)
  int64_t maxTokensPerRank = 0; // T (bound on the per-call token count)
  Recipe recipe;
  Activation activation = Activation::SwiGLU;
  std::optional<double> clamp; // gate <= c, up in [-c, c]; none: no clamp
  bool fastMath = false;       // fast exp / reciprocal in SiLU
  Chip chip = Chip::SM90a;

  /// E / R: the experts each rank holds.
  int64_t localExperts() const { return ranks > 0 ? experts / ranks : 0; }
};

/// Largest EP size: one NVLink domain (NVL72).
constexpr int64_t kMaxRanks = 72;
/// Largest expert count (per-expert counters live in shared memory).
constexpr int64_t kMaxExperts = 4096;

/// Every rule the layer breaks, each as a sentence naming the rule and the
/// offending values; empty when the layer is valid.
std::vector<std::string> validate(const LayerConfig &config);

const char *toString(DType type);
const char *toString(Activation activation);
/// The type named `text` ("e4m3", "i64", ...; toString's spelling).
std::optional<DType> parseDType(std::string_view text);
/// Bytes of one element of `type`.
int64_t bytesOf(DType type);
std::optional<Activation> parseActivation(std::string_view text);

} // namespace megamoe::config

#endif // MEGAMOE_CONFIG_LAYERCONFIG_H
