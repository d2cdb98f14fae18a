//===- ChipCheck.h - can a cubin's chip run on a device? --------*- C++ -*-===//
//
// CPU-only (no CUDA): the rule that Module::load and Layer::create apply to
// the manifest's chip and the device's compute capability, kept apart so
// that it is unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_CHIPCHECK_H
#define MEGAMOE_RUNTIME_CHIPCHECK_H

#include <string>

namespace megamoe::rt {

/// Why kernels compiled for `chip` (a manifest's chip: "sm_90a", "sm_100a")
/// cannot run on a device of compute capability `major`.`minor`, or an empty
/// string when they can. Arch-specific targets ("a"; also "f", kept as
/// strict) run only on the compute capability they name: sm_90a kernels
/// (wgmma) do not run on SM100, sm_100a kernels (tcgen05, TMEM) not on SM90.
std::string chipMismatch(const std::string &chip, int major, int minor);

/// Why kernel `name`, launched in clusters of `ctas` CTAs (the product of
/// its manifest `cluster`), cannot run: `maxActiveClusters` is what
/// cuOccupancyMaxActiveClusters reports for its block and shared memory
/// (0 when the device cannot co-schedule one cluster of them); a cluster
/// of more than 8 CTAs (not portable) is refused too. Empty when it can.
std::string clusterUnsupported(const std::string &name, int ctas,
                               int maxActiveClusters);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_CHIPCHECK_H
