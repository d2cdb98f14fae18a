//===- Passes.h - warpspec transformation passes -----------------*- C++
//-*-===//
#ifndef MEGAMOE_DIALECT_WARPSPEC_TRANSFORMS_PASSES_H
#define MEGAMOE_DIALECT_WARPSPEC_TRANSFORMS_PASSES_H

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"
#include "mlir/Pass/Pass.h"

namespace mlir::warpspec {

#define GEN_PASS_DECL
#include "megamoe/Dialect/WarpSpec/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "megamoe/Dialect/WarpSpec/Transforms/Passes.h.inc"

/// One object of a kernel's shared-memory plan.
struct SmemPlanEntry {
  Operation *op;        ///< the smem.alloc or pipeline.create
  llvm::StringRef name; ///< its name attribute
  int64_t offset = 0;   ///< bytes from the start of dynamic SMEM
  int64_t bytes = 0;    ///< bytes it occupies
};

/// The layout `warpspec-plan-smem` applies to `kernel` (without changing the
/// IR): the entries in address order and the total (end of the last one).
/// One function so the pass, the manifest writer and tests agree.
int64_t computeSmemPlan(KernelOp kernel,
                        llvm::SmallVectorImpl<SmemPlanEntry> &entries);

} // namespace mlir::warpspec

#endif // MEGAMOE_DIALECT_WARPSPEC_TRANSFORMS_PASSES_H
