//===- RangeCheck.h - bounds on planned sizes (private to lib/Config) -----===//
#ifndef MEGAMOE_LIB_CONFIG_RANGECHECK_H
#define MEGAMOE_LIB_CONFIG_RANGECHECK_H

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

namespace megamoe::config::detail {

template <typename... Parts> std::string cat(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

// Bounds that keep every size computation far from int64 overflow; real
// values are much smaller (the fit checks then say what is wrong).
constexpr int64_t kMaxTile = 4096, kMaxStages = 1024, kMaxCount = 1 << 20;

/// "what (value) must be between lo and hi", or nothing.
inline std::optional<std::string> outOfRange(const char *what, int64_t value,
                                             int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi)
    return std::nullopt;
  return cat(what, " (", value, ") must be between ", lo, " and ", hi);
}

} // namespace megamoe::config::detail

#endif // MEGAMOE_LIB_CONFIG_RANGECHECK_H
