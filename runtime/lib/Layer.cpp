//===- Layer.cpp - the MoE layer context ----------------------------------===//
#include "megamoe/runtime/Layer.h"
#include "CudaCheck.h"
#include "DeviceKernels.h"
#include "TmaEncode.h"
#include "megamoe/runtime/Module.h"
#include "megamoe/runtime/Schedule.h"
#include "megamoe/runtime/Symmetric.h"

#include <unordered_map>

namespace megamoe::rt {

/// The resolved schedule and the parameter storage of every kernel: fixed
/// values are written once at creation, per-call ones by forward(). A kernel
/// shared by several variants has one storage (its binds are the same).
struct Layer::Schedule {
  struct Kernel {
    PlannedKernel plan;
    std::vector<CUtensorMap> maps; // per parameter (used by descriptors)
    std::vector<uint64_t> scalars; // per parameter (pointers, integers)
    std::vector<void *> params;    // what cuLaunchKernelEx reads
    /// Input-bound descriptors, by parameter index: encoded maps by address.
    std::vector<std::unordered_map<uint64_t, CUtensorMap>> cache;
  };
  std::vector<Kernel> kernels;
  /// Per variant: its range and launches (indices into kernels).
  std::vector<PlannedVariant> variants;
  /// Distinct input addresses kept per descriptor before the cache starts
  /// over (a model cycling through many weight sets re-encodes, never grows).
  static constexpr size_t kCacheLimit = 256;
};

Layer::Layer() = default;
Layer::~Layer() {
  // Not in symmetric memory: a plain allocation of this layer's device.
  if (profile_) {
    ScopedDevice scope(symm_->device());
    cuMemFree((CUdeviceptr)profile_);
  }
}

std::unique_ptr<Layer> Layer::create(const std::string &manifestPath,
                                     const LayerConfig *given,
                                     const SymmetricMemory &symm,
                                     unsigned barrierTimeoutMs) {
  std::unique_ptr<Layer> layer(new Layer());
  layer->manifest_ = loadManifestFile(manifestPath);
  const Manifest &m = layer->manifest_;
  if (m.config) {
    if (given)
      checkConfigMatches(*m.config, *given, manifestPath);
    layer->config_ = *m.config;
  } else {
    if (m.hasLayerSchedule())
      fail(ErrorKind::Manifest,
           "layer: the manifest (" + manifestPath +
               ") has a schedule but no \"config\" and \"plan\"; "
               "recompile it with this megamoe-opt");
    if (!given)
      fail(ErrorKind::InvalidArgument,
           "layer: the manifest (" + manifestPath +
               ") carries no config (not a compiled layer); pass one");
    layer->config_ = *given;
  }
  const LayerConfig &config = layer->config_;
  checkLayerConfig(config);
  layer->tensors_ = layerTensors(config);
  layer->variants_ = m.scheduleVariants();
  layer->symm_ = &symm;
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
  if (layer->hasSchedule()) {
    layer->setUpSchedule(barrierTimeoutMs);
  } else if (layer->manifest_.bufferLayout &&
             layer->manifest_.bufferLayout->workspaceBytes > 0) {
    ScopedDevice scope(symm.device());
    checkCu(cuMemsetD8((CUdeviceptr)symm.local(), 0,
                       layer->manifest_.bufferLayout->workspaceBytes),
            "zeroing the workspace counters");
    checkCu(cuCtxSynchronize(), "cuCtxSynchronize");
  }
  return layer;
}

void Layer::setUpSchedule(unsigned barrierTimeoutMs) {
  std::string cubin = readFileBytes(manifest_.cubinPath());
  module_ = Module::loadMemory(manifest_, cubin.data(), cubin.size(),
                               symm_->device());
  if (const BufferRegion *r = manifest_.bufferLayout->find("pool_row_start"))
    poolRowStart_ = (const int32_t *)((const char *)symm_->local() + r->offset);
  ScheduleEnv env;
  env.symmBase = (uint64_t)symm_->local();
  env.peerOffsets = (uint64_t)symm_->deviceOffsets();
  env.rank = symm_->rank();
  env.numSms = module_->numSms();
  if (manifest_.profileBytes > 0) {
    ScopedDevice scope(symm_->device());
    CUdeviceptr p = 0;
    checkCu(cuMemAlloc(&p, manifest_.profileBytes),
            "allocating the phase-profile buffer");
    profile_ = (uint64_t)p;
    env.profileBase = profile_;
  }
  schedule_ = std::make_unique<Schedule>();
  PlannedLayer plan = planLayer(manifest_, config_, env);
  schedule_->variants = std::move(plan.variants);
  for (PlannedKernel &pk : plan.kernels) {
    Schedule::Kernel k;
    size_t n = pk.params.size();
    k.maps.resize(n);
    k.scalars.resize(n);
    k.cache.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const PlannedParam &p = pk.params[i];
      if (p.kind != ParamKind::TmaDescriptor)
        k.scalars[i] = p.bits; // per-call sources overwrite it in forward
      else if (p.source == PlannedParam::Source::Fixed)
        k.maps[i] = encodeTma(p.tma, p.tmaName);
    }
    k.plan = std::move(pk);
    schedule_->kernels.push_back(std::move(k));
  }
  // Parameter i of a kernel lives in maps[i] or scalars[i]; point at them
  // once the kernels stopped moving.
  for (Schedule::Kernel &k : schedule_->kernels)
    for (const PlannedParam &p : k.plan.params) {
      size_t i = k.params.size();
      k.params.push_back(p.kind == ParamKind::TmaDescriptor
                             ? (void *)&k.maps[i]
                             : (void *)&k.scalars[i]);
    }
  // No peer may write into this rank's workspace before it is zeroed: every
  // rank zeroes, then all meet here. Both on a private non-blocking stream
  // and synchronized on that stream alone, so that ranks sharing one GPU
  // (one process, a thread per rank: the one-GPU multi-rank mode) can create
  // their layers concurrently: a context-wide sync or the legacy stream here
  // would wait for a peer's barrier kernel that waits for this one.
  ScopedDevice scope(symm_->device());
  CUstream stream = nullptr;
  checkCu(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
          "cuStreamCreate (layer setup)");
  struct StreamGuard {
    CUstream s;
    ~StreamGuard() { cuStreamDestroy(s); }
  } guard{stream};
  if (manifest_.bufferLayout && manifest_.bufferLayout->workspaceBytes > 0)
    checkCu(cuMemsetD8Async((CUdeviceptr)symm_->local(), 0,
                            manifest_.bufferLayout->workspaceBytes, stream),
            "zeroing the workspace counters");
  // Host-polled (short check kernels, not one kernel spinning for the whole
  // wait): with the spinning form, ranks sharing one GPU intermittently timed
  // out here in the one-GPU multi-rank mode, a peer never getting past its
  // module load (which can wait for running kernels) to arrive.
  if (!symm_->meet(stream, barrierTimeoutMs))
    fail(ErrorKind::InvalidArgument,
         "layer: not every rank created its layer within " +
             std::to_string(barrierTimeoutMs) +
             " ms (creating a layer with a schedule is collective)");
}

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
                              CUstream stream, bool tiled) {
  checkL1WeightShape(s);
  checkCudart(kernels::interleaveL1Weights((const uint8_t *)w, (uint8_t *)wOut,
                                           s.localExperts, s.intermediate,
                                           s.hidden, tiled,
                                           (cudaStream_t)stream),
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
      (float *)sfOut.address, stream,
      /*tiled=*/manifest_.plan && manifest_.plan->l1WeightTiles);
}

