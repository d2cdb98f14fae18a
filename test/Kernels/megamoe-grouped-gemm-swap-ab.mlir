// The grouped GEMM with swap-AB (decode tiles of 32 or 16 rows): each math
// warpgroup's MMA takes its 64 weight rows of the 128-row B tile as the M
// side and the tile's rows as n (warpspec.mma.block_scaled swap_ab, a 64 x
// BLOCK_M accumulator), and the epilogue writes the accumulator transposed
// into the warpgroup's own [BLOCK_M, 64] slot, stored by one TMA box of
// BLOCK_M rows at the warpgroup's 64 output columns.
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=2048 max-m=32768 block-m=32 swap-ab=true" | FileCheck %s --check-prefix=IR
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=2048 max-m=32768 block-m=32 swap-ab=true" | megamoe-opt --pass-pipeline='builtin.module(gpu.module(warpspec-plan-smem,convert-warpspec-to-nvvm))' | FileCheck %s --check-prefix=LOWER
// The plan's choice (block-m=0) by rows per expert (config::groupedGemmRows):
// swap-AB 16 up to 16 rows, 32 up to 32, else BLOCK_M 128 (then BLOCK_N 256).
// RUN: megamoe-opt %s --megamoe-grouped-gemm="n=4096 k=2048 block-m=0 rows-per-expert=8" | FileCheck %s --check-prefix=PICK8
// RUN: megamoe-opt %s --megamoe-grouped-gemm="n=4096 k=2048 block-m=0 rows-per-expert=17" | FileCheck %s --check-prefix=PICK17
// RUN: megamoe-opt %s --megamoe-grouped-gemm="n=4096 k=2048 block-m=0 rows-per-expert=33" | FileCheck %s --check-prefix=PICK33
// RUN: megamoe-opt %s --megamoe-grouped-gemm="n=4096 k=2048 block-m=0" | FileCheck %s --check-prefix=PICK33
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="n=4096 k=2048 block-m=0 rows-per-expert=-1" 2>&1 | FileCheck %s --check-prefix=PICKBAD
// PICK8: megamoe.symbols = {BLOCK_M = 16 : i64, BLOCK_N = 128 : i64, {{.*}}SWAP_AB = 1 : i64
// PICK17: megamoe.symbols = {BLOCK_M = 32 : i64, BLOCK_N = 128 : i64, {{.*}}SWAP_AB = 1 : i64
// PICK33: megamoe.symbols = {BLOCK_M = 128 : i64, BLOCK_N = 256 : i64,
// PICK33-NOT: SWAP_AB
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="n=4096 k=2048 block-m=64 rows-per-expert=8" 2>&1 | FileCheck %s --check-prefix=PICKBM
// PICKBAD: rows-per-expert must be >= 0 (0: unknown), got -1
// PICKBM: rows-per-expert is the plan's input for block-m=0; block-m 64 was given
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/bm16
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=32 swap-ab=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/grouped_gemm.ptx
// RUN: %ptxas -arch=sm_90a -v %t/grouped_gemm.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=7168 k=3072 max-m=32768 block-m=16 swap-ab=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm16" -o /dev/null
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3" %t/bm16/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT
// RUN: %ptxas -arch=sm_90a -v %t/bm16/grouped_gemm.ptx -o %t/bm16/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// 8 stages of 32 + 128 weight rows (20.6 KiB), the K loop unrolled over them.
// IR: megamoe.symbols = {BLOCK_M = 32 : i64, BLOCK_N = 128 : i64, {{.*}}STAGES = 8 : i64, {{.*}}SWAP_AB = 1 : i64, UNROLL_STAGES = 1 : i64}
// IR: warpspec.kernel @grouped_gemm_fp8({{.*}}threads = 384 : i32
// IR-DAG: %[[A:.*]] = warpspec.smem.alloc "a_tiles" : !warpspec.smem<32x128xf8E4M3FN, slots = 8, align = 1024, swizzle = 128>
// IR-DAG: %[[B:.*]] = warpspec.smem.alloc "b_tiles" : !warpspec.smem<128x128xf8E4M3FN, slots = 8, align = 1024, swizzle = 128>
// IR-DAG: %[[SA:.*]] = warpspec.smem.alloc "a_scales" : !warpspec.smem<32xf32, slots = 8, align = 128>
// IR: %[[P:.*]] = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 8
// One [32, 64] slot per math warpgroup.
// IR: %[[D:.*]] = warpspec.smem.alloc "d_tiles" : !warpspec.smem<32x64xbf16, slots = 2, align = 1024, swizzle = 128>
// IR: warpspec.role "tma" warps [0, 4) regs 40 {
// IR: warpspec.tma.load %arg0[%{{.*}}, %{{.*}}] -> %[[A]][%{{.*}}], %[[P]] : !warpspec.tma_desc<32x128xf8E4M3FN, swizzle = 128>

// Warpgroup 0: weight rows 0-63, all 32 activation rows.
// IR: warpspec.role "math0" warps [4, 8) regs 232 mma {
// IR: %[[CS:.*]] = warpspec.consumer.wait %[[P]] known_stage 0
// IR-NEXT: warpspec.mma.block_scaled %[[A]], %[[B]] stage %[[CS]] row %c0{{.*}} a_scales %[[SA]] b_scales %{{.*}} swap_ab into %{{.*}} : {{.*}}, !warpspec.acc<64x32xf32>
// IR: warpspec.tma.store.wait pending 0 read
// IR: warpspec.acc.store %{{.*}} -> %[[D]][%[[S0:.*]], %{{.*}}] transpose : !warpspec.acc<64x32xf32>
// IR: %[[N0:.*]] = arith.addi %{{.*}}, %c0_i32{{.*}} : i32
// IR: warpspec.tile.store %[[D]][%[[S0]], %{{.*}}] rows 32 -> %arg3[%[[N0]], %{{.*}}] : {{.*}}, !warpspec.tma_desc<32x64xbf16, swizzle = 128>
// Warpgroup 1: weight rows 64-127, its slot, output columns + 64.
// IR: warpspec.role "math1" warps [8, 12) regs 232 mma {
// IR: warpspec.mma.block_scaled %[[A]], %[[B]] stage %{{.*}} row %c64 a_scales %[[SA]] b_scales %{{.*}} swap_ab into
// IR: warpspec.acc.store %{{.*}} -> %[[D]][%c1{{.*}}, %{{.*}}] transpose
// IR: arith.addi %{{.*}}, %c64_i32 : i32
// IR: warpspec.tile.store %[[D]][%c1{{.*}}, %{{.*}}] rows 32 ->

// LOWER: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 32>
// LOWER: nvvm.stmatrix {{.*}} layout = #nvvm.mma_layout<col>
// LOWER-NOT: warpspec.

// Two math warpgroups x 4 k32 steps per 128-K block over 8 unrolled stages.
// COUNT: 64

// One K block: the 4 swapped wgmma, wait, then the column-scaled promotion
// (16 FMAs for 32 columns), before the next K block's wgmma.
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX-COUNT-16: fma.rn.f32
// PTX: wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3
// PTX: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
module {}
