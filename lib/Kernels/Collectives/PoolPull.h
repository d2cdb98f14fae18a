//===- PoolPull.h - one warp copies one token-pool row ----------*- C++ -*-===//
//
// Part of the collectives (docs/Collectives.md): the row copy of the
// dispatch. A warp fills pool row `row` from the source rank that sent it:
//   row -> 64-row unit -> local expert l (pool_block_expert) -> source rank r
//   (the count of ranks r' with pool_row_start[l][r' + 1] <= row, summed
//   over the lanes with redux.sync; r == R is a padding row) -> slot s =
//   src_token_index[l][r][row - pool_row_start[l][r]],
// then copies rank r's x[t] (16-byte vectors, `unroll` in flight per lane),
// x_sf[t][c] into the MN-major pool_sf[c][row], topk_weights[t][k] and the
// source (r, t, k). Padding rows get zeros and source (-1, -1, -1).
// Values read from memory are range-checked before they index anything: an
// expert outside [0, L) or a slot outside [0, T * K) makes the row a padding
// row instead of an out-of-bounds access. Every branch is warp-uniform.
//
// Used by moe_pull (a kernel of 32-warp CTAs doing nothing else) and by the
// split schedule's L1 kernel (two dispatch warps per CTA beside the GEMM,
// docs/SplitSchedule.md, "The pull in the L1 kernel").
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_COLLECTIVES_POOLPULL_H
#define MEGAMOE_LIB_KERNELS_COLLECTIVES_POOLPULL_H

#include "mlir/IR/Builders.h"

namespace megamoe::collectives {

/// The layer's shapes the copy needs.
struct PoolPullShape {
  /// hidden, top-k, local experts, ranks, T * K (slots per rank), scale
  /// columns per row (H / input scale block), rows per pool_block_expert
  /// entry (the variant's expert alignment), pool rows.
  int64_t H = 0, K = 0, L = 0, R = 0, slotsPerRank = 0, scaleColumns = 0,
          align = 0, poolRows = 0;
  /// 16-byte vectors each lane moves per iteration of the row copy.
  int64_t unroll = 1;
  /// A ring pool (the fused GEMM kernel's): the row numbers the layout's
  /// tables are read with wrap around the poolRows the regions hold; the
  /// copy writes row `row mod poolRows`.
  bool wraps = false;

  /// The largest unroll u <= `most` whose 32 x u vectors divide the row, so
  /// that the unrolled loop needs no bound check. Each iteration is one
  /// memory round trip: a row that takes fewer is copied sooner (moe_pull
  /// allows 8, 32 registers of vectors: V4-Flash's 4 KiB row in one trip,
  /// V4-Pro's 7 KiB in two of 7, where 4 / 2 took two and seven).
  static int64_t chooseUnroll(int64_t hidden, int64_t most);
};

/// The regions the copy reads (on the source ranks: x, x_sf, topk_weights
/// through warpspec.peer.ptr) and writes (this rank's pool).
struct PoolPullOperands {
  mlir::Value srcTokenIndex, poolRowStart, poolBlockExpert;
  mlir::Value pool, poolScales, poolWeights, poolSource;
  mlir::Value x, xScales, topkWeights, peerOffsets;
  /// Optional: an SMEM slot of H bytes and its one-stage pipeline. With
  /// them a real row's x moves by two bulk copies (global -> SMEM -> pool,
  /// lane 0, no registers: the whole row in flight) instead of through the
  /// lanes' registers; the row's global writes are performed when the copy
  /// returns (its lane 0 waited for them). The slot must be the warp's own:
  /// only full[0] of the pipeline is used (its empty side is not).
  mlir::Value staging, stagingPipeline;
};

/// Where layout row `row` (i32) is stored in a pool of `poolRows` rows: the
/// row itself, or in a ring pool (`wraps`) row mod poolRows. The pull and
/// the GEMMs that read the pool address it alike.
mlir::Value poolDataRow(mlir::OpBuilder &b, mlir::Location loc, mlir::Value row,
                        int64_t poolRows, bool wraps);

/// The whole warp (lane `lane`, i32) fills pool row `row` (i32, warp-
/// uniform, below the pool's rows).
void pullPoolRow(mlir::OpBuilder &b, mlir::Location loc,
                 const PoolPullShape &s, const PoolPullOperands &ops,
                 mlir::Value lane, mlir::Value row);

} // namespace megamoe::collectives

#endif // MEGAMOE_LIB_KERNELS_COLLECTIVES_POOLPULL_H
