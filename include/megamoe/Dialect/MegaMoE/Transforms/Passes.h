//===- Passes.h - megamoe dialect passes ------------------------*- C++ -*-===//
#ifndef MEGAMOE_DIALECT_MEGAMOE_TRANSFORMS_PASSES_H
#define MEGAMOE_DIALECT_MEGAMOE_TRANSFORMS_PASSES_H

#include "megamoe/Dialect/MegaMoE/IR/MegaMoE.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::megamoe {

#define GEN_PASS_DECL
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h.inc"

} // namespace mlir::megamoe

#endif // MEGAMOE_DIALECT_MEGAMOE_TRANSFORMS_PASSES_H
