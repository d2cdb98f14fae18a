//===- LayerContract.h - the layer's shapes and their checks ----*- C++ -*-===//
//
// The per-rank tensors of DESIGN.md section 3 and the checks the layer context
// applies before it touches a GPU: the config's own rules, the match between
// the config and a manifest, and the forward's tensors (dtype, shape, token
// count, alignment).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_LAYERCONTRACT_H
#define MEGAMOE_RUNTIME_LAYERCONTRACT_H

#include "megamoe/runtime/Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace megamoe::rt {

struct LayerConfig {
  int64_t hidden = 0;       // H
  int64_t intermediate = 0; // I
  int64_t experts = 0;      // E (global)
  int64_t topk = 0;         // K
  int64_t ranks = 0;        // R
  int64_t maxTokens = 0;    // T, tokens per rank bound

  int64_t localExperts() const { return ranks ? experts / ranks : 0; }
};

/// H % 128, I % 128, E % R, 1 <= K <= E, T >= 1, R >= 1. Throws
/// Error(InvalidArgument) stating the rule and the values.
void checkLayerConfig(const LayerConfig &c);

/// The manifest symbols that carry the config ("hidden", "intermediate",
/// "experts", "topk", "ranks", "max_tokens", and for a manifest with a
/// schedule also "H", "I", "E", "K", "R", "T"); each one the manifest defines
/// must equal the config's value. Throws Error(InvalidArgument) on a mismatch.
void checkManifestMatchesConfig(const Manifest &m, const LayerConfig &c);

/// A tensor as the C API and Python describe it (row-major, contiguous).
struct TensorDesc {
  uint64_t address = 0;
  DType dtype = DType::U8;
  std::vector<int64_t> shape;
};

/// The forward's operands in the kernel layout (after the weight transform).
struct ForwardArgs {
  int64_t numTokens = 0; // T_r
  TensorDesc l1Weight;   // e4m3 [E_local, 2I, H] (gate/up interleaved)
  TensorDesc l1Scale;    // f32  [E_local, 2I/128, H/128, 2]
  TensorDesc l2Weight;   // e4m3 [E_local, H, I]
  TensorDesc l2Scale;    // f32  [E_local, H/128, I/128]
  TensorDesc y;          // bf16 [T_r, H]
};

/// Checks `a` against `c`: 0 <= T_r <= T, each tensor's dtype, shape, a
/// non-null 16-byte aligned address. Throws Error(InvalidArgument) naming the
/// tensor, what was expected and what was given.
void checkForwardArgs(const LayerConfig &c, const ForwardArgs &a);

/// A typed region of the symmetric buffer.
struct View {
  void *data = nullptr;
  uint64_t bytes = 0;
  DType dtype = DType::U8;
  std::vector<int64_t> shape; // [max_tokens, ...]
};

/// The dtype and per-token shape of the input regions (DESIGN.md section 3).
/// Throws Error(InvalidArgument) for an unknown region name.
View inputRegionType(const LayerConfig &c, const std::string &name);

/// The user- and kernel-layout shapes the L1 weight transform accepts.
/// Throws Error(InvalidArgument) naming the tensor otherwise.
void checkTransformArgs(const LayerConfig &c, const TensorDesc &w,
                        const TensorDesc &sf, const TensorDesc &wOut,
                        const TensorDesc &sfOut);

/// "[2, 3]" for messages.
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_LAYERCONTRACT_H
