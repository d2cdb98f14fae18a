//===- Layer.h - the MoE layer context --------------------------*- C++ -*-===//
//
// A Layer binds a compiled layer (manifest + cubin), a config, and the
// symmetric memory of this rank. It checks the config against the manifest,
// the rank count and the GPU; exposes the symmetric input regions (x, x_sf,
// topk_idx, topk_weights) as zero-copy views; transforms weights into the
// kernel layout (WeightTransform.h); and runs the forward on a stream.
//
// The forward runs the manifest's "schedule" (e.g. the unfused schedule of
// docs/UnfusedSchedule.md): the kernels in order on the caller's stream, each
// parameter filled from its bind. A manifest with "variants" (e.g. BLOCK_M 64
// for few tokens, 128 for many) has one schedule per token range: the
// forward runs the one whose range holds num_tokens (variantFor). Everything
// fixed for the layer (region addresses, peer table, rank, grids, region-bound
// TMA descriptors) is resolved once at creation; a call fills num_tokens and
// the input tensors (input-bound TMA descriptors are encoded on the host and
// cached by address), with no host synchronization, no device allocation and,
// once every input address has been seen, no host allocation in the layer
// itself (the C API's tensor descriptors hold small vectors): CUDA-graph
// capturable.
//
// HALF-BUILT: a manifest without a schedule can only name the fused kernel,
// whose parameter contract is not defined yet; its forward checks every
// argument and then fails with ErrorKind::NotAvailable.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_LAYER_H
#define MEGAMOE_RUNTIME_LAYER_H

#include "megamoe/runtime/LayerContract.h"
#include "megamoe/runtime/Manifest.h"
#include "megamoe/runtime/WeightTransform.h"

#include <memory>
#include <string>
#include <vector>

typedef struct CUstream_st *CUstream;

namespace megamoe::rt {

class Module;
class SymmetricMemory;

class Layer {
public:
  /// The name of the fused layer kernel the forward launches.
  static constexpr const char *kFusedKernelName = "megamoe_fused_layer";

  /// `symm` must outlive the layer. The config comes from the manifest
  /// ("config"; Manifest::config); `given`, when not null, must equal it
  /// (Error(InvalidArgument) naming the first field that differs). A manifest
  /// without a config (no layer schedule, e.g. the fused kernel's) needs
  /// `given`. Throws for a config that breaks its rules, a rank count other
  /// than config.ranks, a GPU the manifest was not compiled for, or a
  /// symmetric buffer smaller than the manifest's buffer layout. With a
  /// schedule: loads the cubin, resolves the schedule (Schedule.h), zeroes
  /// the workspace and then waits on a cross-rank barrier, so creation is
  /// COLLECTIVE (every rank creates its layer; no peer's kernel can touch
  /// this rank's workspace before it is zeroed). Throws if a peer does not
  /// arrive within `barrierTimeoutMs`.
  static std::unique_ptr<Layer> create(const std::string &manifestPath,
                                       const LayerConfig *given,
                                       const SymmetricMemory &symm,
                                       unsigned barrierTimeoutMs = 60000);
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

  /// Checks `args`, then launches the schedule's kernels in order on
  /// `stream` (see the file comment; HALF-BUILT without a schedule). With
  /// args.recvStats (i32 [L]) it then adds, on the same stream, the tokens
  /// each local expert received in this call (from the pool_row_start region
  /// moe_layout wrote: rank-local, so no peer's next call can change it
  /// before the add runs). Not
  /// thread-safe: one thread at a time per layer (it updates its parameter
  /// storage and descriptor cache).
  void forward(const ForwardArgs &args, CUstream stream) const;

  /// SYNCHRONIZES the device, then reads and zeroes word 0 of the `errors`
  /// region: the number of routing slots since the last call whose expert id
  /// was outside [-1, experts) (skipped by the kernels as masked). Throws
  /// Error(Manifest) if the buffer layout has no `errors` region, and
  /// Error(InvalidArgument) if a call overflowed the token pool (word 1,
  /// also cleared): its output is wrong.
  uint32_t takeErrorCount() const;

  /// The bytes of the phase-profile buffer (manifest "profile"; 0 without
  /// it). forward() zeroes it on its stream before the first kernel, so it
  /// holds the records of the last call (docs/Profile.md).
  uint64_t profileBytes() const { return manifest_.profileBytes; }
  /// Synchronizes, then copies the profile buffer to `dst` (profileBytes()
  /// bytes). Throws Error(NotAvailable) without a profile.
  void readProfile(void *dst) const;

  /// Whether forward() runs a schedule (false: not available yet).
  bool hasSchedule() const { return manifest_.hasLayerSchedule(); }

  /// The index into variants() of the schedule forward(numTokens) runs
  /// (config::selectVariant on the manifest's plan). Throws
  /// Error(InvalidArgument) for numTokens outside [0, max_tokens_per_rank],
  /// Error(NotAvailable) without a schedule.
  size_t variantFor(int64_t numTokens) const;
  /// The layer's variants (Manifest::scheduleVariants: one for a manifest
  /// with a single schedule); empty without a schedule.
  const std::vector<ScheduleVariant> &variants() const { return variants_; }

private:
  Layer();
  void setUpSchedule(unsigned barrierTimeoutMs);

  LayerConfig config_;
  Manifest manifest_;
  std::vector<LayerTensor> tensors_; // layerTensors(config_)
  std::vector<ScheduleVariant> variants_;
  const SymmetricMemory *symm_ = nullptr;
  std::unique_ptr<Module> module_;
  struct Schedule;
  std::unique_ptr<Schedule> schedule_;
  /// The pool_row_start region (EPLB counts), null when the layout has none.
  const int32_t *poolRowStart_ = nullptr;
  /// The phase-profile buffer (device memory of the layer), 0 without one.
  uint64_t profile_ = 0;
};

/// Device version of the L1 transform on `stream` (no layer needed); with
/// `tiled` the weights in the tiled layout (WeightTransform.h), as a layer
/// whose plan has l1_weight_tiles reads them.
void transformL1WeightsDevice(const L1WeightShape &s, const void *w,
                              const float *sf, void *wOut, float *sfOut,
                              CUstream stream, bool tiled = false);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_LAYER_H
