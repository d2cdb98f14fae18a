//===- Args.h - binding call arguments to a manifest kernel -----*- C++ -*-===//
//
// bindLaunch checks a caller's named arguments and runtime symbols against a
// KernelSpec and produces everything a launch needs (grid, parameter values,
// TMA parameters) without touching a GPU, so every contract violation is found
// (and unit-tested) on the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_ARGS_H
#define MEGAMOE_RUNTIME_ARGS_H

#include "megamoe/runtime/Manifest.h"
#include "megamoe/runtime/Tma.h"

#include <array>
#include <map>
#include <string>
#include <vector>

namespace megamoe::rt {

/// One named argument: `integer` for integer kinds, `real` for f32, `address`
/// + `bytes` for pointers and tensors behind TMA descriptors (`bytes` 0 means
/// unknown size; then no extent check is possible).
struct ArgValue {
  int64_t integer = 0;
  double real = 0;
  uint64_t address = 0;
  uint64_t bytes = 0;
};

using ArgMap = std::map<std::string, ArgValue>;

struct BoundParam {
  ParamKind kind = ParamKind::Pointer;
  uint64_t bits = 0; // the value for scalar and pointer kinds
  TmaParams tma;     // for TmaDescriptor
};

struct BoundLaunch {
  std::array<uint32_t, 3> grid{};
  std::vector<BoundParam> params; // kernel-argument order
  SymbolTable symbols;            // the runtime symbols given
};

/// The grid of `kernel` on a device of `numSms` SMs; a persistent (num_sms)
/// dimension is rounded down to whole clusters. Throws Error(InvalidArgument)
/// for a grid out of range or not divisible by the cluster shape.
std::array<uint32_t, 3> evaluateGrid(const KernelSpec &kernel, int numSms);

/// Binds `args` and `runtimeSymbols` to `kernel` of `manifest` on a device of
/// `numSms` SMs. Throws Error(InvalidArgument) for a missing or unknown
/// argument or symbol, a null pointer, an integer out of its kind's range, a
/// grid out of range or not divisible by the cluster shape, or a bad TMA
/// descriptor.
BoundLaunch bindLaunch(const Manifest &manifest, const KernelSpec &kernel,
                       const ArgMap &args, const SymbolTable &runtimeSymbols,
                       int numSms);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_ARGS_H
