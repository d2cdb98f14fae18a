//===- Tma.cpp - TMA descriptor parameters from manifest specs ------------===//
//
// The rules are those of the CUDA driver's cuTensorMapEncodeTiled
// documentation: 16-byte aligned address (32 with 32B interleave), dims in
// [1, 2^32], strides multiples of 16 below 2^40, box entries in [1, 256],
// element strides in [1, 8], the inner box row a multiple of 16 bytes and no
// wider than the swizzle span.
//
//===----------------------------------------------------------------------===//
#include "megamoe/runtime/Tma.h"
#include "megamoe/runtime/Error.h"

#include <cstdio>

namespace megamoe::rt {

unsigned swizzleBytes(Swizzle s) {
  switch (s) {
  case Swizzle::None:
    return 0;
  case Swizzle::B32:
    return 32;
  case Swizzle::B64:
    return 64;
  case Swizzle::B128:
    return 128;
  }
  return 0;
}

TmaParams computeTmaParams(const TmaSpec &spec, const SymbolTable &symbols,
                           uint64_t address, uint64_t tensorBytes) {
  const std::string who = "TMA descriptor '" + spec.name + "'";
  auto check = [&](bool cond, const std::string &what) {
    if (!cond)
      fail(ErrorKind::InvalidArgument, who + ": " + what);
  };
  TmaParams p;
  p.dtype = spec.dtype;
  p.rank = spec.rank;
  p.globalAddress = address;
  p.interleave = spec.interleave;
  p.swizzle = spec.swizzle;
  p.l2Promotion = spec.l2Promotion;
  p.oobFill = spec.oobFill;
  const unsigned elem = (unsigned)config::bytesOf(spec.dtype);

  check(spec.rank >= 1 && spec.rank <= 5, "rank must be in [1, 5]");
  check(spec.interleave == Interleave::None || spec.rank >= 3,
        "interleaved layouts need rank >= 3");
  const uint64_t align = spec.interleave == Interleave::B32 ? 32 : 16;
  check(address != 0, "the tensor address is null");
  check(
      address % align == 0,
      "the tensor address 0x" +
          [&] {
            char buf[32];
            snprintf(buf, sizeof buf, "%llx", (unsigned long long)address);
            return std::string(buf);
          }() +
          " is not " + std::to_string(align) + "-byte aligned");

  for (unsigned i = 0; i < spec.rank; ++i) {
    int64_t d = evaluate(spec.globalShape[i], 0, symbols);
    check(d >= 1 && (uint64_t)d <= (uint64_t(1) << 32),
          "global_shape[" + std::to_string(i) +
              "] = " + describe(spec.globalShape[i]) + " = " +
              std::to_string(d) + " must be in [1, 2^32]");
    p.globalDim[i] = (uint64_t)d;
    p.box[i] = spec.box[i];
    p.elementStrides[i] = spec.elementStrides[i];
    check(p.box[i] >= 1 && p.box[i] <= 256,
          "box[" + std::to_string(i) + "] = " + std::to_string(p.box[i]) +
              " must be in [1, 256]");
    check(p.elementStrides[i] >= 1 && p.elementStrides[i] <= 8,
          "element_strides[" + std::to_string(i) + "] must be in [1, 8]");
  }
  for (unsigned i = 0; i + 1 < spec.rank; ++i) {
    int64_t s = evaluate(spec.globalStridesBytes[i], 0, symbols);
    std::string name = "global_strides_bytes[" + std::to_string(i) +
                       "] = " + describe(spec.globalStridesBytes[i]) + " = " +
                       std::to_string(s);
    check(s > 0 && s % 16 == 0, name + " must be a positive multiple of 16");
    check((uint64_t)s < (uint64_t(1) << 40), name + " must be below 2^40");
    p.globalStrides[i] = (uint64_t)s;
  }
  if (spec.interleave == Interleave::None) {
    uint64_t rowBytes = uint64_t(p.box[0]) * elem;
    check(rowBytes % 16 == 0, "box[0] * " + std::to_string(elem) +
                                  " bytes = " + std::to_string(rowBytes) +
                                  " must be a multiple of 16 bytes");
    unsigned span = swizzleBytes(spec.swizzle);
    check(span == 0 || rowBytes <= span,
          "box[0] * element size = " + std::to_string(rowBytes) +
              " bytes exceeds the " + std::to_string(span) + "B swizzle span");
  }

  // The highest byte reachable: the last element of every dimension.
  uint64_t extent = (p.globalDim[0] - 1) * elem + elem;
  for (unsigned i = 1; i < spec.rank; ++i) {
    uint64_t add;
    if (__builtin_mul_overflow(p.globalDim[i] - 1, p.globalStrides[i - 1],
                               &add) ||
        __builtin_add_overflow(extent, add, &extent))
      check(false, "the addressed extent overflows 64 bits");
  }
  p.extentBytes = extent;
  check(tensorBytes == 0 || extent <= tensorBytes,
        "addresses " + std::to_string(extent) + " bytes but the tensor holds " +
            std::to_string(tensorBytes));
  return p;
}

} // namespace megamoe::rt
