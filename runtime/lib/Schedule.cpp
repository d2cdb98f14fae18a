//===- Schedule.cpp - a layer schedule resolved for one rank --------------===//
#include "megamoe/runtime/Schedule.h"
#include "megamoe/runtime/Args.h"
#include "megamoe/runtime/Error.h"

#include <cstdint>

namespace megamoe::rt {
namespace {

/// A 16-byte aligned, non-null stand-in address: input-bound descriptors are
/// checked at creation for everything but their (per-call) address.
constexpr uint64_t kPlaceholderAddress = uint64_t(1) << 20;

ForwardInput inputOf(const std::string &name) {
  for (size_t i = 0; i < std::size(kBindInputs); ++i)
    if (name == kBindInputs[i])
      return (ForwardInput)i;
  fail(ErrorKind::Manifest, "unknown input '" + name + "'");
}

/// Bytes of the forward tensor `which` for `c` (y: unknown, per call), from
/// the layer's tensor table.
uint64_t inputBytes(const LayerConfig &c, ForwardInput which) {
  if (which == ForwardInput::Y)
    return 0;
  return layerTensor(c, kBindInputs[(size_t)which]).bytes();
}

uint64_t integerBits(ParamKind kind, int64_t v) {
  return kind == ParamKind::I32 || kind == ParamKind::U32
             ? (uint64_t)(uint32_t)v
             : (uint64_t)v;
}

/// Runs `body`; an Error it throws becomes a Manifest error prefixed by `who`
/// (a descriptor or grid the manifest got wrong for this config).
template <typename F> auto inContext(const std::string &who, F &&body) {
  try {
    return body();
  } catch (const Error &e) {
    fail(ErrorKind::Manifest, who + ": " + e.what());
  }
}

PlannedParam planParam(const Manifest &m, const KernelSpec &k,
                       const ParamSpec &p, const LayerConfig &c,
                       const ScheduleEnv &env, const SymbolTable &symbols) {
  const std::string who = "schedule: kernel '" + k.name + "' parameter '" +
                          p.name + "' (" + bindString(p.bind) + ")";
  PlannedParam out;
  out.name = p.name;
  out.kind = p.kind;
  out.tmaName = p.tma;
  const TmaSpec *spec =
      p.kind == ParamKind::TmaDescriptor ? k.findTma(p.tma) : nullptr;
  switch (p.bind.kind) {
  case BindKind::None:
    fail(ErrorKind::Manifest, who + ": the parameter has no bind");
  case BindKind::Region: {
    const BufferRegion *r = m.bufferLayout->find(p.bind.name);
    uint64_t address = env.symmBase + r->offset;
    out.bits = address;
    if (spec)
      out.tma = inContext(who, [&] {
        return computeTmaParams(*spec, symbols, address, r->bytes);
      });
    break;
  }
  case BindKind::PeerOffsets:
    out.bits = env.peerOffsets;
    break;
  case BindKind::Profile:
    require(env.profileBase != 0,
            who + ": the layer allocated no phase-profile buffer");
    out.bits = env.profileBase;
    break;
  case BindKind::Input:
    out.source = PlannedParam::Source::Input;
    out.input = inputOf(p.bind.name);
    if (spec) {
      if (out.input == ForwardInput::Y)
        fail(ErrorKind::Manifest,
             who + ": y has a per-call size (num_tokens rows); a TMA "
                   "descriptor cannot bind it");
      out.tma = inContext(who, [&] {
        return computeTmaParams(*spec, symbols, kPlaceholderAddress,
                                inputBytes(c, out.input));
      });
    }
    break;
  case BindKind::Value:
    if (p.bind.name == "rank") {
      out.bits = integerBits(p.kind, env.rank);
    } else {
      out.source = PlannedParam::Source::NumTokens;
    }
    break;
  }
  return out;
}

} // namespace

int layerGridSms(int deviceSms, const std::optional<config::Plan> &plan) {
  if (plan && plan->numSMs > 0 && plan->numSMs < deviceSms)
    return (int)plan->numSMs;
  return deviceSms;
}

PlannedLayer planLayer(const Manifest &m, const LayerConfig &config,
                       const ScheduleEnv &env) {
  if (!m.hasLayerSchedule())
    fail(ErrorKind::Manifest,
         "schedule: the manifest has no schedule (nor variants)");
  if (!m.bufferLayout)
    fail(ErrorKind::Manifest,
         "schedule: the manifest has no buffer_layout for its regions");
  require(env.symmBase != 0 && env.peerOffsets != 0,
          "schedule: the symmetric buffer or its offset table is null");
  for (const std::string &s : m.runtimeSymbols)
    fail(ErrorKind::Manifest,
         "schedule: runtime symbol '" + s +
             "': a layer's grids and descriptors are fixed when it is created "
             "(constants and the SM count), so it supplies no runtime symbol");
  // Grids and descriptor shapes are fixed for the layer: constants and the
  // SM count, never a per-call value (kernels loop grid-stride over per-call
  // counts), so a descriptor that names a runtime symbol is rejected here.
  const SymbolTable symbols;

  // A persistent grid is the plan's num_sms (the one-GPU multi-rank mode
  // gives each rank 132 / R: kernels whose CTAs wait on each other and on
  // peers need every rank's grid resident at once), at most the device's.
  const int gridSms = layerGridSms(env.numSms, m.plan);

  PlannedLayer plan;
  // Manifest kernel index -> index in plan.kernels.
  std::vector<size_t> planned(m.kernels.size(), SIZE_MAX);
  auto planKernel = [&](const std::string &name) {
    const KernelSpec *k = m.findKernel(name);
    size_t index = (size_t)(k - m.kernels.data());
    if (planned[index] != SIZE_MAX)
      return planned[index];
    PlannedKernel pk;
    pk.name = name;
    pk.kernelIndex = index;
    pk.grid = inContext("schedule: kernel '" + name + "' grid",
                        [&] { return evaluateGrid(*k, gridSms); });
    for (const ParamSpec &p : k->params)
      pk.params.push_back(planParam(m, *k, p, config, env, symbols));
    plan.kernels.push_back(std::move(pk));
    return planned[index] = plan.kernels.size() - 1;
  };
  for (const ScheduleVariant &v : m.scheduleVariants()) {
    PlannedVariant pv;
    pv.minTokens = v.minTokens;
    pv.maxTokens = v.maxTokens;
    pv.blockM = v.blockM;
    for (const std::string &name : v.schedule)
      pv.launches.push_back(planKernel(name));
    plan.variants.push_back(std::move(pv));
  }
  return plan;
}

std::vector<PlannedKernel> PlannedLayer::launchOrder(size_t v) const {
  std::vector<PlannedKernel> out;
  for (size_t k : variants.at(v).launches)
    out.push_back(kernels[k]);
  return out;
}

const TensorDesc &forwardInput(const ForwardArgs &args, ForwardInput which) {
  switch (which) {
  case ForwardInput::L1Weight:
    return args.l1Weight;
  case ForwardInput::L1Scale:
    return args.l1Scale;
  case ForwardInput::L2Weight:
    return args.l2Weight;
  case ForwardInput::L2Scale:
    return args.l2Scale;
  case ForwardInput::Y:
    return args.y;
  }
  return args.y;
}

uint64_t paramBits(const PlannedParam &p, const ForwardArgs &args) {
  switch (p.source) {
  case PlannedParam::Source::Fixed:
    return p.bits;
  case PlannedParam::Source::Input:
    return forwardInput(args, p.input).address;
  case PlannedParam::Source::NumTokens:
    return integerBits(p.kind, args.numTokens);
  }
  return 0;
}

} // namespace megamoe::rt
