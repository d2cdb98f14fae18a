//===- Tma.h - TMA descriptor parameters from manifest specs ----*- C++ -*-===//
//
// computeTmaParams resolves a manifest TmaSpec for the runtime symbols and
// a tensor (address + size) and checks every rule cuTensorMapEncodeTiled
// imposes, so that a bad value is reported by name before the driver sees it.
// It needs no GPU; encodeTma (TmaEncode.cpp, driver API) turns the result into
// a CUtensorMap.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_TMA_H
#define MEGAMOE_RUNTIME_TMA_H

#include "megamoe/runtime/Manifest.h"

#include <array>
#include <cstdint>

namespace megamoe::rt {

/// Everything cuTensorMapEncodeTiled takes, as plain values.
struct TmaParams {
  DType dtype = DType::U8;
  uint32_t rank = 0;
  uint64_t globalAddress = 0;
  std::array<uint64_t, 5> globalDim{};
  std::array<uint64_t, 4> globalStrides{}; // bytes, dims 1..rank-1
  std::array<uint32_t, 5> box{};
  std::array<uint32_t, 5> elementStrides{};
  Interleave interleave = Interleave::None;
  Swizzle swizzle = Swizzle::None;
  L2Promotion l2Promotion = L2Promotion::None;
  OobFill oobFill = OobFill::Zero;
  /// The last byte the descriptor can address, plus one, relative to
  /// globalAddress (checked against the tensor's size).
  uint64_t extentBytes = 0;
};

/// Resolves `spec` with the runtime symbols `symbols` over the tensor at
/// `address` holding `tensorBytes` bytes (0 = unknown, not checked). Throws
/// Error(InvalidArgument) naming the descriptor and the broken rule (a
/// missing runtime symbol included).
TmaParams computeTmaParams(const TmaSpec &spec, const SymbolTable &symbols,
                           uint64_t address, uint64_t tensorBytes);

/// Bytes of the swizzle span (0 for none).
unsigned swizzleBytes(Swizzle s);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_TMA_H
