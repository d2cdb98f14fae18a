// The FP8 grouped GEMM built by megamoe-grouped-gemm: roles, pipeline, the
// per-K-block MMA/promotion loop, the epilogue and the manifest annotations.
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=7168 max-m=32768 block-m=128 unroll-stages=false" | FileCheck %s --check-prefix=COOP
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=4 n=2048 k=256 max-m=1024 block-m=64 stages=3" | FileCheck %s --check-prefix=SINGLE
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 block-m=64 release-lag=0 unroll-stages=false" | FileCheck %s --check-prefix=NOLAG
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=7168 max-m=32768 block-m=128 unroll-stages=false" | megamoe-opt --pass-pipeline='builtin.module(gpu.module(warpspec-plan-smem,convert-warpspec-to-nvvm))' | FileCheck %s --check-prefix=LOWER

// COOP: gpu.module @grouped_gemm [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">]
// COOP-SAME: megamoe.runtime_symbols = ["M"]
// COOP-SAME: megamoe.symbols = {BLOCK_M = 128 : i64, BLOCK_N = 128 : i64, B_SCALE_INTERLEAVE = 0 : i64, DEVICE_M_BLOCKS = 0 : i64, E = 8 : i64, K = 7168 : i64, MAX_M = 32768 : i64, N = 4096 : i64, OUT_BYTES = 2 : i64, STAGES = 5 : i64, STATIC_M = 0 : i64}
// COOP: warpspec.kernel @grouped_gemm_fp8(
// The builder states only each descriptor's runtime shape; dtype, box and
// swizzle come from its type (LOWER below).
// COOP-SAME: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128> {megamoe.name = "a", megamoe.tma = {global_shape = [7168, {symbol = "M"}], global_strides_bytes = [7168]}
// COOP-SAME: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128> {megamoe.name = "b", megamoe.tma = {{{.*}}global_shape = [7168, 32768]
// COOP-SAME: !warpspec.tma_desc<1x128xf32, swizzle = 0> {megamoe.name = "a_scales", megamoe.tma = {global_shape = [{symbol = "M"}, 56], global_strides_bytes = [{symbol = "M", times = 4 : i64}]}
// COOP-SAME: !warpspec.tma_desc<64x64xbf16, swizzle = 128> {megamoe.name = "d", megamoe.tma = {global_shape = [4096, {symbol = "M"}], global_strides_bytes = [8192]}
// COOP-SAME: !warpspec.global<f32> {megamoe.name = "b_scales"}, %{{.*}}: !warpspec.global<i32> {megamoe.name = "block_expert"}, %{{.*}}: i32 {megamoe.name = "num_m_blocks"})
// COOP-SAME: maxnreg = 168 : i32, megamoe.grid = [{ctas = "num_sms"}, 1, 1], threads = 384 : i32
// The composition: the mainloop's ring (A, B, A scales), the epilogue tile,
// one tile loop per role in the same order (raster of 8 n-blocks: one
// expert's 4096 x 7168 weights exceed the L2 budget).
// COOP-DAG: %[[A:.*]] = warpspec.smem.alloc "a_tiles" : !warpspec.smem<128x128xf8E4M3FN, slots = 5, align = 1024, swizzle = 128>
// COOP-DAG: %[[B:.*]] = warpspec.smem.alloc "b_tiles" : !warpspec.smem<128x128xf8E4M3FN, slots = 5, align = 1024, swizzle = 128>
// COOP-DAG: %[[SA:.*]] = warpspec.smem.alloc "a_scales" : !warpspec.smem<128xf32, slots = 5, align = 128>
// COOP: %[[P:.*]] = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 8 buffers(%[[A]], %[[B]], %[[SA]] : {{.*}}) : !warpspec.pipeline<5>
// The output tile: two slots of one 128-byte panel (64 BF16 columns).
// COOP: %[[D:.*]] = warpspec.smem.alloc "d_tiles" : !warpspec.smem<128x64xbf16, slots = 2, align = 1024, swizzle = 128>
// COOP: warpspec.named_barrier 1 roles ["math0"]
// COOP: warpspec.named_barrier 2 roles ["math1"]
// COOP: warpspec.role "tma" warps [0, 4) regs 40 {
// COOP: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%[[MB:.*]]) n_blocks 32 raster 8 {
// COOP: scf.for %{{.*}} = %{{.*}} to %c56 step
// COOP: %[[S:.*]] = warpspec.producer.acquire %[[P]]
// Each warp commits its own copy; the ring derives the bytes (below).
// COOP: warpspec.tma.load %arg0[%{{.*}}, %{{.*}}] -> %[[A]][%[[S]]], %[[P]]
// COOP-NEXT: warpspec.producer.commit %[[P]][%[[S]]] :
// COOP: warpspec.tma.load %arg2[%{{.*}}, %{{.*}}] -> %[[SA]][%[[S]]], %[[P]]
// COOP-NEXT: warpspec.producer.commit %[[P]][%[[S]]] :
// COOP: warpspec.tma.load %arg1[%{{.*}}, %{{.*}}] -> %[[B]][%[[S]]], %[[P]]
// COOP-NEXT: warpspec.producer.commit %[[P]][%[[S]]] :
// COOP: warpspec.producer.commit %[[P]][%[[S]]] :
// COOP: warpspec.role "math0" warps [4, 8) regs 232 mma {
// COOP: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%[[MB]]) n_blocks 32 raster 8 {
// COOP: %[[TOTAL:.*]]:2 = scf.for %[[KB:.*]] = {{.*}} iter_args(%[[ITER:.*]] = %{{.*}}, %[[PREV:.*]] = %{{.*}}) -> (!warpspec.acc<64x128xf32>, index)
// COOP: %[[SB:.*]] = warpspec.global.load %{{.*}} : !warpspec.global<f32>
// COOP: %[[CS:.*]] = warpspec.consumer.wait %[[P]]
// COOP: warpspec.mma.block_scaled %[[A]], %[[B]] stage %[[CS]] row %[[ROW0:.*]] a_scales %[[SA]] b_scales %[[SB]] into %[[ITER]]
// COOP: %[[NOTFIRST:.*]] = arith.cmpi ugt, %[[KB]]
// COOP: scf.if %[[NOTFIRST]] {
// COOP-NEXT: warpspec.consumer.release %[[P]][%[[PREV]]] reads_retired
// COOP: scf.yield %{{.*}}, %[[CS]]
// COOP: warpspec.consumer.release %[[P]][%[[TOTAL]]#1] reads_retired
// The epilogue in panels: columns [0, 64) through slot 0, [64, 128) through
// slot 1, each waiting only for the store that last read its slot (one
// other group stays in flight).
// COOP: %[[P0:.*]], %[[P1:.*]] = warpspec.acc.deinterleave %[[TOTAL]]#0 period 64
// COOP: warpspec.tma.store.wait pending 1 read
// COOP: warpspec.barrier.sync
// COOP: warpspec.acc.store %[[P0]] -> %[[D]][%[[S0:.*]], %{{.*}}]
// COOP: warpspec.fence.async_shared
// COOP: warpspec.barrier.sync
// COOP: warpspec.tile.store %[[D]][%[[S0]], %c0{{.*}}] rows 64 -> %arg3[%[[N0:.*]], %{{.*}}]
// COOP: warpspec.tma.store.wait pending 1 read
// COOP: warpspec.barrier.sync
// COOP: warpspec.acc.store %[[P1]] -> %[[D]][%[[S1:.*]], %{{.*}}]
// COOP: %[[N1:.*]] = arith.addi %{{.*}}, %c64_i32
// COOP: warpspec.tile.store %[[D]][%[[S1]], %c0{{.*}}] rows 64 -> %arg3[%[[N1]], %{{.*}}]
// COOP: warpspec.tma.store.wait pending 0
// COOP: warpspec.role "math1" warps [8, 12) regs 232 mma {
// COOP: warpspec.mma.block_scaled %[[A]], %[[B]] stage %{{.*}} row %c64
// COOP: warpspec.tile.store %[[D]][%{{.*}}, %c64{{.*}}] rows 64
// COOP: warpspec.return

