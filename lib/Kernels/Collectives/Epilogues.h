//===- Epilogues.h - what a GEMM does with a finished tile -----*- C++ -*-===//
//
// Part of the collectives (docs/Collectives.md): an epilogue knows the output
// and nothing of the mainloop that produced the accumulator or of the tile
// order. Each works on one math warpgroup's rows [64 wg, 64 wg + 64) of the
// tile and an SMEM tile of [BLOCK_M, BLOCK_N] (128B-swizzled; its panel and
// swizzle layout belongs to the lowering of acc.store / tile.store /
// tile.load).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_COLLECTIVES_EPILOGUES_H
#define MEGAMOE_LIB_KERNELS_COLLECTIVES_EPILOGUES_H

#include "mlir/IR/Builders.h"

#include <optional>

namespace megamoe::collectives {

/// The SMEM tile a warpgroup's epilogue works in and the named barrier of
/// that warpgroup.
struct EpilogueTile {
  mlir::Value tile;    // !warpspec.smem<BLOCK_M x BLOCK_N x T, 1 slot>
  mlir::Value barrier; // the warpgroup's named barrier
  int64_t warpgroup = 0;
  /// Which 64 rows of the tile the warpgroup holds: its index, or 0 when
  /// the warpgroups split the columns (KernelPlan::splitN).
  int64_t rowBlock = 0;

  /// Declares the [blockM, blockN] tile of `element` (bf16 or f32), one
  /// slot (the combine scatter reads it back row by row).
  static mlir::Value allocate(mlir::OpBuilder &b, mlir::Location loc,
                              int64_t blockM, int64_t blockN,
                              mlir::Type element);
  /// Declares the TMA-store epilogue's [blockM, columns] tile as
  /// columns / panelColumns slots of one 128-byte swizzle panel each
  /// (storeTileWithTma cycles through them); `panelColumns` is the output
  /// descriptor's box width (gemm::dPanelCols).
  static mlir::Value allocatePanels(mlir::OpBuilder &b, mlir::Location loc,
                                    int64_t blockM, int64_t columns,
                                    int64_t panelColumns, mlir::Type element);
  /// Declares the swap-AB epilogue's tile: one slot per math warpgroup of
  /// [blockM, panelColumns] (the warpgroup's 64 output columns of every
  /// row of the tile, one 128-byte swizzle panel per row).
  static mlir::Value allocateTransposed(mlir::OpBuilder &b, mlir::Location loc,
                                        int64_t blockM, int64_t warpgroups,
                                        int64_t panelColumns,
                                        mlir::Type element);
};

/// Where a tile sits in the output: its first row (i32: the m-block's
/// first pool row, which with half blocks is not m-block x BLOCK_M), its
/// n-block (index) and BLOCK_N.
struct TilePosition {
  mlir::Value row0, nBlock;
  int64_t blockN = 128;
  /// The 64-row block of the tile the totals are, when a warpgroup holds
  /// more than one (config::warpgroupRowBlocks; the TMA-store and the
  /// combine-scatter epilogues): it
  /// stages them through its own rows of the SMEM tile (EpilogueTile::
  /// rowBlock) and stores them at this block's rows. Unset: the
  /// warpgroup's.
  std::optional<int64_t> rowBlock;
};

/// TMA-store epilogue of the tile's column blocks (one, or two of a BLOCK_N
/// 256 tile: `totals[i]` holds columns [i n, i n + n)), in pieces of one
/// panel (the slot width of an EpilogueTile::allocatePanels tile), piece j
/// through slot j % slots: per piece, waits for the store that last read
/// that slot (the others' stay in flight), writes the piece into the
/// warpgroup's rows of the slot (converted to the tile's element type),
/// then one TMA store of those rows to `desc` at the piece's position,
/// issued by the threads where `isStorer` (warp 0 of the warpgroup).
/// With `owned` (i1) false the pieces are staged but not stored (a cluster
/// CTA without a tile of its own, collectives::ClusterTile).
void storeTileWithTma(mlir::OpBuilder &b, mlir::Location loc,
                      const EpilogueTile &e, mlir::ValueRange totals,
                      mlir::Value desc, const TilePosition &at,
                      mlir::Value isStorer, mlir::Value owned = {});

/// TMA-store epilogue of a swap-AB tile: `total` holds the warpgroup's 64
/// weight rows (output columns nBlock x BLOCK_N + 64 wg + [0, 64)) for the
/// tile's BLOCK_M activation rows (its columns). Once the store that last
/// read the warpgroup's slot of an EpilogueTile::allocateTransposed tile
/// has read it, the warpgroup writes the accumulator transposed into it
/// (acc.store transpose) and warp 0 stores its BLOCK_M rows with one TMA
/// store at (column, at.row0).
void storeTransposedTileWithTma(mlir::OpBuilder &b, mlir::Location loc,
                                const EpilogueTile &e, mlir::Value total,
                                mlir::Value desc, const TilePosition &at,
                                mlir::Value isStorer);

/// After the last tile: the TMA stores still in flight complete before the
/// CTA exits.
void drainTileStores(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Value isStorer);

/// The combine scatter's destination: every pool row's source (rank, token,
/// slot) in `poolSource` (i32 [rows, 3], rank < 0 = padding), and the
/// combine buffer [topk, tokens, n] bf16 of each rank, reached through
/// `peerOffsets` (warpspec.peer.ptr).
struct CombineScatter {
  mlir::Value poolSource, combine, peerOffsets;
  int64_t ranks = 1, tokens = 1, topk = 1, n = 1;
};

/// Combine-scatter epilogue (BF16; the tile's column blocks `totals`, one
/// or two of a BLOCK_N 256 tile, in pieces of the SMEM tile's width as the
/// TMA-store epilogue): each piece into the warpgroup's rows of the tile,
/// then each valid row's columns of the piece straight into its source
/// rank's combine[slot][token][n0 ...] with 16-byte stores (padding rows and
/// out-of-range sources are skipped), so the NVLink traffic of the combine
/// overlaps the GEMM. The tile's pool rows start at `at.row0`.
void scatterTileToPeers(mlir::OpBuilder &b, mlir::Location loc,
                        const EpilogueTile &e, mlir::ValueRange totals,
                        const CombineScatter &dst, const TilePosition &at);

/// The SwiGLU + requantization epilogue's operands: every pool row's router
/// weight (f32 [rows]), the e4m3 activation [rows, N / 2] (a TMA descriptor
/// of 64 x 64 boxes, 64B swizzle) and its scales [N / 2 / 128, rows] (f32,
/// MN-major: the next GEMM's A scales).
struct SwiGLURequant {
  mlir::Value rowWeights, out, outScales;
  /// Optional: u32 [rows / blockM], one arrival counter per m-block. When
  /// set, each warpgroup releases arrivals[mBlock] += 1 (gpu scope) once its
  /// tile's activation and scales are in global memory, so that a consumer
  /// in another CTA (the fused kernel's L2 loads) can acquire-wait for
  /// (N / 256) x 2 arrivals per m-block (one per pair and math warpgroup).
  /// The TMA (async-proxy) stores are completed and fenced
  /// (fence.proxy.async.global) before the release. The fused GEMM kernel's
  /// L2 loads wait on them (docs/FusedSchedule.md).
  mlir::Value arrivals;
  /// With split columns (KernelPlan::splitN): the two warpgroups' per-row
  /// amax exchange (f32 [64], 2 slots) and the named barrier of both.
  mlir::Value exchange, pairBarrier;
  int64_t rows = 1; // the scales' row stride: the pool rows
  /// Activation columns per scale: 128 (the pair's, one scale per row and
  /// pair) or 64 (one per column block: no amax exchange with split
  /// columns); outScales are [N / 2 / requantBlock, rows].
  int64_t requantBlock = 128;
  std::optional<double> clamp;
  bool fastMath = false;

