//===- Chip.h - the GPUs kernels are built for, and their limits -*- C++
//-*-===//
//
// The one place that states what a chip allows a kernel (shared memory,
// registers) and the register targets the warp-specialized kernels give their
// roles. The planner (lib/Config), the kernel builders (lib/Kernels) and the
// warpspec verifiers and passes all read these numbers from here. Plain
// C++17, no MLIR/LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONFIG_CHIP_H
#define MEGAMOE_CONFIG_CHIP_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace megamoe::config {

/// The GPU the kernel is generated for.
enum class Chip { SM90a, SM100a };

/// What one CTA may use at one CTA per SM, and the setmaxnreg targets of the
/// warp-specialized kernels' roles on that chip.
struct ChipLimits {
  /// Dynamic shared memory one block may opt in to (cudaFuncSetAttribute).
  int64_t smemPerBlock = 0;
  /// 32-bit registers of one SM: the most one resident CTA may hold.
  int64_t registersPerSM = 0;
  /// Registers per thread one kernel may be compiled for (.maxnreg).
  int64_t maxRegistersPerThread = 0;
  /// setmaxnreg targets of the grouped GEMM: the TMA producer warpgroup and
  /// each math (MMA) warpgroup. 0 = no kernel plan for this chip yet.
  int64_t producerRegisters = 0;
  int64_t mathRegisters = 0;
  /// 32-bit tensor-memory (TMEM) columns of one CTA at one CTA per SM (each
  /// column has 128 lanes); 0 = the chip has no TMEM.
  int64_t tmemColumns = 0;
};

/// The limits of `chip`.
constexpr ChipLimits chipLimits(Chip chip) {
  switch (chip) {
  case Chip::SM90a:
    // H100/H200 (compute capability 9.0): 227 KiB of opt-in shared memory
    // per block, 64 Ki registers per SM, 255 per thread (CUDA C++
    // Programming Guide, "Technical Specifications per Compute Capability").
    // The grouped GEMM gives its TMA warpgroup 40 registers and each of its
    // two math warpgroups 232: 128 x 40 + 256 x 232 = 64,512 of 65,536
    // (setmaxnreg needs multiples of 8; 232 holds the 64x128 FP32
    // accumulator twice plus the promotion's working set without spills).
    return {232448, 65536, 255, 40, 232, 0};
  case Chip::SM100a:
    // B200 (compute capability 10.0): 228 KiB of shared memory per SM of
    // which 227 KiB (232,448 B) one block may opt in to, 64 Ki registers per
    // SM and 255 per thread (same table); 512 TMEM columns x 128 lanes of
    // 32 bits per SM (PTX ISA, "Tensor Memory"). The SM100 lowering of the
    // block-scaled MMA (docs/SM100.md, recipe (b)) promotes each K block's
    // TMEM partial into a register total as SM90 does, so the math
    // warpgroups hold the same 64xN f32 total plus the loaded partial: the
    // same 40 / 232 targets (128 x 40 + 256 x 232 = 64,512 of 65,536).
    return {232448, 65536, 255, 40, 232, 512};
  }
  return {};
}

const char *toString(Chip chip);
std::optional<Chip> parseChip(std::string_view text);

} // namespace megamoe::config

#endif // MEGAMOE_CONFIG_CHIP_H
