//===- Passes.h - kernel builder passes -------------------------*- C++ -*-===//
#ifndef MEGAMOE_KERNELS_PASSES_H
#define MEGAMOE_KERNELS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::megamoe {

#define GEN_PASS_DECL
#include "megamoe/Kernels/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "megamoe/Kernels/Passes.h.inc"

} // namespace mlir::megamoe

#endif // MEGAMOE_KERNELS_PASSES_H
