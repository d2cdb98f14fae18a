// Configurations the grouped GEMM cannot be built for are errors that name the rule.
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="k=100" 2>&1 | FileCheck %s --check-prefix=K
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="n=200" 2>&1 | FileCheck %s --check-prefix=N
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=96" 2>&1 | FileCheck %s --check-prefix=BM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="max-m=100" 2>&1 | FileCheck %s --check-prefix=MAXM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="stages=8" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="experts=0" 2>&1 | FileCheck %s --check-prefix=E
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="release-lag=2" 2>&1 | FileCheck %s --check-prefix=LAG

// K: error: megamoe-grouped-gemm: k must be a positive multiple of 128 (the scale block), got 100
// N: error: megamoe-grouped-gemm: n must be a positive multiple of block-n 128, got 200
// BM: error: megamoe-grouped-gemm: block-m must be 128 (two math warpgroups) or 64 (one), got 96
// MAXM: error: megamoe-grouped-gemm: max-m must be a positive multiple of block-m 128, got 100
// SMEM: error: megamoe-grouped-gemm: 8 stages of 33280 B plus 34816 B need 301056 B of shared memory, more than the 232448 B an SM90 block can have
// CHIP: error: megamoe-grouped-gemm: the grouped GEMM is built for sm_90a only (wgmma, setmaxnreg); got chip 'sm_100a'
// E: error: megamoe-grouped-gemm: experts must be >= 1, got 0
// LAG: error: megamoe-grouped-gemm: release-lag must be 0 or 1, got 2
module {}
