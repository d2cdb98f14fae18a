//===- Layer.cpp - the MoE layer context ----------------------------------===//
#include "megamoe/runtime/Layer.h"
#include "CudaCheck.h"
#include "DeviceKernels.h"
#include "megamoe/runtime/Module.h"
#include "megamoe/runtime/Symmetric.h"

namespace megamoe::rt {

std::unique_ptr<Layer> Layer::create(const std::string &manifestPath,
                                     const LayerConfig &config,
                                     const SymmetricMemory &symm) {
  checkLayerConfig(config);
  std::unique_ptr<Layer> layer(new Layer());
  layer->config_ = config;
  layer->manifest_ = loadManifestFile(manifestPath);
  layer->symm_ = &symm;
  checkManifestMatchesConfig(layer->manifest_, config);
  require(symm.nranks() == config.ranks,
          "layer: the config has ranks = " + std::to_string(config.ranks) +
              " but the communicator has " + std::to_string(symm.nranks()) +
              " ranks");
  checkChipMatchesDevice(layer->manifest_.chip, symm.device());
  if (const BufferLayout *l = layer->manifest_.bufferLayout
                                  ? &*layer->manifest_.bufferLayout
                                  : nullptr)
    require(l->totalBytes <= symm.usableBytes(),
            "layer: the manifest's buffer layout needs " +
                std::to_string(l->totalBytes) +
                " bytes per rank but the symmetric buffer has " +
                std::to_string(symm.usableBytes()));
  if (layer->manifest_.bufferLayout &&
      layer->manifest_.bufferLayout->workspaceBytes > 0) {
    ScopedDevice scope(symm.device());
    checkCu(cuMemsetD8((CUdeviceptr)symm.local(), 0,
                       layer->manifest_.bufferLayout->workspaceBytes),
            "zeroing the workspace counters");
    checkCu(cuCtxSynchronize(), "cuCtxSynchronize");
  }
  return layer;
}

Layer::~Layer() = default;

View Layer::view(const std::string &name) const {
  View v = inputRegionType(config_, name);
  if (!manifest_.bufferLayout)
    fail(ErrorKind::NotAvailable,
         "layer: the manifest has no buffer_layout, so the input regions "
         "are unknown");
  const BufferRegion *r = manifest_.bufferLayout->find(name);
  if (!r)
    fail(ErrorKind::Manifest,
         "layer: the manifest's buffer_layout has no region '" + name + "'");
  if (r->bytes < v.bytes)
    fail(ErrorKind::Manifest, "layer: buffer_layout region '" + name +
                                  "' holds " + std::to_string(r->bytes) +
                                  " bytes, the config needs " +
                                  std::to_string(v.bytes));
  v.data = (char *)symm_->local() + r->offset;
  return v;
}

void transformL1WeightsDevice(const L1WeightShape &s, const void *w,
                              const float *sf, void *wOut, float *sfOut,
                              CUstream stream) {
  checkL1WeightShape(s);
  checkCudart(kernels::interleaveL1Weights((const uint8_t *)w, (uint8_t *)wOut,
                                           s.localExperts, s.intermediate,
                                           s.hidden, (cudaStream_t)stream),
              "L1 weight interleave launch");
  checkCudart(kernels::relayoutL1Scales(sf, sfOut, s.localExperts,
                                        s.intermediate, s.hidden,
                                        (cudaStream_t)stream),
              "L1 scale re-layout launch");
}

void Layer::transformL1Weights(const TensorDesc &w, const TensorDesc &sf,
                               const TensorDesc &wOut, const TensorDesc &sfOut,
                               CUstream stream) const {
  checkTransformArgs(config_, w, sf, wOut, sfOut);
  transformL1WeightsDevice(
      {config_.localExperts(), config_.intermediate, config_.hidden},
      (const void *)w.address, (const float *)sf.address, (void *)wOut.address,
      (float *)sfOut.address, stream);
}

void Layer::forward(const ForwardArgs &args, CUstream stream) const {
  (void)stream;
  checkForwardArgs(config_, args);
  if (!manifest_.findKernel(kFusedKernelName)) {
    std::string names;
    for (const KernelSpec &k : manifest_.kernels)
      names += (names.empty() ? "" : ", ") + k.name;
    fail(ErrorKind::NotAvailable,
         std::string("forward: not yet available: no fused kernel in this "
                     "manifest (looked for '") +
             kFusedKernelName + "', found: " + names + ")");
  }
  // A manifest that names the fused kernel still cannot be run: its
  // parameter contract is not defined yet.
  fail(ErrorKind::NotAvailable,
       "forward: not yet available: the runtime does not know the fused "
       "kernel's parameter contract yet");
}

} // namespace megamoe::rt
