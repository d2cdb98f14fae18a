//===- InitAll.h - register everything megamoe-opt understands --*- C++ -*-===//
//
// One place lists the dialects, passes and translations of the project, so the
// driver, the unit tests and any embedding tool see the same world.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_INITALL_H
#define MEGAMOE_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace megamoe {

/// Upstream dialects the project emits or consumes, the project's own
/// dialects, and the NVVM/GPU translation and target interfaces that
/// gpu-module-to-binary needs.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Upstream passes (canonicalize, cse, convert-nvvm-to-llvm,
/// gpu-module-to-binary, ...) and the project's own passes and pipelines.
void registerAllPasses();

} // namespace megamoe

#endif // MEGAMOE_INITALL_H
