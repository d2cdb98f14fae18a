//===- Manifest.h - the compiler -> runtime manifest ------------*- C++ -*-===//
//
// The JSON manifest megamoe-opt writes next to each cubin (docs/Manifest.md,
// schema version 2), parsed and checked once so that launching needs no
// further validation of the manifest itself.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_MANIFEST_H
#define MEGAMOE_RUNTIME_MANIFEST_H

#include "megamoe/runtime/LaunchShape.h"

#include "megamoe/Config/LayerConfig.h"
#include "megamoe/Config/Plan.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace megamoe::rt {

/// Element types are lib/Config's (names and sizes: config::toString,
/// config::bytesOf).
using DType = config::DType;
enum class Swizzle { None, B32, B64, B128 };
enum class Interleave { None, B16, B32 };
enum class L2Promotion { None, B64, B128, B256 };
enum class OobFill { Zero, NaN };
enum class ParamKind { Pointer, I32, I64, U32, U64, F32, TmaDescriptor };

const char *paramKindName(ParamKind k);

/// A TMA descriptor as the manifest describes it; shapes and strides are
/// constants or a runtime symbol times a constant (innermost dimension
/// first).
struct TmaSpec {
  std::string name;
  DType dtype = DType::U8;
  unsigned rank = 0;
  std::vector<LaunchDim> globalShape;          // rank entries
  std::vector<LaunchDim> globalStridesBytes;   // rank - 1 entries
  std::vector<uint32_t> box;                   // rank entries
  std::vector<uint32_t> elementStrides;        // rank entries
  Swizzle swizzle = Swizzle::None;
  Interleave interleave = Interleave::None;
  L2Promotion l2Promotion = L2Promotion::None;
  OobFill oobFill = OobFill::Zero;
};

/// What the runtime passes for a parameter of a layer-schedule kernel
/// (docs/UnfusedSchedule.md, "Parameter binding"; manifest "bind"):
///   region:NAME   this rank's symmetric base + the region's offset
///   peer_offsets  the device table of R int64 peer offsets
///   input:NAME    a forward tensor (kBindInputs)
///   value:NAME    a per-layer or per-call integer (kBindValues)
///   profile       the layer's phase-profile buffer (manifest "profile",
///                 docs/Profile.md), zeroed before every call
enum class BindKind { None, Region, PeerOffsets, Input, Value, Profile };

struct ParamBind {
  BindKind kind = BindKind::None;
  std::string name; // region / input / value name
};

/// The names `input:` and `value:` accept.
inline constexpr const char *kBindInputs[] = {"l1_weight", "l1_scale",
                                              "l2_weight", "l2_scale", "y"};
inline constexpr const char *kBindValues[] = {"num_tokens", "rank"};

/// Parses a "bind" string. Throws Error(Manifest) for an unknown bind kind or
/// an unknown input/value name (naming the known ones); `where` prefixes the
/// message.
ParamBind parseBind(const std::string &text, const std::string &where);
/// The manifest spelling of `b` ("region:l1_pool", "peer_offsets", ...).
std::string bindString(const ParamBind &b);

struct ParamSpec {
  std::string name;
  ParamKind kind = ParamKind::Pointer;
  std::string tma; // the TmaSpec name, for kind == TmaDescriptor
  ParamBind bind;  // BindKind::None when the manifest gives no "bind"
};

struct KernelSpec {
  std::string name;
  std::array<uint32_t, 3> block{1, 1, 1};
  /// Constants or the SM count (capped); never a runtime symbol.
  std::array<LaunchDim, 3> grid{};
  std::array<uint32_t, 3> cluster{1, 1, 1};
  uint32_t dynamicSmemBytes = 0;
  uint32_t maxRegisters = 0;
  /// The kernel waits for the grid before it (griddepcontrol.wait) before
  /// touching memory, so it is launched with programmatic stream
  /// serialization: its CTAs may be scheduled while that grid finishes.
  bool programmaticLaunch = false;
  std::vector<ParamSpec> params;
  std::vector<TmaSpec> tmaDescriptors;

  const TmaSpec *findTma(const std::string &name) const;
};