void Layer::forward(const ForwardArgs &args, CUstream stream) const {
  checkForwardArgs(config_, tensors_, args);
  if (!schedule_) {
    if (!manifest_.findKernel(kFusedKernelName)) {
      std::string names;
      for (const KernelSpec &k : manifest_.kernels)
        names += (names.empty() ? "" : ", ") + k.name;
      fail(ErrorKind::NotAvailable,
           std::string("forward: not yet available: no fused kernel in this "
                       "manifest and no schedule (looked for '") +
               kFusedKernelName + "', found: " + names + ")");
    }
    // A manifest that names the fused kernel still cannot be run: its
    // parameter contract is not defined yet.
    fail(ErrorKind::NotAvailable,
         "forward: not yet available: the runtime does not know the fused "
         "kernel's parameter contract yet");
  }
  ScopedDevice scope(symm_->device());
  const PlannedVariant &variant =
      schedule_->variants[variantFor(args.numTokens)];
  // The profile holds the records of this call only (unused slots zero).
  if (profile_)
    checkCu(cuMemsetD8Async((CUdeviceptr)profile_, 0, manifest_.profileBytes,
                            stream),
            "zeroing the phase-profile buffer");
  for (size_t launch : variant.launches) {
    Schedule::Kernel &k = schedule_->kernels[launch];
    for (size_t i = 0; i < k.params.size(); ++i) {
      const PlannedParam &p = k.plan.params[i];
      if (p.source == PlannedParam::Source::Fixed)
        continue;
      if (p.kind != ParamKind::TmaDescriptor) {
        k.scalars[i] = paramBits(p, args);
        continue;
      }
      uint64_t address = forwardInput(args, p.input).address;
      auto &cache = k.cache[i];
      auto it = cache.find(address);
      if (it == cache.end()) {
        if (cache.size() >= Schedule::kCacheLimit)
          cache.clear();
        // The spec was checked at creation for a tensor of this size;
        // checkForwardArgs checked the address (non-null, 16-byte aligned).
        TmaParams t = p.tma;
        t.globalAddress = address;
        it = cache.emplace(address, encodeTma(t, p.tmaName)).first;
      }
      k.maps[i] = it->second;
    }
    module_->launchPrepared(k.plan.kernelIndex, k.plan.grid, k.params.data(),
                            stream);
  }
  if (args.recvStats.address != 0 && config_.localExperts() > 0) {
    if (!poolRowStart_)
      fail(ErrorKind::NotAvailable,
           "forward: recv_stats needs the pool_row_start region, which this "
           "manifest's buffer_layout does not have");
    checkCudart(kernels::addExpertRecvCounts(
                    poolRowStart_, (int32_t *)args.recvStats.address,
                    (int)config_.localExperts(), (int)config_.ranks,
                    (cudaStream_t)stream),
                "recv_stats add launch");
  }
}

