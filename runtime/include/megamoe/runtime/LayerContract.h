//===- LayerContract.h - the layer's tensors and their checks ---*- C++ -*-===//
//
// The layer is described by the compiler's own LayerConfig (lib/Config), read
// from the manifest's "config". One table, layerTensors(), lists every tensor
// of the layer's contract (DESIGN.md section 3): its name, element type,
// shape in symbols and for this config, where it lives (a symmetric-buffer
// input region or a forward argument) and which weight transform produces
// it. The region views, the forward's argument checks, the bind sizes of
// input-bound TMA descriptors and the weight transform's checks all read it.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_LAYERCONTRACT_H
#define MEGAMOE_RUNTIME_LAYERCONTRACT_H

#include "megamoe/runtime/Manifest.h"

#include "megamoe/Config/LayerConfig.h"

#include <cstdint>
#include <string>
#include <vector>

namespace megamoe::rt {

/// The layer as the compiler describes it (config::LayerConfig).
using LayerConfig = config::LayerConfig;

/// config::validate; throws Error(InvalidArgument) with its first message
/// (and the count of the others) when the config breaks a rule.
void checkLayerConfig(const LayerConfig &c);

/// Throws Error(InvalidArgument) naming the first field (hidden,
/// intermediate, experts, topk, ranks, max_tokens_per_rank, recipe.*, chip,
/// activation, clamp, fast_math) in which `given` differs from `compiled`,
/// the manifest's config.
void checkConfigMatches(const LayerConfig &compiled, const LayerConfig &given,
                        const std::string &manifestName);

/// Where a tensor of the layer lives.
enum class TensorHome {
  Region,  // this rank's symmetric buffer (x, x_sf, topk_idx, topk_weights)
  Forward, // a forward argument (weights in the kernel layout, y)
  User,    // the weight transform's input (user layout)
};

/// Which weight transform writes a forward tensor (User -> Forward).
enum class TensorTransform { None, L1Interleave, L1ScalePairs };

struct LayerTensor {
  const char *name;    // "x", "l1_weight", "l1_weight_user", ...
  TensorHome home;
  DType dtype;
  const char *symbols; // the shape in symbols, e.g. "[L, 2I, H/128, 2]"
  std::vector<int64_t> shape; // for the config; y has num_tokens rows
  TensorTransform transform = TensorTransform::None;
  const char *from = nullptr; // the User tensor a transform reads

  uint64_t bytes() const;
};

/// Every tensor of the layer for `c` (y with `numTokens` rows).
std::vector<LayerTensor> layerTensors(const LayerConfig &c,
                                      int64_t numTokens = 0);
/// The entry `name`; throws Error(InvalidArgument) listing the known names.
LayerTensor layerTensor(const LayerConfig &c, const std::string &name,
                        int64_t numTokens = 0);

/// A tensor as the C API and Python describe it (row-major, contiguous).
struct TensorDesc {
  uint64_t address = 0;
  DType dtype = DType::U8;
  std::vector<int64_t> shape;
};

/// The forward's operands in the kernel layout (after the weight transform).
struct ForwardArgs {
  int64_t numTokens = 0; // T_r
  TensorDesc l1Weight;   // e4m3 [L, 2I, H] (gate/up interleaved)
  TensorDesc l1Scale;    // f32  [L, 2I/128, H/128, 2]
  TensorDesc l2Weight;   // e4m3 [L, H, I]
  TensorDesc l2Scale;    // f32  [L, H/128, I/128]
  TensorDesc y;          // bf16 [T_r, H]
  /// Optional (address 0: none): i32 [L], cumulative tokens received per
  /// local expert (EPLB statistics); the forward adds this call's counts.
  TensorDesc recvStats;
};

/// Checks `a` against `c`: 0 <= T_r <= T, each tensor's dtype, shape (from
/// layerTensors), a non-null 16-byte aligned address. Throws
/// Error(InvalidArgument) naming the tensor, what was expected and what was
/// given.
void checkForwardArgs(const LayerConfig &c, const ForwardArgs &a);
/// As above with the table built once (the layer's forward: no allocation).
void checkForwardArgs(const LayerConfig &c,
                      const std::vector<LayerTensor> &tensors,
                      const ForwardArgs &a);

/// A typed region of the symmetric buffer.
struct View {
  void *data = nullptr;
  uint64_t bytes = 0;
  DType dtype = DType::U8;
  std::vector<int64_t> shape; // [max_tokens, ...]
};

/// The dtype and shape of the input region `name` (a Region entry of
/// layerTensors). Throws Error(InvalidArgument) for another name.
View inputRegionType(const LayerConfig &c, const std::string &name);

/// The user- and kernel-layout tensors the L1 weight transform accepts
/// (layerTensors' l1_weight_user / l1_scale_user -> l1_weight / l1_scale).
/// Throws Error(InvalidArgument) naming the tensor otherwise.
void checkTransformArgs(const LayerConfig &c, const TensorDesc &w,
                        const TensorDesc &sf, const TensorDesc &wOut,
                        const TensorDesc &sfOut);

/// "[2, 3]" for messages.
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_LAYERCONTRACT_H
