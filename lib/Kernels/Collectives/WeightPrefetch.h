//===- WeightPrefetch.h - the touched experts' first K blocks into L2 -*- C++ -*-===//
//
// Part of the collectives (docs/Collectives.md, "Weight prefetch"). At
// decode a layer call is a chain of short kernels (route, layout, pull)
// before the L1 GEMM, and the memory bus idles while they run; the GEMM then
// streams its experts' weights from HBM. This collective, run by the pull,
// asks the L2 cache for the first K blocks of every weight row of each
// expert that owns pool rows, so that the GEMM's first K blocks hit L2.
//
// Every tile starts at K block 0 and walks K in order, so the same leading
// K blocks of every row are prefetched: the GEMM's tiles stay balanced and
// none of its reads, until it passes the prefetched blocks, evicts a
// prefetched line. The number of K blocks k is chosen per call from the
// pool: k = min(K / 128, budget / (units x N x 128)), units = the pool's
// used pool_block_expert entries (at least the experts touched). Prefill
// pools give k = 0: nothing is issued.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_COLLECTIVES_WEIGHTPREFETCH_H
#define MEGAMOE_LIB_KERNELS_COLLECTIVES_WEIGHTPREFETCH_H

#include "mlir/IR/Builders.h"

namespace megamoe::collectives {

/// The weights and the pool's shape.
struct WeightPrefetchShape {
  /// Weight rows per expert (N of the GEMM) and bytes per row (K, fp8).
  int64_t rows = 0, rowBytes = 0;
  /// Local experts, pool rows per pool_block_expert entry.
  int64_t L = 0, align = 0;
  /// The most bytes one call prefetches (> 0).
  int64_t budgetBytes = 0;
};

/// Thread `thread` of `threads` (i32, the grid's threads) prefetches its
/// share. `weights`: !warpspec.global<i8>, [L, rows, rowBytes];
/// `poolBlockExpert`: i32 per entry; `poolRows`: the used pool rows (i32,
/// already bounded by the pool). An entry's expert outside [0, L) is
/// skipped.
void prefetchExpertWeights(mlir::OpBuilder &b, mlir::Location loc,
                           const WeightPrefetchShape &s, mlir::Value weights,
                           mlir::Value poolBlockExpert, mlir::Value poolRows,
                           mlir::Value thread, mlir::Value threads);

} // namespace megamoe::collectives

#endif // MEGAMOE_LIB_KERNELS_COLLECTIVES_WEIGHTPREFETCH_H
