//===- TileScheduler.h - the persistent tile order of a GEMM ---*- C++ -*-===//
//
// Part of the collectives every kernel is composed of (docs/Collectives.md):
// the scheduler knows the tile order and nothing of operands or outputs. Each
// role of a kernel walks the same scheduler (warpspec.tile_loop, whose
// verifier checks that they agree), so a producer and its consumers meet on
// the same pipeline stages tile after tile.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_COLLECTIVES_TILESCHEDULER_H
#define MEGAMOE_LIB_KERNELS_COLLECTIVES_TILESCHEDULER_H

#include "mlir/IR/Builders.h"

namespace megamoe::collectives {

/// The output tiles of a grouped GEMM handed out round-robin to a persistent
/// grid: `numMBlocks` row blocks (an i32 known at run time) x `nBlocks`
/// column blocks, in rasters of `raster` column blocks (from the kernel
/// plan: L2 reuse of the weights).
struct TileScheduler {
  mlir::Value numMBlocks;
  int64_t nBlocks = 1;
  int64_t raster = 1;

  /// Emits the tile loop at the insertion point; `body` builds one tile at
  /// (mBlock, nBlock) (index values).
  void forEachTile(
      mlir::OpBuilder &b, mlir::Location loc,
      llvm::function_ref<void(mlir::OpBuilder &, mlir::Value mBlock,
                              mlir::Value nBlock)>
          body) const;
};

} // namespace megamoe::collectives

#endif // MEGAMOE_LIB_KERNELS_COLLECTIVES_TILESCHEDULER_H
