// Configurations the grouped GEMM cannot be built for are errors that name the rule.
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 k=100" 2>&1 | FileCheck %s --check-prefix=K
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 n=200" 2>&1 | FileCheck %s --check-prefix=N
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 block-m=96" 2>&1 | FileCheck %s --check-prefix=BM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=256 block-n=256" 2>&1 | FileCheck %s --check-prefix=BM256N
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=256 block-n=192" 2>&1 | FileCheck %s --check-prefix=BM256N192
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=256 block-n=128 chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=BM256CHIP
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=256 block-n=128 static-m=4096 combine-scatter=true combine-tokens=64 combine-topk=2 combine-ranks=2" 2>&1 | FileCheck %s --check-prefix=BM256EPI
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=256 block-n=128 max-m=384" 2>&1 | FileCheck %s --check-prefix=BM256MAXM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 max-m=100" 2>&1 | FileCheck %s --check-prefix=MAXM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 stages=8" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 chip=sm_80" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=0" 2>&1 | FileCheck %s --check-prefix=E
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 release-lag=2" 2>&1 | FileCheck %s --check-prefix=LAG
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 out-type=f16" 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 b-scale-interleave=4" 2>&1 | FileCheck %s --check-prefix=IL
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 static-m=100" 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 static-m=-128" 2>&1 | FileCheck %s --check-prefix=STATICNEG
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 static-m=4294967296" 2>&1 | FileCheck %s --check-prefix=STATICBIG
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 out-type=f32 stages=6" 2>&1 | FileCheck %s --check-prefix=SMEMF32
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="out-type=f32 static-m=4096 combine-scatter=true combine-tokens=64 combine-topk=2 combine-ranks=2" 2>&1 | FileCheck %s --check-prefix=SCATTERF32
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="combine-scatter=true combine-tokens=64 combine-topk=2 combine-ranks=2" 2>&1 | FileCheck %s --check-prefix=SCATTERM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="static-m=4096 combine-scatter=true combine-topk=2 combine-ranks=2" 2>&1 | FileCheck %s --check-prefix=SCATTERSHAPE
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="static-m=4096 combine-scatter=true combine-tokens=64 combine-topk=2 combine-ranks=4294967296" 2>&1 | FileCheck %s --check-prefix=SCATTERBIG
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 swiglu-arrivals=true" 2>&1 | FileCheck %s --check-prefix=ARRIVALS
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 block-m=64 half-blocks=true" 2>&1 | FileCheck %s --check-prefix=HALFBM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 half-blocks=true" 2>&1 | FileCheck %s --check-prefix=HALFPOOL
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="swiglu=true static-m=4096 device-m-blocks=true" 2>&1 | FileCheck %s --check-prefix=SWIGLUIL
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="swiglu=true b-scale-interleave=8" 2>&1 | FileCheck %s --check-prefix=SWIGLUM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="swiglu=true b-scale-interleave=8 static-m=4096 device-m-blocks=true n=384" 2>&1 | FileCheck %s --check-prefix=SWIGLUN
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="swiglu=true b-scale-interleave=8 static-m=4096 device-m-blocks=true combine-scatter=true combine-tokens=64 combine-topk=2 combine-ranks=2" 2>&1 | FileCheck %s --check-prefix=SWIGLUSCATTER
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="cluster-m=3" 2>&1 | FileCheck %s --check-prefix=CLUSTER
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="cluster-m=2 static-m=4096 combine-scatter combine-tokens=64 combine-topk=2 combine-ranks=1" 2>&1 | FileCheck %s --check-prefix=CLUSTERLAYER
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="cluster-m=2 chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=CLUSTERCHIP
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=160" 2>&1 | FileCheck %s --check-prefix=BN
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=192 n=4160" 2>&1 | FileCheck %s --check-prefix=BN192N
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=192 n=6144 chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=BN192CHIP
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 a-scale-groups=3" 2>&1 | FileCheck %s --check-prefix=GROUPS
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 a-scale-groups=2 chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=GROUPSCHIP
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 swiglu-requant-block=32" 2>&1 | FileCheck %s --check-prefix=RQ
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=192 n=6144 b-scale-interleave=8" 2>&1 | FileCheck %s --check-prefix=BN192IL
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=192 n=6144 swiglu=true b-scale-interleave=8 static-m=4096 device-m-blocks=true" 2>&1 | FileCheck %s --check-prefix=BN192EPI
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=256 n=384" 2>&1 | FileCheck %s --check-prefix=BNN
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=256 chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=BNCHIP
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=256 swiglu=true b-scale-interleave=8 static-m=4096 device-m-blocks=true" 2>&1 | FileCheck %s --check-prefix=BNSWIGLU
// The f32 tile of BLOCK_N 256 (two 64 KiB column blocks in turn through one
// 64 KiB tile) leaves room for 3 stages of 48.5 KiB, not 4.
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=256 out-type=f32 stages=4" 2>&1 | FileCheck %s --check-prefix=BNSMEM

