//===- BlockScaledMainloop.h - the FP8 block-scaled GEMM mainloop -*- C++ -*-===//
//
// Part of the collectives (docs/Collectives.md): the mainloop knows the
// operands and the SMEM ring between the TMA producer and the MMA consumers,
// and nothing of the tile order or of the output. Per K block of BLOCK_K:
//   producer (one warpgroup, 4 warps): warp 0 loads the A tile, warp 1 its
//     BLOCK_M activation scales, warp 2 the B tile, each committing its own
//     copies (the ring derives the transaction bytes); warp 3 only arrives,
//     so every warp of the warpgroup (one setmaxnreg) is in the protocol.
//     In a cluster of C CTAs (clusterM) the ring is the cluster's: a stage
//     is refilled once the consumers of every CTA released it, and when the
//     tile's weights are shared by the cluster each CTA loads 1 / C of the
//     B tile multicast to all (else its own B tile in C boxes).
//   consumer (each math warpgroup, rows [row, row + 64) of the tile): reads
//     the tile's weight scales from global, waits for the stage, one
//     warpspec.mma.block_scaled per column block into that block's running
//     total, and hands the stage back (one K block late with release lag 1,
//     so that the promotion's scale reads are retired and need no proxy
//     fence).
// A tile of BLOCK_N 256 is two column blocks of 128 ("promotion in
// halves"): per K block each block's MMA runs into one m64n128 scratch
// accumulator, is waited for and promoted before the next block's, so a
// consumer holds 2 x 64 promoted + 64 scratch registers per thread instead
// of the 2 x 128 a single m64n256 MMA would need. A tile of BLOCK_N 192 is
// one m64n192 MMA (96 scratch + 96 promoted registers) whose columns
// straddle two weight-scale blocks: the promotion multiplies each 64-column
// region by its block's scale. A tile of BLOCK_M 256 gives each of its two
// math warpgroups two row blocks of 64 (config::warpgroupRowBlocks),
// computed one after the other as column blocks are: same B tile and weight
// scales, their own A rows and row scales.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_COLLECTIVES_BLOCKSCALEDMAINLOOP_H
#define MEGAMOE_LIB_KERNELS_COLLECTIVES_BLOCKSCALEDMAINLOOP_H

#include "megamoe/Config/KernelPlan.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace megamoe::collectives {

/// One GEMM on a mainloop's ring: its K blocks, weight-scale layout and B
/// column blocks per stage. A kernel running two GEMMs on one ring (the
/// fused L1 + L2 kernel: same tile shapes, other K and scales) passes one
/// per tile; a one-GEMM kernel uses its config's (MainloopConfig::phase).
struct MainloopPhase {
  int64_t kBlocks = 1;
  int64_t bScalesPerTile = 1;
  std::optional<mlir::AffineMap> bScaleMap;
  /// B column blocks loaded per stage: at most the ring's (bBlocks).
  int64_t bBlocks = 1;
  /// Activation scales per row and K block: at most the ring's
  /// (MainloopConfig::aScaleGroups); fewer fill and read the first rows of
  /// each slot (the fused kernel's per-128 L1 beside its per-64 L2).
  int64_t aScaleGroups = 1;
  /// 64-row blocks each consumer computes: 0 = the ring's (MainloopConfig::
  /// rowBlocks); fewer compute the first of them (a warpgroup of an expert
  /// block with one 64-row unit present, GemmProblem::expertBlocks).
  int64_t rowBlocks = 0;
};

