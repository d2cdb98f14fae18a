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

/// One tile of a CTA in a cluster of `cluster` CTAs (TileScheduler::cluster
/// > 1): the CTAs of a cluster get adjacent m-blocks [first, first + C) at
/// the same n-block. A CTA whose m-block is past the last one computes the
/// last m-block again (so that every CTA of the cluster runs the same
/// pipeline stages) but does not own it: it stores nothing.
struct ClusterTile {
  mlir::Value owned;       // i1: the CTA's m-block is below numMBlocks
  mlir::Value firstMBlock; // index: the cluster's first m-block
  mlir::Value lastMBlock;  // index: its last one below numMBlocks
};

/// The output tiles of a grouped GEMM handed out round-robin to a persistent
/// grid: `numMBlocks` row blocks (an i32 known at run time) x `nBlocks`
/// column blocks, in rasters of `raster` column blocks (from the kernel
/// plan: L2 reuse of the weights); with `cluster` C > 1, groups of C
/// adjacent m-blocks per cluster (warpspec.tile_loop ... cluster C).
/// With kSplit > 1 the last, partial wave's tiles are split along K
/// (warpspec.tile_loop k_split): `unit` is -1 for a whole tile, else the
/// split unit u (i32): part u mod kSplit of split tile u / kSplit.
struct TileScheduler {
  mlir::Value numMBlocks;
  int64_t nBlocks = 1;
  int64_t raster = 1;
  int64_t cluster = 1;
  int64_t kSplit = 1;
  int64_t kSplitTiles = 0; // the most split tiles (their workspace)

  /// Emits the tile loop at the insertion point; `body` builds one tile at
  /// (mBlock, nBlock) (index values; mBlock below numMBlocks). `at` is
  /// null without a cluster, `unit` without kSplit.
  void forEachTile(
      mlir::OpBuilder &b, mlir::Location loc,
      llvm::function_ref<void(mlir::OpBuilder &, mlir::Value mBlock,
                              mlir::Value nBlock, const ClusterTile *at,
                              mlir::Value unit)>
          body) const;
};

/// The tiles of two GEMMs over the same m-blocks, where the second's tiles
/// of an m-block read what the first's stored (the fused L1 + L2 kernel),
/// interleaved in waves of `waveMBlocks` m-blocks, each wave's second-GEMM
/// tiles after the first-GEMM tiles of the `lag` waves that follow it
/// (warpspec.wave_loop). `body` builds one tile of `phase` 0 (`first`) or 1
/// (`second`) at (mBlock, nBlock). Neither scheduler may have a cluster or
/// a K split; both walk `first.numMBlocks`.
void forEachWaveTile(
    mlir::OpBuilder &b, mlir::Location loc, const TileScheduler &first,
    const TileScheduler &second, int64_t waveMBlocks, int64_t lag,
    llvm::function_ref<void(mlir::OpBuilder &, int phase, mlir::Value mBlock,
                            mlir::Value nBlock)>
        body);

} // namespace megamoe::collectives

#endif // MEGAMOE_LIB_KERNELS_COLLECTIVES_TILESCHEDULER_H
