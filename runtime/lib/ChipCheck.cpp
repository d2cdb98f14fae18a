//===- ChipCheck.cpp - can a cubin's chip run on a device? ----------------===//
#include "megamoe/runtime/ChipCheck.h"

#include <cctype>

namespace megamoe::rt {

namespace {
/// The compute capability "sm_NN[a|f]" names (NN = 10 * major + minor), or
/// -1 for anything else.
int chipCapability(const std::string &chip) {
  if (chip.rfind("sm_", 0) != 0)
    return -1;
  std::string digits = chip.substr(3);
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f'))
    digits.pop_back();
  if (digits.size() < 2 || digits.size() > 3)
    return -1;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return -1;
  return std::stoi(digits);
}

std::string capability(int cc) {
  return std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}
} // namespace

std::string chipMismatch(const std::string &chip, int major, int minor) {
  int want = chipCapability(chip);
  if (want < 0)
    return "the manifest's chip '" + chip +
           "' is not a CUDA target name (expected sm_90a or sm_100a)";
  int have = 10 * major + minor;
  if (want == have)
    return "";
  std::string device = "sm_" + std::to_string(have) + "a";
  return "the kernels were compiled for " + chip + " (compute capability " +
         capability(want) + ") but the device has compute capability " +
         capability(have) + ": " + chip +
         " kernels do not run there; compile them with chip=" + device;
}

std::string clusterUnsupported(const std::string &name, int ctas,
                               int maxActiveClusters) {
  if (ctas > 8)
    return "kernel '" + name + "' asks for clusters of " +
           std::to_string(ctas) +
           " CTAs, more than the 8 of a portable cluster";
  if (maxActiveClusters < 1)
    return "kernel '" + name + "' is launched in clusters of " +
           std::to_string(ctas) +
           " CTAs, but the device cannot run one such cluster with its "
           "block and shared memory (cuOccupancyMaxActiveClusters = " +
           std::to_string(maxActiveClusters) + ")";
  return "";
}

} // namespace megamoe::rt
