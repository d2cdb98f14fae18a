// The fused-gemm schedule's persistent L1 + SwiGLU + L2 kernel
// (docs/FusedSchedule.md): every role walks the L1 pairs, then the L2
// tiles, on one ring; an L2 tile's A loads wait for its m-block's L1
// arrivals (bounded, with the timeout message), the last waiter zeroes the
// counters, and the L1 epilogue releases the arrival after its TMA stores
// completed.
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=128" --megamoe-expand="only=moe_fused_gemm" | FileCheck %s
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm wave-m-blocks=0" --megamoe-expand="only=moe_fused_gemm" | FileCheck %s --check-prefix=BM64
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=128" --megamoe-expand="only=moe_fused_gemm test-missing-arrivals=1 barrier-timeout-cycles=1000" | FileCheck %s --check-prefix=MISSING
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=128" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm128" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/bm128/layer.ptx --implicit-check-not=vprintf
// RUN: %ptxas -arch=sm_90a -v %t/bm128/layer.ptx -o %t/bm128/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7510
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm64" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/bm64/layer.ptx -o %t/bm64/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7510
// RUN: %python -c "import json; m = json.load(open('%t/bm64/layer.json')); print(m['schedule']); print([r['name'] for r in m['buffer_layout']['regions']][:5])" | FileCheck %s --check-prefix=MANIFEST

// Parameters: moe_l1_swiglu's with the arrivals, then the L2 GEMM's under
// "l2_", then the waiters' counter.
// CHECK: warpspec.kernel @moe_fused_gemm(
// CHECK-SAME: megamoe.bind = "region:l2_arrivals", megamoe.name = "arrivals"
// CHECK-SAME: megamoe.bind = "region:l2_pool", megamoe.name = "l2_a"
// CHECK-SAME: megamoe.bind = "region:l2_pool_sf", megamoe.name = "l2_a_scales"
// CHECK-SAME: megamoe.bind = "region:combine", megamoe.name = "l2_combine"
// CHECK-SAME: megamoe.bind = "region:l2_waits", megamoe.name = "l2_waits"
// One ring for both GEMMs, SwiGLU's activation tiles and L2's output tile.
// CHECK: %[[MB:.*]] = arith.maxsi
// CHECK: warpspec.pipeline.create "ab"
// CHECK: warpspec.smem.alloc "act_tiles"
// CHECK: warpspec.smem.alloc "d_tiles" : !warpspec.smem<128x128xbf16
// The producer: the L1 pairs (2I / 256 = 2), then the L2 tiles (H / 128 =
// 4); before an L2 tile's loads, warps 0 and 1 wait for 2 pairs x 2
// warpgroups = 4 arrivals, fence the async proxy, and count the wait; the
// 8th waiter (2 warps x 4 n-blocks) zeroes both counters.
// CHECK: warpspec.role "tma"
// CHECK: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%[[MB]]) n_blocks 2 raster 2
// CHECK: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%[[MB]]) n_blocks 4 raster 4
// CHECK: %[[ARR:.*]] = warpspec.global.offset %arg9
// CHECK: warpspec.counter.wait %[[ARR]], %c4_i32 scope gpu name "l2_arrival" timeout_cycles 20000000000
// CHECK-NEXT: warpspec.fence.async_global
// CHECK: %[[OLD:.*]] = warpspec.global.atomic add %{{.*}}, %c1_i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[OLD]], %c7_i32
// CHECK: scf.if %[[LAST]]
// CHECK: warpspec.global.store %{{.*}}, %[[ARR]]
// CHECK: warpspec.tma.load
// The math warpgroups: the L1 pairs with the SwiGLU epilogue, whose release
// follows the completed TMA stores and the proxy fence; then the L2 tiles
// with the combine scatter.
// CHECK: warpspec.role "math0"
// CHECK: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%[[MB]]) n_blocks 2 raster 2
// CHECK: warpspec.tma.store.wait pending 0{{$}}
// CHECK-NEXT: warpspec.fence.async_global
// CHECK: warpspec.counter.add %{{.*}}, %c1_i32 scope gpu
// CHECK: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%[[MB]]) n_blocks 4 raster 4
// CHECK: warpspec.mma.block_scaled
// CHECK: warpspec.peer.ptr
// CHECK: warpspec.role "math1"

// BLOCK_M 64 in the phase order (wave-m-blocks=0; its default is the wave
// order, Kernels/moe-fused-gemm-waves.mlir): the L1 pairs split the columns
// (two B tiles per stage); one warpgroup computes the 64-row L2 tiles, the
// other only walks the ring.
// BM64: warpspec.smem.alloc "b_tiles1"
// BM64: warpspec.smem.alloc "d_tiles" : !warpspec.smem<64x128xbf16
// BM64: warpspec.role "math1"
// BM64: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 2 raster 2
// BM64: warpspec.mma.block_scaled
// BM64: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 4 raster 4 {
// BM64: scf.for
// BM64-NEXT: warpspec.consumer.wait
// BM64-NEXT: warpspec.consumer.release %{{.*}}[%{{.*}}] reads_retired
// BM64-NEXT: }
// BM64-NEXT: }
// BM64-NOT: warpspec.mma.block_scaled
// BM64: warpspec.return

// The fault-injection option waits for one arrival more than comes.
// MISSING: warpspec.counter.wait %{{.*}}, %c5_i32 scope gpu name "l2_arrival" timeout_cycles 1000

// The runtime's timeout record is found through one global of the module.
// PTX: .visible .global .align 8 .u64 megamoe_timeout_record;
// PTX-LABEL: .entry moe_fused_gemm
// PTX-DAG: ld.acquire.gpu
// PTX-DAG: fence.proxy.async.global
// PTX-DAG: red.release.gpu.global.add
// The timeout report: the runtime's record (its global, claimed by one
// compare-and-swap, fenced to the system), then a trap; no vprintf, whose
// call would make ptxas serialize the kernel's wgmma (C7510, checked absent
// below).
// PTX-DAG: ld.global.b64 {{%rd[0-9]+}}, [megamoe_timeout_record];
// PTX-DAG: atom.relaxed.sys.global.cas.b32
// PTX-DAG: fence.sc.sys;
// PTX-DAG: trap

// No stack frame: nothing is passed to a call.
// PTXAS: Compiling entry function 'moe_fused_gemm' for 'sm_90a'
// PTXAS-NEXT: Function properties for moe_fused_gemm
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// MANIFEST: ['moe_route', 'moe_layout', 'moe_pull', 'moe_fused_gemm', 'moe_combine_barrier', 'moe_combine_reduce']
// MANIFEST: ['barriers', 'send_count', 'errors', 'l2_arrivals', 'l2_waits']
