//===- Target.cpp - chip names and PTX versions ---------------------------===//
#include "megamoe/Conversion/Target.h"

#include <cstring>

namespace {
struct ChipPtx {
  const char *chip;
  const char *features;
};
// PTX 8.6 is the floor for TMA loads into shared::cta on sm_90a; PTX 8.8 for
// the tcgen05 block-scaled MMA variants on sm_100a (notes: MLIR22 3.4).
constexpr ChipPtx kChips[] = {
    {"sm_90a", "+ptx86"},
    {"sm_100a", "+ptx88"},
};
} // namespace

std::optional<std::string>
megamoe::ptxFeaturesForChip(const std::string &chip) {
  for (const ChipPtx &c : kChips)
    if (chip == c.chip)
      return std::string(c.features);
  return std::nullopt;
}

const char *megamoe::supportedChips() { return "sm_90a, sm_100a"; }
