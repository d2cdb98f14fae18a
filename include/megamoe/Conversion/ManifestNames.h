//===- ManifestNames.h - the megamoe.* attributes a manifest is made of -*- C++
//-*-===//
//
// The discardable attributes through which kernel builders (lib/Kernels,
// megamoe-expand) and the lowering tell megamoe-collect-manifest what goes
// into a kernel's manifest entry (docs/Manifest.md). The names live here
// only.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONVERSION_MANIFESTNAMES_H
#define MEGAMOE_CONVERSION_MANIFESTNAMES_H

namespace megamoe::manifest {

// On the builtin.module: {gpu-module-name = {chip, symbols, runtime_symbols,
// kernels = [...]}}.
inline constexpr char kManifests[] = "megamoe.manifests";
// On a gpu.module (copied into its manifest).
inline constexpr char kSymbols[] = "megamoe.symbols";
inline constexpr char kRuntimeSymbols[] = "megamoe.runtime_symbols";
// The launch order of a layer's kernels (array of names), from megamoe-expand.
inline constexpr char kSchedule[] = "megamoe.schedule";
// Several schedules by token count: [{min_tokens, max_tokens, block_m,
// schedule}], instead of kSchedule.
inline constexpr char kVariants[] = "megamoe.variants";
// The layer's config, plan and symmetric-buffer layout: the JSON text of
// planToJson, from megamoe-expand (manifest "config", "plan",
// "buffer_layout"; the runtime reads them back with planFromJson).
inline constexpr char kPlan[] = "megamoe.plan_json";
// The layer's activation and recipe (a dictionary), from megamoe-expand.
inline constexpr char kLayer[] = "megamoe.layer";
// The phase profile's layout (manifest "profile", docs/Profile.md), from
// megamoe-expand profile=true only.
inline constexpr char kProfile[] = "megamoe.profile";
// On a kernel llvm.func: [x, y, z], each a positive integer or a dictionary
// {ctas = "num_sms"} with an optional max = N (min(num_sms, N)).
inline constexpr char kGrid[] = "megamoe.grid";
// The keys and values of the launch-shape dictionaries (docs/Manifest.md,
// "Launch shapes"): grid entries {ctas = "num_sms", max = N}; TMA
// global_shape / global_strides_bytes entries (megamoe.tma) a positive
// integer or {symbol = NAME, times = N}, NAME one of megamoe.runtime_symbols.
inline constexpr char kGridCtas[] = "ctas";
inline constexpr char kNumSms[] = "num_sms";
inline constexpr char kGridMax[] = "max";
inline constexpr char kDimSymbol[] = "symbol";
inline constexpr char kDimTimes[] = "times";
inline constexpr char kDynamicSmem[] = "megamoe.dynamic_smem_bytes";
// On a kernel llvm.func (unit): it begins with griddepcontrol.wait and may
// be launched before its predecessor ends (manifest "programmatic_launch").
inline constexpr char kProgrammaticLaunch[] = "megamoe.programmatic_launch";
// On kernel arguments.
inline constexpr char kParamName[] = "megamoe.name";
inline constexpr char kParamKind[] = "megamoe.kind";
inline constexpr char kTma[] = "megamoe.tma";
// What the runtime passes (docs/UnfusedSchedule.md, "Parameter binding").
inline constexpr char kParamBind[] = "megamoe.bind";

} // namespace megamoe::manifest

#endif // MEGAMOE_CONVERSION_MANIFESTNAMES_H
