//===- TmaEncode.h - TmaParams -> CUtensorMap -------------------*- C++ -*-===//
#ifndef MEGAMOE_RUNTIME_LIB_TMAENCODE_H
#define MEGAMOE_RUNTIME_LIB_TMAENCODE_H

#include "megamoe/runtime/Tma.h"

#include <cuda.h>

#include <string>

namespace megamoe::rt {

/// Encodes checked parameters with cuTensorMapEncodeTiled (host-only work).
CUtensorMap encodeTma(const TmaParams &p, const std::string &name);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_LIB_TMAENCODE_H