/// What the mainloop is built for (from the kernel plan).
struct MainloopConfig {
  /// The tile: blockN columns (B rows) per tile.
  int64_t blockM = 128, blockN = 128, blockK = 128;
  /// Column blocks of the tile that every consumer computes, one MMA and one
  /// accumulator each per K block: 1, or 2 for BLOCK_N 256 (two of 128).
  int64_t columnBlocks = 1;
  /// 64-row blocks of the tile that every consumer computes, one after the
  /// other (config::warpgroupRowBlocks): 1, or 2 at BLOCK_M 256.
  int64_t rowBlocks = 1;
  int64_t kBlocks = 1; // K / BLOCK_K
  int64_t stages = 2;
  /// When a consumer hands a stage back: 0 = after its MMA, 1 = one K block
  /// later.
  int64_t releaseLag = 1;
  /// With release lag 0: the release fences the async proxy first
  /// (KernelPlan::releaseFence).
  bool releaseFence = true;
  /// The TMA role's warps, each one ring arrival per stage: 4, 2 or 1
  /// (produceTile).
  int64_t producerWarps = 4;
  int64_t consumerWarps = 8; // 4 per math warpgroup
  /// Weight scales per (tile, K block), contiguous in global memory: 1, or 2
  /// with `bScaleMap` saying which column uses which.
  int64_t bScalesPerTile = 1;
  std::optional<mlir::AffineMap> bScaleMap;
  /// B column blocks per stage: 1, or 2 when the math warpgroups split the
  /// columns (KernelPlan::splitN), warpgroup i consuming block i, or when
  /// every consumer computes two column blocks (columnBlocks 2).
  int64_t bBlocks = 1;
  /// The tile's columns straddle two 128-row weight-scale blocks
  /// (config::straddlesScaleBlocks: BLOCK_N 192): per K block the consumer
  /// reads the scales of both blocks and column c of the tile uses region
  /// c / 64's (the first region the first block's, the last the second's,
  /// the middle one either, by where the tile starts: consumeTile's
  /// `straddle`).
  bool straddlesScaleBlocks = false;
  /// CTAs per cluster (KernelPlan::clusterM): 1, or 2 with a cluster ring
  /// and the B tile loaded in halves.
  int64_t clusterM = 1;
  /// B in the tiled weight layout (GemmProblem::bWeightTiles): its TMA
  /// descriptor is rank 4, (K in tile, row in tile, K tile, row tile), and
  /// a B box is addressed by bCoords.
  bool bWeightTiles = false;
  /// The consumer reads K block k + 1's weight scales during K block k
  /// (KernelPlan::scalePrefetch), so their global-load latency is off the
  /// promotion's path even when the stage is already full.
  bool scalePrefetch = false;
  /// Activation scales per row and K block (KernelPlan::aScaleGroups): 1,
  /// or 2 with a ring slot of [2, BLOCK_M] scales (per-64 activations); on
  /// a ring of two GEMMs, the larger of theirs (MainloopPhase::aScaleGroups).
  int64_t aScaleGroups = 1;
  /// Swap-AB (KernelPlan::swapAB): a consumer's `row` is its first weight
  /// row in the B tile and its accumulator is 64 weight rows x the tile's
  /// BLOCK_M activation rows (warpspec.mma.block_scaled swap_ab).
  bool swapAB = false;
  /// The consumers' K loop is unrolled over the stages, K block j of each
  /// group waiting with `known_stage j` (constant slot, barrier and
  /// descriptor addresses). Only valid when every tile of every phase on the
  /// ring consumes a multiple of `stages` K blocks (the kernel builder asks
  /// KernelPlan::unrollsStages).
  bool unrollStages = false;

  /// B rows of one column block (one B tile of the stage, one MMA's n).
  int64_t bBlockRows() const { return blockN / columnBlocks; }
  /// The coordinates of B's box at weight row `row` (a multiple of the box
  /// rows) and element K `k0` (a multiple of BLOCK_K): (k0, row), or in the
  /// tiled layout (0, row % 128, k0 / 128, row / 128).
  llvm::SmallVector<mlir::Value, 4> bCoords(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value k0,
                                            mlir::Value row) const;

