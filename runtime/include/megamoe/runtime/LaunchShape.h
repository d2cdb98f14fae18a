//===- LaunchShape.h - grid and TMA extents of a manifest -------*- C++ -*-===//
//
// What a manifest's launch fields can say (docs/Manifest.md, "Launch
// shapes"): a grid dimension is a constant or the device's SM count,
// optionally capped by a constant; a TMA global dimension or stride is a
// constant or a runtime symbol of the manifest times a constant. There is no
// expression language: the compiler folds everything it knows into
// constants, and the only values the runtime supplies are the SM count and
// the listed runtime symbols (the standalone grouped GEMM's M).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_LAUNCHSHAPE_H
#define MEGAMOE_RUNTIME_LAUNCHSHAPE_H

#include <cstdint>
#include <map>
#include <string>

namespace megamoe::rt {

/// Values of a manifest's runtime symbols, by name.
using SymbolTable = std::map<std::string, int64_t>;

/// One grid dimension, TMA dimension or TMA stride of a manifest.
struct LaunchDim {
  enum class Kind {
    Constant, // `value`
    NumSms,   // the SM count, at most `value` when `value` > 0 (grids only)
    Symbol,   // the runtime symbol `symbol` times `value` (TMA fields only)
  };
  Kind kind = Kind::Constant;
  int64_t value = 1;
  std::string symbol;

  static LaunchDim constant(int64_t v) { return {Kind::Constant, v, ""}; }
  static LaunchDim numSms(int64_t max = 0) { return {Kind::NumSms, max, ""}; }
  static LaunchDim times(std::string s, int64_t k = 1) {
    return {Kind::Symbol, k, std::move(s)};
  }
  bool operator==(const LaunchDim &o) const {
    return kind == o.kind && value == o.value && symbol == o.symbol;
  }
};

/// The value of `d` on a device of `numSms` SMs with the runtime symbols
/// `symbols`. Throws Error(InvalidArgument) when `d` names a symbol that
/// `symbols` lacks, or when symbol x factor overflows 64 bits.
int64_t evaluate(const LaunchDim &d, int64_t numSms,
                 const SymbolTable &symbols);

/// `d` as a reader would write it in a message: "7168", "num_sms",
/// "min(num_sms, 8)", "M", "M * 4".
std::string describe(const LaunchDim &d);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_LAUNCHSHAPE_H
