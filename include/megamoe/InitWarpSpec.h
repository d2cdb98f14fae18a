//===- InitWarpSpec.h - register the warpspec layer -------------*- C++ -*-===//
//
// The world of warpspec-opt: upstream dialects, the warpspec dialect, the
// NVVM/GPU translations, upstream passes, the warpspec passes and the
// lowering to NVVM / cubin. Not the megamoe dialect or its passes: IR of
// the warpspec layer that still holds a megamoe op fails to parse there.
// InitAll.h adds the megamoe layer on top of this.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_INITWARPSPEC_H
#define MEGAMOE_INITWARPSPEC_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace megamoe {

/// Upstream dialects warpspec kernels use (arith, scf, gpu, llvm, nvvm, ...),
/// the warpspec dialect and the translations gpu-module-to-binary needs.
void registerWarpSpecLayerDialects(mlir::DialectRegistry &registry);

/// Upstream passes, warpspec-plan-smem, convert-warpspec-to-nvvm, the
/// emit passes and the megamoe-to-cubin pipeline.
void registerWarpSpecLayerPasses();

} // namespace megamoe

#endif // MEGAMOE_INITWARPSPEC_H