  /// Tiles, stages, release lag and the producer / consumer warps of a
  /// kernel plan (its first role produces, its mma roles consume), for a
  /// GEMM of inner size k; one weight scale per tile.
  static MainloopConfig fromPlan(const config::KernelPlan &plan, int64_t k);

  /// Two weight scales per tile, column c using scale (c / g) % 2: B rows
  /// interleaved by g between two 128-row scale blocks (the L1 gate/up
  /// layout, config::kGateUpInterleave).
  void interleaveWeightScales(mlir::MLIRContext *ctx, int64_t g);

  /// The GEMM this config describes, as a phase.
  MainloopPhase phase() const {
    return {kBlocks, bScalesPerTile, bScaleMap, bBlocks, aScaleGroups};
  }
};

/// Where one tile's operands are: TMA descriptors of A [M, K], its scales
/// [K / BLOCK_K, M] and B [rows, K], and the tile's first A and B rows (i32).
struct TileOperands {
  mlir::Value aDesc, aScalesDesc, bDesc;
  mlir::Value aRow, bRow;
  mlir::Value bRow1; // the second B column block's first row (bBlocks 2)
  /// With clusterM > 1: i1, every CTA of the cluster loads the same B tile
  /// (the same value in all of them), so each loads 1 / clusterM of it
  /// multicast to all; else each loads its own.
  mlir::Value shareB;
};

/// The operands of the tile at A row `aRow` (i32: the m-block's first row)
/// and `nBlock` of a grouped GEMM whose weights are expert-major ([E * n,
/// K]: expert e's rows start at e * n): B rows expert * n + nBlock * BLOCK_N
/// (with two column blocks per tile, the second block's B rows follow the
/// first's).
TileOperands groupedTileOperands(mlir::OpBuilder &b, mlir::Location loc,
                                 const MainloopConfig &c, mlir::Value aDesc,
                                 mlir::Value aScalesDesc, mlir::Value bDesc,
                                 mlir::Value aRow, mlir::Value nBlock,
                                 mlir::Value expert, int64_t n);

/// The first weight-scale entry of tile nBlock of `expert` in scales
/// [E, n / 128, k / 128] of 128 x 128 blocks (entries of bScalesPerTile
/// floats): (expert * n/128 + nBlock * BLOCK_N / 128) * k/128 (i32; the
/// scale block of the tile's first column).
mlir::Value groupedWeightScalesRow(mlir::OpBuilder &b, mlir::Location loc,
                                   const MainloopConfig &c, mlir::Value expert,
                                   mlir::Value nBlock, int64_t n, int64_t k);

/// The scale blocks of a tile that straddles two (straddlesScaleBlocks);
/// null members otherwise.
struct StraddlingScales {
  /// i1: the tile starts 64 columns into its first scale block, so that its
  /// columns [64, 128) are the second block's.
  mlir::Value shift;
  /// i32: the second block's entries after the first's: K / 128, or 0 when
  /// the first is the expert's last block (a partial last tile, whose
  /// columns past n are never stored).
  mlir::Value second;
};

/// Tile nBlock's StraddlingScales in a GEMM of n columns and inner size k.
StraddlingScales groupedStraddlingScales(mlir::OpBuilder &b,
                                         mlir::Location loc,
                                         const MainloopConfig &c,
                                         mlir::Value nBlock, int64_t n,
                                         int64_t k);

/// A math warpgroup's place in the MMA issue turns (KernelPlan::mmaTurns):
/// the named barrier it waits on before issuing and the one it passes the
/// turn to (warpspec.mma.block_scaled turn/pass). Null members: no turns.
struct MmaTurn {
  mlir::Value turn, pass;
};

/// The K blocks [begin, end) (index values) of a tile that the mainloop
/// walks: a K-split tile's unit computes a part of them (warpspec.tile_loop
/// k_split). Null members: all of the phase's K blocks.
struct KRange {
  mlir::Value begin, end;
};