/// One way of running a layer: the kernels the forward launches, in order, for
/// a call whose num_tokens lies in [minTokens, maxTokens] (manifest
/// "variants"; e.g. a BLOCK_M 64 schedule for few tokens, 128 for many).
struct ScheduleVariant {
  int64_t minTokens = 0;
  int64_t maxTokens = 0;
  int64_t blockM = 0; // the pool block / GEMM BLOCK_M (0: not given)
  std::vector<std::string> schedule;
};

/// One region of the symmetric buffer (offset and size in bytes).
struct BufferRegion {
  std::string name;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

struct BufferLayout {
  uint64_t totalBytes = 0;
  /// [0, workspaceBytes) holds counters the kernel expects zero at the first
  /// call (it restores them itself afterwards); the layer zeroes them once.
  uint64_t workspaceBytes = 0;
  std::vector<BufferRegion> regions;

  const BufferRegion *find(const std::string &name) const;
};

struct Manifest {
  int version = 0;
  std::string chip;
  std::string cubin; // file name relative to `directory`
  std::string ptx;
  std::string directory; // where the manifest was read from ("" if memory)
  /// Compile-time facts by name (E, N, K, H, T, ...): checked against the
  /// config and read by tools, never by a launch field.
  SymbolTable symbols;
  /// The names a launch supplies ({"symbol": ...} in TMA fields).
  std::vector<std::string> runtimeSymbols;
  std::vector<KernelSpec> kernels;
  std::optional<BufferLayout> bufferLayout;
  /// Kernel names in launch order (a layer schedule; empty = none). Every
  /// name is a kernel of this manifest whose parameters all have a bind.
  std::vector<std::string> schedule;
  /// The manifest's "variants" (empty when it has none; a manifest has
  /// "schedule" or "variants", never both): ascending, contiguous token ranges
  /// from 0 to the symbol T, each with a non-empty schedule checked like
  /// `schedule`.
  std::vector<ScheduleVariant> variants;
  /// A layer manifest's "config" and "plan" (what planToJson wrote, read back
  /// with planFromJson). parseManifest checks them against the rest: the
  /// config and plan valid (config::validate, validatePlan), buffer_layout
  /// equal to computeBufferLayout(config, plan), the variants' token ranges
  /// and block_m equal to the plan's, and the short symbols (H, I, E, K, R,
  /// T) equal to the config's. Both present or both absent.
  std::optional<config::LayerConfig> config;
  std::optional<config::Plan> plan;
  /// The bytes of the phase-profile buffer ("profile": {"bytes": N}; 0 =
  /// no profile): the runtime allocates it for the "profile" binds.
  uint64_t profileBytes = 0;

  const KernelSpec *findKernel(const std::string &name) const;
  /// Whether the manifest is a layer schedule ("schedule" or "variants").
  bool hasLayerSchedule() const {
    return !schedule.empty() || !variants.empty();
  }
  /// The layer's variants: `variants`, or a single `schedule` as one variant:
  /// the plan's one variant (range and blockM), or without a plan [0, T] (the
  /// whole int64 range without a symbol T; blockM = the symbol BM, 0 without
  /// one); empty when the manifest has no schedule.
  std::vector<ScheduleVariant> scheduleVariants() const;
  /// The cubin path (directory + cubin).
  std::string cubinPath() const;
};

/// Parses and checks manifest text; `directory` is where relative paths in it
/// point. Throws Error(Manifest) naming the offending field (e.g.
/// "kernels[0].tma_descriptors[1].box: expected 2 entries, got 3"). Binds are
/// checked here: the kind and name, the parameter kind they can fill, and
/// that a bound region exists in buffer_layout; so are "schedule" and
/// "variants" (Manifest::variants), and "config" / "plan" (Manifest::plan).
Manifest parseManifest(const std::string &jsonText,
                       const std::string &directory = "");

/// Reads and parses a manifest file. Throws Error(Io) if it cannot be read.
Manifest loadManifestFile(const std::string &path);

/// Reads a whole file as bytes. Throws Error(Io) naming the path.
std::string readFileBytes(const std::string &path);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_MANIFEST_H
