//===- Layer.h - the MoE layer context --------------------------*- C++ -*-===//
//
// A Layer binds a compiled layer (manifest + cubin), a config, and the
// symmetric memory of this rank. It checks the config against the manifest,
// the rank count and the GPU; exposes the symmetric input regions (x, x_sf,
// topk_idx, topk_weights) as zero-copy views; transforms weights into the
// kernel layout (WeightTransform.h); and runs the forward on a stream.
//
// HALF-BUILT: forward() checks every argument and then fails with
// ErrorKind::NotAvailable while the manifest holds no fused layer kernel
// (none is generated yet). The views need the manifest's buffer_layout.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_LAYER_H
#define MEGAMOE_RUNTIME_LAYER_H

#include "megamoe/runtime/LayerContract.h"
#include "megamoe/runtime/Manifest.h"
#include "megamoe/runtime/WeightTransform.h"

#include <memory>
#include <string>

typedef struct CUstream_st *CUstream;

namespace megamoe::rt {

class Module;
class SymmetricMemory;

class Layer {
public:
  /// The name of the fused layer kernel the forward launches.
  static constexpr const char *kFusedKernelName = "megamoe_fused_layer";

  /// `symm` must outlive the layer. Throws for a config that breaks its rules
  /// or does not match the manifest, a rank count other than config.ranks, a
  /// GPU the manifest was not compiled for, or a symmetric buffer smaller
  /// than the manifest's buffer layout.
  static std::unique_ptr<Layer> create(const std::string &manifestPath,
                                       const LayerConfig &config,
                                       const SymmetricMemory &symm);
  ~Layer();

  const LayerConfig &config() const { return config_; }
  const Manifest &manifest() const { return manifest_; }

  /// The input region `name` (x | x_sf | topk_idx | topk_weights).
  View view(const std::string &name) const;

  /// Transforms user-layout L1 weights/scales (device pointers) into the
  /// kernel layout on `stream`; the output buffers must not alias the inputs.
  void transformL1Weights(const TensorDesc &w, const TensorDesc &sf,
                          const TensorDesc &wOut, const TensorDesc &sfOut,
                          CUstream stream) const;

  /// Checks `args`, then launches the fused kernel (see HALF-BUILT above).
  void forward(const ForwardArgs &args, CUstream stream) const;

private:
  Layer() = default;
  LayerConfig config_;
  Manifest manifest_;
  const SymmetricMemory *symm_ = nullptr;
};

/// Device version of the L1 transform on `stream` (no layer needed).
void transformL1WeightsDevice(const L1WeightShape &s, const void *w,
                              const float *sf, void *wOut, float *sfOut,
                              CUstream stream);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_LAYER_H