class BlockScaledMainloop {
public:
  /// Declares the ring (A tiles, B tiles, A scales; one slot per stage) and
  /// its pipeline in the kernel body (outside the roles).
  static BlockScaledMainloop create(mlir::OpBuilder &b, mlir::Location loc,
                                    const MainloopConfig &config);

  /// The producer's work for one tile (in the TMA role; `warp` is the
  /// role's warp index). With four producer warps each loads one operand
  /// (A, A scales, B, the second B block or only its arrival); with two
  /// (MainloopConfig::producerWarps, a kernel whose other two warps
  /// dispatch) warp 0 loads A and its scales and warp 1 the B block(s);
  /// with one (GemmProblem::tmaWarps) it loads all of them under one commit.
  void produceTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value warp,
                   const TileOperands &tile) const {
    produceTile(b, loc, warp, tile, cfg.phase());
  }
  void produceTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value warp,
                   const TileOperands &tile, const MainloopPhase &phase,
                   const KRange &range = {}) const;

  /// One math warpgroup's work for one tile: rows [row, row + 64 x
  /// rowBlocks) (index) over every K block; the weight scales of column
  /// block j and K block k are entry `bScalesRow + j * kBlocks + k` (i32, in
  /// units of bScalesPerTile floats: consecutive 128-row scale blocks are
  /// K / 128 entries apart) of `bScales` (global f32). Returns the FP32
  /// accumulator of each (row block, column block), row block major
  /// (rowBlocks x columnBlocks of them). With splitN (bBlocks 2,
  /// one column block), `bBlock` says which B column block. With
  /// `releaseCount` (i32) each release arrives that many times per warp: for
  /// this warpgroup and for the ones that skip the tile (skipTileStages).
  /// With straddlesScaleBlocks, `straddle` is the tile's
  /// groupedStraddlingScales. With `turn`, every MMA waits for this
  /// warpgroup's issue turn and passes it on.
  llvm::SmallVector<mlir::Value, 2>
  consumeTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value row,
              mlir::Value bScales, mlir::Value bScalesRow,
              int64_t bBlock = 0) const {
    return consumeTile(b, loc, row, bScales, bScalesRow, bBlock, cfg.phase());
  }
  llvm::SmallVector<mlir::Value, 2>
  consumeTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value row,
              mlir::Value bScales, mlir::Value bScalesRow, int64_t bBlock,
              const MainloopPhase &phase, mlir::Value releaseCount = {},
              const StraddlingScales &straddle = {},
              const KRange &range = {}, const MmaTurn &turn = {}) const;

  /// The consumer protocol of one tile without the MMAs: a math warpgroup
  /// that has no columns of this phase's tiles waits for and hands back
  /// every stage, so that the ring's release count stays that of all its
  /// consumers.
  void skipTile(mlir::OpBuilder &b, mlir::Location loc,
                const MainloopPhase &phase, const KRange &range = {}) const;

  /// A math warpgroup without rows in `tiles` tiles of this phase (a half
  /// block's second warpgroup): its consumer iterator moves past their
  /// stages without waiting or releasing (warpspec.consumer.skip); the
  /// warpgroup that computes them releases each stage for both
  /// (consumeTile's releaseCount 2).
  void skipTileStages(mlir::OpBuilder &b, mlir::Location loc,
                      const MainloopPhase &phase, int64_t tiles) const;

  /// The accumulator of one math warpgroup's row block and column block
  /// (64 rows x bBlockRows columns).
  mlir::Type accumulatorType(mlir::MLIRContext *ctx) const;

  const MainloopConfig &config() const { return cfg; }

private:
  MainloopConfig cfg;
  mlir::Value aTiles, aScales, ring;
  llvm::SmallVector<mlir::Value, 2> bTiles; // one per B column block
};

} // namespace megamoe::collectives

#endif // MEGAMOE_LIB_KERNELS_COLLECTIVES_BLOCKSCALEDMAINLOOP_H
