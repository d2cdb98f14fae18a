// The grouped GEMM with BLOCK_N 192: a 128 x 192 CTA tile, each math
// warpgroup one m64n192 MMA per K block (96 scratch + 96 promoted
// registers). A tile starts at column 192 t, which is 0 or 64 mod 128, so
// its columns straddle two 128-row weight-scale blocks: the consumer reads
// both blocks' scales (K / 128 entries apart) and region c / 64 of the
// columns uses b_scales[c / 64]: the first block's, the second's when the
// tile starts 64 columns into the first (arith.select), the second's. The
// epilogue sends the 192 columns through three 64-column panels
// (warpspec.acc.slice).
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=6144 k=7168 max-m=32768 block-m=128 block-n=192 cluster-m=1 scale-prefetch=0" | FileCheck %s --check-prefix=IR
// N 4096: 22 tiles, the last partial (columns 4032-4223): its second scale
// block (32) is past the expert's last (31), so it reads the first again.
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=192 cluster-m=1 scale-prefetch=0" | FileCheck %s --check-prefix=PARTIAL
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/c2 %t/k2048
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=6144 k=7168 max-m=32768 block-m=128 block-n=192" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT
// RUN: %ptxas -arch=sm_90a -v %t/grouped_gemm.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// Cluster 2 with the scale prefetch, and K 2048 (its unrolled loop spilled
// 124 bytes before the K steps were rematerialized).
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=6144 k=7168 max-m=32768 block-m=128 block-n=192 cluster-m=2 scale-prefetch=1" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/c2" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/c2/grouped_gemm.ptx -o %t/c2/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=6144 k=2048 max-m=32768 block-m=128 block-n=192 cluster-m=1 scale-prefetch=0" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/k2048" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/k2048/grouped_gemm.ptx -o %t/k2048/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: mkdir -p %t/n4096 && megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=192" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/n4096" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/n4096/grouped_gemm.ptx -o %t/n4096/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// PARTIAL: warpspec.role "math0"
// PARTIAL: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 22 raster 8 {
// PARTIAL: arith.remui %{{.*}}, %c128_i32{{.*}} : i32
// PARTIAL: %[[FIRST:.*]] = arith.divui %{{.*}}, %c128_i32{{.*}} : i32
// PARTIAL: %[[NEXT:.*]] = arith.addi %[[FIRST]], %c1_i32{{.*}} : i32
// PARTIAL: %[[HAS:.*]] = arith.cmpi ult, %[[NEXT]], %c32_i32{{.*}} : i32
// PARTIAL: %[[SECOND:.*]] = arith.select %[[HAS]], %c56_i32{{.*}}, %c0_i32{{.*}} : i32
// PARTIAL: %[[SECOND64:.*]] = arith.extui %[[SECOND]] : i32 to i64
// PARTIAL: warpspec.global.load
// PARTIAL: arith.addi %{{.*}}, %[[SECOND64]] : i64
// PARTIAL: warpspec.global.load

// IR: #[[REGIONS:.*]] = affine_map<(d0) -> (d0 floordiv 64)>
// One 192-row B box per stage; 4 stages of 40.5 KiB beside 3 panels.
// IR: !warpspec.tma_desc<192x128xf8E4M3FN, swizzle = 128> {megamoe.name = "b"
// IR: warpspec.smem.alloc "b_tiles" : !warpspec.smem<192x128xf8E4M3FN, slots = 4
// IR: %[[D:.*]] = warpspec.smem.alloc "d_tiles" : !warpspec.smem<128x64xbf16, slots = 3
// IR: warpspec.role "math0" warps [4, 8) regs 232 mma {
// IR: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 32 raster 8 {
// The tile's first column mod 128 says which block the middle region uses.
// IR: %[[MOD:.*]] = arith.remui %{{.*}}, %c128_i32{{.*}} : i32
// IR: %[[SHIFT:.*]] = arith.cmpi ne, %[[MOD]], %c0_i32{{.*}} : i32
// The second block's scales are K / 128 = 56 entries on (N 6144: every
// tile's second block exists, 47 < 48).
// IR: %[[SECOND:.*]] = arith.select %{{.*}}, %c56_i32{{.*}}, %c0_i32{{.*}} : i32
// The tile's scale row is addressed once; the K loop indexes it in 64 bits.
// IR: %[[SECOND64:.*]] = arith.extui %[[SECOND]] : i32 to i64
// IR: %[[S0:.*]] = warpspec.global.load
// IR: arith.addi %{{.*}}, %[[SECOND64]] : i64
// IR: %[[S1:.*]] = warpspec.global.load
// IR: %[[MID:.*]] = arith.select %[[SHIFT]], %[[S1]], %[[S0]] : f32
// IR: warpspec.mma.block_scaled {{.*}} b_scales %[[S0]], %[[MID]], %[[S1]] b_scale_map #[[REGIONS]] rematerialize_k_steps into {{.*}} !warpspec.acc<64x192xf32>
// IR: %[[P0:.*]] = warpspec.acc.slice %{{.*}} offset 0 : !warpspec.acc<64x192xf32> -> !warpspec.acc<64x64xf32>
// IR: %[[P1:.*]] = warpspec.acc.slice %{{.*}} offset 64
// IR: %[[P2:.*]] = warpspec.acc.slice %{{.*}} offset 128
// IR: warpspec.acc.store %[[P0]] -> %[[D]]
// IR: warpspec.acc.store %[[P1]] -> %[[D]]
// IR: warpspec.acc.store %[[P2]] -> %[[D]]
// IR: warpspec.role "math1" warps [8, 12) regs 232 mma {

// Two math warpgroups x 4 stages (unrolled) x 4 k32 steps.
// COUNT: 32
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
module {}