// Lowered: the three commits expect the bytes of their copies (A 128 x 128
// fp8, 128 f32 scales, B 128 x 128 fp8), warp 3 arrives without bytes; the
// output tile is two 64-column panels of 128 rows, one TMA store each.
// LOWER-LABEL: llvm.func @grouped_gemm_fp8
// LOWER-SAME: megamoe.name = "a", megamoe.tma = {box = [128, 128], dtype = "e4m3"{{.*}}global_shape = [7168, {symbol = "M"}], global_strides_bytes = [7168]
// LOWER-SAME: megamoe.name = "a_scales", megamoe.tma = {box = [128, 1], dtype = "f32"{{.*}}global_shape = [{symbol = "M"}, 56], global_strides_bytes = [{symbol = "M", times = 4 : i64}]
// LOWER-SAME: megamoe.name = "d", megamoe.tma = {box = [64, 64], dtype = "bf16"{{.*}}global_shape = [4096, {symbol = "M"}], global_strides_bytes = [8192]{{.*}}swizzle = "128B"
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c512_i32
// LOWER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// LOWER: nvvm.mbarrier.arrive %{{.*}} :
// LOWER-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta

// SINGLE: megamoe.symbols = {BLOCK_M = 64 : i64, BLOCK_N = 128 : i64, B_SCALE_INTERLEAVE = 0 : i64, DEVICE_M_BLOCKS = 0 : i64, E = 4 : i64, K = 256 : i64, MAX_M = 1024 : i64, N = 2048 : i64, OUT_BYTES = 2 : i64, STAGES = 3 : i64, STATIC_M = 0 : i64}
// SINGLE: !warpspec.tma_desc<64x128xf8E4M3FN, swizzle = 128>
// SINGLE-SAME: threads = 256 : i32
// SINGLE: warpspec.smem.alloc "a_tiles" : !warpspec.smem<64x128xf8E4M3FN, slots = 3
// SINGLE: warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 4 buffers({{.*}}) : !warpspec.pipeline<3>
// SINGLE: warpspec.role "tma" warps [0, 4) regs 40
// SINGLE: warpspec.tile_loop ({{.*}}) m_blocks({{.*}}) n_blocks 16 raster 16 {
// SINGLE: warpspec.role "math0" warps [4, 8) regs 232 mma
// SINGLE-NOT: warpspec.role "math1"

// release-lag=0: the stage goes back right after the promotion.
// NOLAG: scf.for {{.*}} -> (!warpspec.acc<64x128xf32>) {
// NOLAG: warpspec.mma.block_scaled
// NOLAG-NEXT: warpspec.consumer.release {{%[^ ]+\[%[^ ]+\]}} :
// NOLAG-NEXT: scf.yield
