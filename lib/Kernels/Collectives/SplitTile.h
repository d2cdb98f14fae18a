//===- SplitTile.h - the K-split tail's hand-off of partial sums -*- C++ -*-===//
//
// Part of the collectives (docs/Collectives.md). With warpspec.tile_loop
// k_split P the tiles of a GEMM's last, partial wave are computed as P units
// of K / P each, on P CTAs at once, so that the SMs that wave would leave
// idle stream weights too. Per split tile and math warpgroup:
//   - units 0 .. P - 2 spill their partial accumulators (warpspec.acc.spill)
//     into their slots of `partials`, meet on the warpgroup's barrier, and
//     one thread releases `counts[2 tile + slot] += 1` (red.release.gpu);
//   - unit P - 1 (whichever CTA runs it) waits until the count is P - 1
//     (ld.acquire.gpu, bounded: past `timeoutCycles` it prints the counter
//     and traps), meets its warpgroup, reads the partials back
//     (warpspec.acc.fill), sums them in part order 0, 1, ..., P - 1 (its
//     own last; a second column block's own partial waits in the unit's own
//     slot meanwhile), zeroes the count and runs the tile's epilogue.
// The sum order is fixed, so the result is the same whichever CTA runs
// which unit; every kernel that splits the same tiles (the tile loop's
// choice depends only on the tile count and the grid) computes the same
// bits. Cannot deadlock: the last unit waits only on units of smaller index,
// which run on resident CTAs (the persistent grid) or are done.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_COLLECTIVES_SPLITTILE_H
#define MEGAMOE_LIB_KERNELS_COLLECTIVES_SPLITTILE_H

#include "BlockScaledMainloop.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace megamoe::collectives {

/// Where the units of a GEMM's split tiles meet.
struct SplitTileHandoff {
  mlir::Value partials; // !warpspec.global<f32>: [tiles x P, tileFloats]
  mlir::Value counts;   // !warpspec.global<i32>: [tiles x 2]
  int64_t parts = 1;    // P
  int64_t tileFloats = 0;  // one unit's partial of the whole tile
  int64_t blockFloats = 0; // one column block's (64 x its columns)
  std::optional<int64_t> timeoutCycles;
};

/// The K blocks tile-loop iteration `unit` (i32, null without k_split) of a
/// GEMM of `kBlocks` K blocks split into `parts` walks: all of them for a
/// whole tile (unit -1, or none), [p K / P, (p + 1) K / P) for part
/// p = unit mod P of a split tile.
KRange splitUnitKRange(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value unit, int64_t kBlocks, int64_t parts);

/// One math warpgroup's end of tile-loop iteration `unit` (i32; -1 for a
/// whole tile) after its mainloop produced `accs` (one per column block,
/// block `columnBlocks[j]` of the tile). `counterSlot` (0 or 1) is the
/// warpgroup's counter of the tile, `barrier` its named barrier, `isWarp0`
/// (i1) true in its first warp. `rows` (i32, or null for all): the
/// accumulators' real rows; the others (padding) are neither spilled nor
/// read back, and their sums are not the tile's (no epilogue stores them).
/// Returns whether this warpgroup runs the
/// tile's epilogue (i1: a whole tile, or the last unit) and the
/// accumulators to run it on (the sums for the last unit).
std::pair<mlir::Value, llvm::SmallVector<mlir::Value, 2>>
finishSplitUnit(mlir::OpBuilder &b, mlir::Location loc,
                const SplitTileHandoff &h, mlir::Value unit,
                mlir::ValueRange accs, llvm::ArrayRef<int64_t> columnBlocks,
                int64_t counterSlot, mlir::Value barrier, mlir::Value isWarp0,
                mlir::Value rows);

} // namespace megamoe::collectives

#endif // MEGAMOE_LIB_KERNELS_COLLECTIVES_SPLITTILE_H
