// The grouped GEMM with BLOCK_N 256: a 128 x 256 CTA tile, each math
// warpgroup 64 x 256 as two column blocks of 128 ("promotion in halves"):
// per K block one wgmma m64n128 group per block into one scratch
// accumulator, waited for and promoted with that block's weight scale
// before the next block's, so 2 x 64 promoted + 64 scratch registers.
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 cluster-m=1 scale-prefetch=0 unroll-wide=false" | FileCheck %s --check-prefix=IR
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 cluster-m=1 scale-prefetch=0 unroll-wide=false" | megamoe-opt --pass-pipeline='builtin.module(gpu.module(warpspec-plan-smem,convert-warpspec-to-nvvm))' | FileCheck %s --check-prefix=LOWER
// Without block-n the plan picks 256 where it is built (N a multiple of 256,
// no swiglu / combine-scatter), else 128.
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168" | FileCheck %s --check-prefix=DEFAULT
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=384 k=256 max-m=1024" | FileCheck %s --check-prefix=DEFAULT128

// 4 stages of 48.5 KiB fit beside a 16 KiB output tile.
// IR: megamoe.symbols = {BLOCK_M = 128 : i64, BLOCK_N = 256 : i64, {{.*}}STAGES = 4 : i64
// B is loaded as two 128-row column blocks (one TMA box each).
// IR: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128> {megamoe.name = "b"
// IR-DAG: %[[A:.*]] = warpspec.smem.alloc "a_tiles" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
// IR-DAG: %[[B0:.*]] = warpspec.smem.alloc "b_tiles" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
// IR-DAG: %[[B1:.*]] = warpspec.smem.alloc "b_tiles1" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
// IR-DAG: %[[SA:.*]] = warpspec.smem.alloc "a_scales" : !warpspec.smem<128xf32, slots = 4, align = 128>
// IR: %[[P:.*]] = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 8 buffers(%[[A]], %[[B0]], %[[B1]], %[[SA]] : {{.*}}) : !warpspec.pipeline<4>
// The output tile: two slots of one 128-byte panel (64 columns); the tile's
// 4 x 64 columns go through them in turn.
// IR: %[[D:.*]] = warpspec.smem.alloc "d_tiles" : !warpspec.smem<128x64xbf16, slots = 2, align = 1024, swizzle = 128>
// IR: warpspec.role "tma" warps [0, 4) regs 40 {
// 16 tiles of 256 columns, rasters of 8.
// IR: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 16 raster 8 {
// Warp 2 loads the first column block, warp 3 the second (128 rows on).
// IR: %[[BROW:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// IR: %[[BROW1:.*]] = arith.addi %[[BROW]], %c128_i32 : i32
// IR: warpspec.tma.load %arg1[%{{.*}}, %[[BROW]]] -> %[[B0]][%[[S:.*]]], %[[P]]
// IR: warpspec.tma.load %arg1[%{{.*}}, %[[BROW1]]] -> %[[B1]][%[[S]]], %[[P]]
// IR: warpspec.role "math0" warps [4, 8) regs 232 mma {
// IR: warpspec.tile_loop (%{{.*}}, %[[N:.*]]) m_blocks(%{{.*}}) n_blocks 16 raster 8 {
// The tile's scale row is addressed once; the second block's weight scales
// are the next 128-row scale block's, K/128 = 56 entries on.
// IR: %[[SROW:.*]] = warpspec.global.offset %{{.*}}[%{{.*}}] : !warpspec.global<f32>, i32
// IR: %[[T:.*]]:3 = scf.for %[[KB:.*]] = {{.*}} iter_args(%[[T0:.*]] = %[[Z:.*]], %[[T1:.*]] = %[[Z]], %[[PREV:.*]] = %{{.*}}) -> (!warpspec.acc<64x128xf32>, !warpspec.acc<64x128xf32>, index)
// IR: %[[E0:.*]] = arith.index_castui %[[KB]] : index to i64
// IR: warpspec.global.offset %[[SROW]][%[[E0]]]
// IR: %[[SB0:.*]] = warpspec.global.load
// IR: %[[E1:.*]] = arith.addi %[[E0]], %c56_i64{{.*}} : i64
// IR: warpspec.global.offset %[[SROW]][%[[E1]]]
// IR: %[[SB1:.*]] = warpspec.global.load
// IR: %[[CS:.*]] = warpspec.consumer.wait %[[P]]
// IR-NEXT: %[[R0:.*]] = warpspec.mma.block_scaled %[[A]], %[[B0]] stage %[[CS]] row %{{.*}} a_scales %[[SA]] b_scales %[[SB0]] into %[[T0]]
// IR-NEXT: %[[R1:.*]] = warpspec.mma.block_scaled %[[A]], %[[B1]] stage %[[CS]] row %{{.*}} a_scales %[[SA]] b_scales %[[SB1]] into %[[T1]]
// IR: warpspec.consumer.release %[[P]][%[[PREV]]] reads_retired
// IR: scf.yield %[[R0]], %[[R1]], %[[CS]]
// IR: %[[Q0:.*]], %[[Q1:.*]] = warpspec.acc.deinterleave %[[T]]#0 period 64 : !warpspec.acc<64x128xf32> -> !warpspec.acc<64x64xf32>
// IR: %[[Q2:.*]], %[[Q3:.*]] = warpspec.acc.deinterleave %[[T]]#1 period 64
// Piece j through slot j % 2: each wait leaves the other slot's store in
// flight.
// IR: warpspec.tma.store.wait pending 1 read
// IR: warpspec.acc.store %[[Q0]] -> %[[D]][%[[S0:.*]], %{{.*}}]
// IR: warpspec.tile.store %[[D]][%[[S0]], %{{.*}}] rows 64 -> %arg3[%{{.*}}, %{{.*}}]
// IR: warpspec.tma.store.wait pending 1 read
// IR: warpspec.acc.store %[[Q1]] -> %[[D]][%[[S1:.*]], %{{.*}}]
// IR: arith.addi %{{.*}}, %c64_i32
// IR: warpspec.tile.store %[[D]][%[[S1]]
// IR: warpspec.tma.store.wait pending 1 read
// IR: warpspec.acc.store %[[Q2]] -> %[[D]][%[[S0]]
// IR: arith.addi %{{.*}}, %c128_i32
// IR: warpspec.tile.store %[[D]][%[[S0]]
// IR: warpspec.tma.store.wait pending 1 read
// IR: warpspec.acc.store %[[Q3]] -> %[[D]][%[[S1]]
// IR: arith.addi %{{.*}}, %c192_i32
// IR: warpspec.tile.store %[[D]][%[[S1]]
// IR: warpspec.role "math1" warps [8, 12) regs 232 mma {

// Lowered: the producer's commits expect A, its scales and the two B
// blocks (16 KiB each).
// LOWER-LABEL: llvm.func @grouped_gemm_fp8
// LOWER-SAME: megamoe.name = "b", megamoe.tma = {box = [128, 128], dtype = "e4m3"
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c512_i32
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// The plan's default for the standalone GEMM at N 4096: 128 x 256 tiles in
// clusters of 2 (config::groupedGemmClusterM) with the scale prefetch (the
// loop carries the two column blocks' scales).
// DEFAULT: BLOCK_N = 256 : i64
// DEFAULT-SAME: CLUSTER_M = 2 : i64
// DEFAULT: scf.for {{.*}} -> (!warpspec.acc<64x128xf32>, !warpspec.acc<64x128xf32>, index, f32, f32)
// DEFAULT128: BLOCK_N = 128 : i64
module {}
