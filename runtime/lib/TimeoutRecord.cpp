//===- TimeoutRecord.cpp - a timeout record as its report line ------------===//
//
// CPU only (megamoe_runtime_core): the record's layout is the compiler's
// (TimeoutRecord.h); the text is the one the device printf used to print.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Conversion/WarpSpecToNVVM/TimeoutRecord.h"
#include "megamoe/runtime/TimeoutReport.h"

#include <cstring>

namespace megamoe::rt {

namespace t = megamoe::timeout;

std::string formatTimeoutRecord(const uint32_t *words) {
  if (words[t::kComplete] != 1)
    return "";
  // The name: NUL-terminated within its field (bytes, little-endian words).
  char name[t::kNameBytes + 1] = {};
  std::memcpy(name, words + t::kName, t::kNameBytes);
  if (std::memchr(words + t::kName, 0, t::kNameBytes) == nullptr)
    std::strcpy(name + t::kNameBytes - 3, "...");
  uint64_t cycles = uint64_t(words[t::kCyclesHi]) << 32 | words[t::kCyclesLo];
  auto u = [&](int word) { return std::to_string(words[word]); };
  std::string where =
      "(block " + u(t::kBlock) + ", thread " + u(t::kThread) + "): ";
  std::string after = " after " + std::to_string(cycles) + " cycles";
  switch (static_cast<t::RecordKind>(words[t::kKind])) {
  case t::RecordKind::Counter:
    return "megamoe: timeout waiting for counter '" + std::string(name) + "' " +
           where + "value " + u(t::kValue) +
           ", expected >= " + u(t::kExpected) + after;
  case t::RecordKind::CrossRankBarrier:
    return "megamoe: timeout in cross-rank barrier '" + std::string(name) +
           "' on rank " + u(t::kRank) + " " + where + "phase " + u(t::kPhase) +
           ", " + u(t::kValue) + " of " + u(t::kExpected) + " ranks arrived" +
           after;
  }
  return "megamoe: timeout in '" + std::string(name) + "' " + where +
         "(unknown record kind " + u(t::kKind) + ")";
}

} // namespace megamoe::rt