size_t Layer::variantFor(int64_t numTokens) const {
  if (variants_.empty() || !manifest_.plan)
    fail(ErrorKind::NotAvailable,
         "variant_for: the manifest has no schedule (nor variants)");
  // Called on every forward: the message is built only for a failure.
  const config::Variant *v = config::selectVariant(*manifest_.plan, numTokens);
  if (!v || numTokens < 0)
    fail(ErrorKind::InvalidArgument,
         "variant_for: num_tokens = " + std::to_string(numTokens) +
             " is outside [0, max_tokens_per_rank = " +
             std::to_string(config_.maxTokensPerRank) + "]");
  // The manifest's variants are the plan's, in order (parseManifest).
  return (size_t)(v - manifest_.plan->variants.data());
}

void Layer::readProfile(void *dst) const {
  if (!profile_)
    fail(ErrorKind::NotAvailable,
         "read_profile: the layer was compiled without the phase profile "
         "(megamoe-expand profile=true)");
  ScopedDevice scope(symm_->device());
  checkCu(cuCtxSynchronize(), "cuCtxSynchronize (read_profile)");
  checkCu(cuMemcpyDtoH(dst, (CUdeviceptr)profile_, manifest_.profileBytes),
          "reading the phase-profile buffer");
}

uint32_t Layer::takeErrorCount() const {
  const BufferRegion *r =
      manifest_.bufferLayout ? manifest_.bufferLayout->find("errors") : nullptr;
  if (!r || r->bytes < 4)
    fail(ErrorKind::Manifest,
         "check_errors: the manifest's buffer_layout has no 'errors' region");
  // Word 0: slots with an expert id outside [-1, E) (skipped as masked).
  // Word 1: calls whose routing overflowed the worst-case pool (a token that
  // lists one expert several times, with K > E/R): rows were dropped, so y
  // is wrong, which is an error rather than a count.
  const unsigned words = r->bytes >= 8 ? 2 : 1;
  CUdeviceptr base = (CUdeviceptr)symm_->local() + r->offset;
  ScopedDevice scope(symm_->device());
  checkCu(cuCtxSynchronize(), "cuCtxSynchronize (check_errors)");
  uint32_t counts[2] = {0, 0};
  checkCu(cuMemcpyDtoH(counts, base, 4 * words), "reading the error counters");
  checkCu(cuMemsetD32(base, 0, words), "clearing the error counters");
  checkCu(cuCtxSynchronize(), "cuCtxSynchronize (check_errors)");
  if (counts[1] != 0)
    fail(ErrorKind::InvalidArgument,
         "check_errors: " + std::to_string(counts[1]) +
             " call(s) routed more slots to this rank than its token pool "
             "holds (a token listing one expert more than once?); those "
             "outputs are wrong. Bad expert ids seen: " +
             std::to_string(counts[0]));
  return counts[0];
}

} // namespace megamoe::rt
