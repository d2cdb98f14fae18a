// The grouped GEMM with BLOCK_M 256: a 256 x 128 CTA tile, two math
// warpgroups of 128 rows, each as two row blocks of 64 computed one after
// the other (config::warpgroupRowBlocks): per K block one wgmma m64n128
// group per row block into one scratch accumulator, promoted with that
// block's row scales and the tile's one weight scale, so 2 x 64 promoted +
// 64 scratch registers, as BLOCK_N 256's column blocks.
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=256 block-n=128 cluster-m=1 scale-prefetch=0" | FileCheck %s --check-prefix=IR
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=256 block-n=128 cluster-m=1 scale-prefetch=0" | megamoe-opt --pass-pipeline='builtin.module(gpu.module(warpspec-plan-smem,convert-warpspec-to-nvvm))' | FileCheck %s --check-prefix=LOWER

// 4 stages of 49 KiB beside a 16 KiB output tile of one 64-column panel.
// IR: megamoe.symbols = {BLOCK_M = 256 : i64, BLOCK_N = 128 : i64, {{.*}}STAGES = 4 : i64
// IR: warpspec.kernel @grouped_gemm_fp8({{.*}}threads = 384 : i32
// IR-DAG: %[[A:.*]] = warpspec.smem.alloc "a_tiles" : !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
// IR-DAG: %[[B:.*]] = warpspec.smem.alloc "b_tiles" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
// IR-DAG: %[[SA:.*]] = warpspec.smem.alloc "a_scales" : !warpspec.smem<256xf32, slots = 4, align = 128>
// IR: %[[P:.*]] = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 8
// The output tile: 64 rows per warpgroup (each row block in turn), one panel.
// IR: %[[D:.*]] = warpspec.smem.alloc "d_tiles" : !warpspec.smem<128x64xbf16, slots = 1, align = 1024, swizzle = 128>
// IR: warpspec.role "tma" warps [0, 4) regs 40 {
// IR: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 32 raster 8 {
// The A box is the tile's 256 rows.
// IR: warpspec.tma.load %arg0[%{{.*}}, %{{.*}}] -> %[[A]][%{{.*}}], %[[P]] : !warpspec.tma_desc<256x128xf8E4M3FN, swizzle = 128>

// Warpgroup 0: rows 0 and 64, one weight scale for both.
// IR: warpspec.role "math0" warps [4, 8) regs 232 mma {
// IR: %[[R64:.*]] = arith.addi %c0{{.*}}, %c64 : index
// IR: scf.for {{.*}} iter_args(%[[T0:.*]] = %[[Z:.*]], %[[T1:.*]] = %[[Z]], %{{.*}} = %{{.*}}) -> (!warpspec.acc<64x128xf32>, !warpspec.acc<64x128xf32>, index)
// IR: %[[SB:.*]] = warpspec.global.load
// IR: %[[CS:.*]] = warpspec.consumer.wait %[[P]]
// IR-NEXT: warpspec.mma.block_scaled %[[A]], %[[B]] stage %[[CS]] row %c0{{.*}} a_scales %[[SA]] b_scales %[[SB]] rematerialize_k_steps into %[[T0]]
// IR-NEXT: warpspec.mma.block_scaled %[[A]], %[[B]] stage %[[CS]] row %[[R64]] a_scales %[[SA]] b_scales %[[SB]] rematerialize_k_steps into %[[T1]]
// Each row block's two 64-column pieces through the warpgroup's rows 0-63
// of the tile, stored at the row block's rows: row0 + 0, then row0 + 64.
// IR: warpspec.tma.store.wait pending 0 read
// IR: warpspec.acc.store %{{.*}} -> %[[D]][%{{.*}}, %[[W0:.*]]] :
// IR: %[[M0:.*]] = arith.addi %[[ROW0:.*]], %c0_i32{{.*}} : i32
// IR: warpspec.tile.store %[[D]][%{{.*}}, %[[W0]]] rows 64 -> %arg3[%{{.*}}, %[[M0]]]
// IR: warpspec.tile.store %[[D]][%{{.*}}, %[[W0]]] rows 64 -> %arg3[%{{.*}}, %[[M0]]]
// IR: %[[M1:.*]] = arith.addi %[[ROW0]], %c64_i32{{.*}} : i32
// IR: warpspec.tile.store %[[D]][%{{.*}}, %{{.*}}] rows 64 -> %arg3[%{{.*}}, %[[M1]]]
// IR: warpspec.tile.store %[[D]][%{{.*}}, %{{.*}}] rows 64 -> %arg3[%{{.*}}, %[[M1]]]

// Warpgroup 1: rows 128 and 192 of the A tile, its tile rows 64-127,
// stored at row0 + 128 and row0 + 192.
// IR: warpspec.role "math1" warps [8, 12) regs 232 mma {
// IR: %[[R192:.*]] = arith.addi %c128{{.*}}, %c64 : index
// IR: warpspec.mma.block_scaled %[[A]], %[[B]] stage %{{.*}} row %c128{{.*}} a_scales
// IR-NEXT: warpspec.mma.block_scaled %[[A]], %[[B]] stage %{{.*}} row %[[R192]] a_scales
// IR: warpspec.acc.store %{{.*}} -> %[[D]][%{{.*}}, %c64{{.*}}] :
// IR: arith.addi %{{.*}}, %c128_i32{{.*}} : i32
// IR: arith.addi %{{.*}}, %c192_i32 : i32

// Lowered: the producer's commits expect the 32 KiB A tile, 1 KiB of
// scales and the 16 KiB B tile.
// LOWER-LABEL: llvm.func @grouped_gemm_fp8
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c1024_i32
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
module {}
