//===- Chip.cpp - chip names ----------------------------------------------===//
#include "megamoe/Config/Chip.h"

namespace megamoe::config {

const char *toString(Chip chip) {
  switch (chip) {
  case Chip::SM90a:
    return "sm_90a";
  case Chip::SM100a:
    return "sm_100a";
  }
  return "?";
}

std::optional<Chip> parseChip(std::string_view text) {
  if (text == "sm_90a")
    return Chip::SM90a;
  if (text == "sm_100a")
    return Chip::SM100a;
  return std::nullopt;
}

} // namespace megamoe::config