  /// The epilogue tile: [blockM, 64] e4m3, one slot per column block of the
  /// pair (64B swizzle: a 64-byte row is one swizzle span).
  static mlir::Value allocate(mlir::OpBuilder &b, mlir::Location loc,
                              int64_t blockM);
};

/// The SwiGLU + requantization epilogue of one warpgroup's rows of tile
/// (mBlock, pair), in three steps so that the SwiGLU of the pair's first
/// column block runs while the ring fills for the second (the math is
/// exposed when nothing else runs):
///   w = loadSwiGLURowWeights(...)               before the tile's mainloop
///   a_b = swigluBlock(h_b, w, ...)              after column block b's
///   requantStoreTile(a_0, a_1, ...)             after both
/// h_b is column block b's accumulator (128 columns, gate/up interleaved by
/// config::kGateUpInterleave, so 64 activation columns); a_b = silu(gate) x
/// up x w[row] (buildSwiGLU). The pair's 128 activation values of a row are
/// requantized with sf = amax / 448 (buildRequantScale, buildRequantInput)
/// and stored as e4m3 to out[row][128 pair ...] by TMA (issued where
/// `isStorer`), sf to outScales[pair][row]: the bytes moe_activation writes.
/// With `arrivals`, the tile's arrival is released last. With split
/// columns a warpgroup holds one block (`acts` = {a_firstBlock}) and the
/// row amax is the max of both warpgroups' (exchanged through SMEM).
/// With requantBlock 64 each column block is its own group: its own amax
/// and scale (outScales[2 pair + block][row]), nothing exchanged.
/// `row0` is the tile's first pool row (i32), `mBlock` its m-block (the
/// arrival counter's index).
mlir::Value loadSwiGLURowWeights(mlir::OpBuilder &b, mlir::Location loc,
                                 const EpilogueTile &e, const SwiGLURequant &s,
                                 mlir::Value row0);
mlir::Value swigluBlock(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value gateUp, mlir::Value weights,
                        const SwiGLURequant &s);
void requantStoreTile(mlir::OpBuilder &b, mlir::Location loc,
                      const EpilogueTile &e, mlir::ValueRange acts,
                      int64_t firstBlock, const SwiGLURequant &s,
                      mlir::Value row0, mlir::Value mBlock, mlir::Value pair,
                      mlir::Value isStorer);

/// The SMEM of SwiGLURequant::exchange: f32 [64], one slot per warpgroup.
mlir::Value allocateRowExchange(mlir::OpBuilder &b, mlir::Location loc);

} // namespace megamoe::collectives

#endif // MEGAMOE_LIB_KERNELS_COLLECTIVES_EPILOGUES_H
