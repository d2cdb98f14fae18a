//===- Schedule.h - a layer schedule resolved for one rank ------*- C++ -*-===//
//
// A manifest with a "schedule" lists kernels the layer forward launches in
// order, each parameter carrying a bind (docs/UnfusedSchedule.md); one with
// "variants" has several such schedules, each for a range of token counts.
// planLayer resolves everything that is fixed for the layer's lifetime once,
// on the CPU:
// region addresses, the peer-offset table, the rank, grids, and the TMA
// parameters of every descriptor (region-bound ones complete; input-bound ones
// checked against the config's tensor size, their address filled per call).
// The forward then only fills the per-call values (paramBits) and launches.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_SCHEDULE_H
#define MEGAMOE_RUNTIME_SCHEDULE_H

#include "megamoe/runtime/LayerContract.h"
#include "megamoe/runtime/Manifest.h"
#include "megamoe/runtime/Tma.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace megamoe::rt {

/// The forward tensors `input:NAME` binds (kBindInputs order).
enum class ForwardInput { L1Weight, L1Scale, L2Weight, L2Scale, Y };

/// What the layer knows about its rank when it is created.
struct ScheduleEnv {
  uint64_t symmBase = 0;    // this rank's symmetric buffer (device address)
  uint64_t peerOffsets = 0; // device array of R int64 peer offsets
  int64_t rank = 0;
  int numSms = 0;
  uint64_t profileBase = 0; // the phase-profile buffer (0 = none)
};

struct PlannedParam {
  enum class Source {
    Fixed,     // `bits` (pointer, value:rank) or `tma` (region descriptor)
    Input,     // the forward tensor `input`: pointer, or `tma` + its address
    NumTokens, // value:num_tokens
  };
  std::string name;
  ParamKind kind = ParamKind::Pointer;
  Source source = Source::Fixed;
  uint64_t bits = 0;
  ForwardInput input = ForwardInput::Y;
  /// For TMA descriptors: complete for Source::Fixed; for Source::Input
  /// everything but globalAddress (checked for a tensor of the config's size).
  TmaParams tma;
  std::string tmaName;
};

struct PlannedKernel {
  std::string name;
  size_t kernelIndex = 0; // into Manifest::kernels
  std::array<uint32_t, 3> grid{};
  std::vector<PlannedParam> params; // kernel-argument order
};

/// A variant of the layer: its token range and block size, and its launches
/// in order as indices into PlannedLayer::kernels.
struct PlannedVariant {
  int64_t minTokens = 0;
  int64_t maxTokens = 0;
  int64_t blockM = 0;
  std::vector<size_t> launches;
};

/// Every kernel any variant launches, planned once (a kernel shared by
/// several variants is bound the same way in all of them), and the variants
/// (Manifest::scheduleVariants; one for a manifest with a single schedule).
struct PlannedLayer {
  std::vector<PlannedKernel> kernels;
  std::vector<PlannedVariant> variants;

  /// The kernels of variant `v` in launch order (copies; for tests and
  /// tools).
  std::vector<PlannedKernel> launchOrder(size_t v) const;
};

/// The SMs a layer's persistent grids ("num_sms") take on a device of
/// `deviceSms`: the plan's num_sms when it is smaller (megamoe-plan
/// num-sms, e.g. 132 / R per rank in the one-GPU multi-rank mode), else the
/// device's.
int layerGridSms(int deviceSms, const std::optional<config::Plan> &plan);

/// Resolves the layer schedule of `m` for one rank. Throws Error(Manifest)
/// when the manifest has no schedule (nor variants) or no buffer_layout, a
/// bound region is smaller than a descriptor addresses, an input-bound
/// descriptor addresses more than the config's tensor holds (or binds y,
/// whose size changes per call), or the manifest lists a runtime symbol (a
/// layer's grids and TMA shapes are constants and the SM count). Throws
/// Error(InvalidArgument) for a null base or offset table.
PlannedLayer planLayer(const Manifest &m, const LayerConfig &config,
                       const ScheduleEnv &env);

/// The forward tensor `which` of `args`.
const TensorDesc &forwardInput(const ForwardArgs &args, ForwardInput which);

/// The value of a non-TMA parameter for this call (pointer address or the
/// integer in its kind's bits).
uint64_t paramBits(const PlannedParam &p, const ForwardArgs &args);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_SCHEDULE_H
