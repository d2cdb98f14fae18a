//===- PtxasInfo.h - parse `ptxas -v` resource reports ----------*- C++ -*-===//
//
// Plain C++ (no MLIR): the per-kernel resource usage that `ptxas -v` prints,
// parsed so it can go into the manifest and spills can be reported.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONVERSION_PTXASINFO_H
#define MEGAMOE_CONVERSION_PTXASINFO_H

#include <cstdint>
#include <string>
#include <vector>

namespace megamoe {

/// What ptxas reports for one function.
struct PtxasFunctionInfo {
  std::string name;
  int64_t registers = 0;
  int64_t barriers = 0;
  int64_t stackFrameBytes = 0;
  int64_t spillStoresBytes = 0;
  int64_t spillLoadsBytes = 0;
  int64_t staticSmemBytes = 0;
  /// The raw "Used N registers, ..." line, for messages.
  std::string usedLine;
};

/// Parses the `ptxas -v` output (stdout and stderr together). Functions
/// appear in the order ptxas reports them; lines it does not recognize are
/// skipped (ptxas also prints gmem, cmem and warning lines).
std::vector<PtxasFunctionInfo> parsePtxasVerbose(const std::string &text);

} // namespace megamoe

#endif // MEGAMOE_CONVERSION_PTXASINFO_H
