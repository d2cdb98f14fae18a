//===- Target.h - chip names and PTX versions -------------------*- C++ -*-===//
//
// Plain C++ (no MLIR): which PTX ISA version each supported chip is compiled
// with. LLVM 22 aborts in instruction selection ("Cannot select") when the
// PTX version is too old for an instruction, so the version is never left
// to the user.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONVERSION_TARGET_H
#define MEGAMOE_CONVERSION_TARGET_H

#include <optional>
#include <string>

namespace megamoe {

/// The NVPTX feature string for `chip` ("+ptx86" for sm_90a, "+ptx88" for
/// sm_100a), or nullopt when the chip is not supported.
std::optional<std::string> ptxFeaturesForChip(const std::string &chip);

/// The chips ptxFeaturesForChip knows, comma-separated, for error messages.
const char *supportedChips();

} // namespace megamoe

#endif // MEGAMOE_CONVERSION_TARGET_H