// RUN: not megamoe-opt %s --megamoe-grouped-gemm="scale-prefetch=2" 2>&1 | FileCheck %s --check-prefix=PF
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=32" 2>&1 | FileCheck %s --check-prefix=SWNEED
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=64 swap-ab=true" 2>&1 | FileCheck %s --check-prefix=SWBM
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=32 block-n=256 swap-ab=true" 2>&1 | FileCheck %s --check-prefix=SWBN
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=16 swap-ab=true chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=SWCHIP
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=32 swap-ab=true cluster-m=2" 2>&1 | FileCheck %s --check-prefix=SWOPT
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="tma-warps=2" 2>&1 | FileCheck %s --check-prefix=TW
// PF: error: megamoe-grouped-gemm: scale-prefetch must be 0, 1 or -1 (the plan's choice), got 2
// TW: error: megamoe-grouped-gemm: tma-warps must be 4 (one TMA load and commit per operand) or 1 (every load of a stage under one commit), got 2
// CLUSTER: error: megamoe-grouped-gemm: cluster-m must be 1 or 2 (CTAs per cluster), got 3
// CLUSTERLAYER: error: megamoe-grouped-gemm: cluster-m 2 is built for the standalone grouped GEMM and the layer's L1 GEMM: not with combine-scatter, pull-rows or a ring pool
// CLUSTERCHIP: error: megamoe-grouped-gemm: cluster-m 2 is built for sm_90a, got 'sm_100a'
// K: error: megamoe-grouped-gemm: k must be a positive multiple of 128 (the scale block), got 100
// N: error: megamoe-grouped-gemm: n must be a positive multiple of block-n 128, got 200
// BM: error: megamoe-grouped-gemm: block-m must be 128 (two math warpgroups), 64 (one) or 256 (two of two 64-row blocks each), or 16 or 32 with swap-ab, got 96
// BM256N: block-m 256 needs block-n 128 (each warpgroup computes two 64 x 128 row blocks; two of 256 or 192 columns do not fit its registers), got 256
// BM256N192: block-m 256 needs block-n 128 {{.*}}, got 192
// BM256CHIP: block-m 256 is built for sm_90a only, got chip 'sm_100a'
// BM256EPI: block-m 256 is built for the TMA-store epilogue and for expert-blocks with combine-scatter (not swiglu, half-blocks, pull-rows, or combine-scatter without expert-blocks)
// BM256MAXM: max-m must be a positive multiple of block-m 256, got 384
// MAXM: error: megamoe-grouped-gemm: max-m must be a positive multiple of block-m 128, got 100
// SMEM: error: megamoe-grouped-gemm: 8 stages of 33296 B plus 32768 B need 299136 B of shared memory, more than the 232448 B an sm_90a block can have
// CHIP: error: megamoe-grouped-gemm: the grouped GEMM is built for sm_90a and sm_100a only; got chip 'sm_80'
// E: error: megamoe-grouped-gemm: experts must be >= 1, got 0
// LAG: error: megamoe-grouped-gemm: release-lag must be 0 or 1, got 2
// OUT: error: megamoe-grouped-gemm: out-type must be bf16 or f32, got 'f16'
// IL: error: megamoe-grouped-gemm: b-scale-interleave must be 0 (one scale per 128x128 weight block) or 8 (rows interleaved by 8 between two scale blocks), got 4
// STATIC: error: megamoe-grouped-gemm: static-m must be 0 (M given at launch) or a positive multiple of block-m 128, got 100
// STATICNEG: error: megamoe-grouped-gemm: static-m must be 0 (M given at launch) or a positive multiple of block-m 128, got -128
// STATICBIG: error: megamoe-grouped-gemm: experts * n and max-m (or static-m) must stay below 2^31 (TMA coordinates)
// The FP32 output tiles (64 KiB) leave room for 5 stages, not 6.
// SMEMF32: error: megamoe-grouped-gemm: 6 stages of 33296 B plus 65536 B need 265312 B of shared memory, more than the 232448 B an sm_90a block can have
// SCATTERF32: error: megamoe-grouped-gemm: combine-scatter needs out-type bf16 (the combine buffer holds bf16 rows), got 'f32'
// SCATTERM: error: megamoe-grouped-gemm: combine-scatter needs static-m > 0 (pool_source has one entry per pool row of a compile-time pool)
// SCATTERSHAPE: error: megamoe-grouped-gemm: combine-scatter needs combine-tokens, combine-topk and combine-ranks >= 1 (the combine buffer [topk, tokens, n] and the rank count), got 0, 2, 2
// SCATTERBIG: error: megamoe-grouped-gemm: combine-tokens, combine-topk and combine-ranks must stay below 2^31 (compared with i32 pool_source entries)
module {}
// ARRIVALS: swiglu-arrivals needs swiglu (the arrivals are its tiles')
// HALFBM: half-blocks needs block-m 128 (a half block is one math warpgroup's 64 rows), got 64
// HALFPOOL: half-blocks needs static-m > 0 and device-m-blocks (a layer pool laid out by moe_layout)
// SWIGLUIL: swiglu needs b-scale-interleave 8 (gate and up rows interleaved, as the L1 weight transform lays them out)
// SWIGLUM: swiglu needs static-m > 0 and device-m-blocks
// SWIGLUN: swiglu needs n to be a multiple of 2 x block-n
// SWIGLUSCATTER: swiglu and combine-scatter are two epilogues; pick one
// BN: error: megamoe-grouped-gemm: block-n must be 128 (one 128x128 weight scale block per tile column range), 192 (one m64n192 MMA whose columns straddle two scale blocks) or 256 (two column blocks of 128, computed one after the other), got 160
// BN192N: error: megamoe-grouped-gemm: block-n 192 needs n to be a positive multiple of 128 (whole weight-scale blocks; the last tile may be partial), got 4160
// BN192CHIP: error: megamoe-grouped-gemm: block-n 192 is built for sm_90a only, got chip 'sm_100a'
// GROUPS: error: megamoe-grouped-gemm: a-scale-groups must be 1 (A scaled per 128 K) or 2 (per 64 K), got 3
// GROUPSCHIP: error: megamoe-grouped-gemm: a-scale-groups 2 is built for sm_90a only
// RQ: error: megamoe-grouped-gemm: swiglu-requant-block must be 128 or 64 activation columns, got 32
// BN192IL: error: megamoe-grouped-gemm: block-n 192 does not support b-scale-interleave (its tiles straddle two scale blocks already)
// BN192EPI: error: megamoe-grouped-gemm: block-n 192 is built for the TMA-store epilogue only (not swiglu or combine-scatter)
// BNN: error: megamoe-grouped-gemm: n must be a positive multiple of block-n 256, got 384
// BNCHIP: error: megamoe-grouped-gemm: block-n 256 is built for sm_90a only, got chip 'sm_100a'
// BNSWIGLU: error: megamoe-grouped-gemm: block-n 256 does not support swiglu (its tile is already a pair of 128-column blocks, computed one after the other)
// BNSMEM: error: megamoe-grouped-gemm: 4 stages of 49680 B plus 65536 B need
// SWNEED: error: megamoe-grouped-gemm: block-m must be 128 (two math warpgroups), 64 (one) or 256 (two of two 64-row blocks each), or 16 or 32 with swap-ab, got 32
// SWBM: error: megamoe-grouped-gemm: swap-ab needs block-m 16 or 32 (the activation rows are the MMA's n), got 64
// SWBN: error: megamoe-grouped-gemm: swap-ab needs block-n 128 (two math warpgroups of 64 weight rows in one weight-scale block), got 256
// SWCHIP: error: megamoe-grouped-gemm: swap-ab is built for sm_90a only, got chip 'sm_100a'
// SWOPT: error: megamoe-grouped-gemm: swap-ab is built for the standalone bf16 TMA-store GEMM: no cluster,
