// The pull inside the split schedule's L1 kernel (config::Variant::l1Pull,
// megamoe-plan l1-pull=true; docs/SplitSchedule.md "The pull in the L1
// kernel"): moe_pull is not built; moe_l1_swiglu's warps 0-1 are a dispatch
// role that copies the pool rows and releases each 64-row unit's arrival,
// its TMA warps 2-3 load A + A scales (warp 0 of the role, after waiting for
// the m-block's units) and B (warp 1).
// Layer: E = 8, L = 8, R = 1, T = 64, K = 2, BLOCK_M 128 with half blocks
// (P = 1152, 18 units of 64 rows, 2 pairs per m-block), fast-math (the
// SwiGLU epilogue).
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-pull=true" --megamoe-expand | FileCheck %s
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-pull=true" --megamoe-expand="test-missing-arrivals=3 barrier-timeout-cycles=1000" | FileCheck %s --check-prefix=MISSING
// The BLOCK_M 64 variant (split columns: warp 1 loads both B blocks).
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=64 l1-pull=true" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=BM64
// Every kernel compiles without spills, and the PTX has the release and
// the acquire.
// RUN: rm -rf %t && mkdir -p %t/a %t/b
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-pull=true" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=64 l1-pull=true" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/b" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// RUN: FileCheck %s --check-prefix=PTX < %t/a/layer.ptx
// RUN: %ptxas -arch=sm_90a -v %t/a/layer.ptx -o %t/a/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/b/layer.ptx -o %t/b/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); print([k['name'] for k in m['kernels']]); print([r['name'] for r in m['buffer_layout']['regions']])" %t/a/layer.json | FileCheck %s --check-prefix=JSON

// No moe_pull kernel.
// CHECK-NOT: warpspec.kernel @moe_pull(
// CHECK-LABEL: warpspec.kernel @moe_l1_swiglu(
// CHECK-SAME: megamoe.bind = "region:l1_pool", megamoe.name = "l1_pool"
// CHECK-SAME: megamoe.bind = "region:x", megamoe.name = "x"
// CHECK-SAME: megamoe.bind = "region:pull_arrivals", megamoe.name = "pull_arrivals"
// CHECK-SAME: megamoe.bind = "region:pull_waits", megamoe.name = "pull_waits"
// Two producer arrivals per stage (A + A scales; B).
// CHECK: warpspec.pipeline.create "ab" producer_arrivals 2 consumer_arrivals 8
// Each dispatch warp's row slot and its one-stage pipeline.
// CHECK: %[[ROW0:.*]] = warpspec.smem.alloc "pull_row0" : !warpspec.smem<512xi8, slots = 1, align = 128>
// CHECK: %[[PULL0:.*]] = warpspec.pipeline.create "pull0" producer_arrivals 1 consumer_arrivals 1 buffers(%[[ROW0]]
// CHECK: warpspec.smem.alloc "pull_row1"
// CHECK: warpspec.pipeline.create "pull1"
// CHECK: warpspec.role "tma" warps [2, 4) regs 40 {
// Warp 0 waits for the m-block's units (one for a half block, else two),
// fences the async proxy before its TMA loads, and counts its wait (2 tiles
// per m-block: the second zeroes both counters).
// CHECK: warpspec.tile_loop
// CHECK: %[[HALF:.*]] = arith.cmpi slt
// CHECK: scf.if
// CHECK: %[[FIRST:.*]] = arith.divui %{{.*}}, %c64_i32
// CHECK: %[[UNITS:.*]] = arith.select %[[HALF]], %c1_i32, %c2_i32 : i32
// CHECK: %[[END:.*]] = arith.addi %[[FIRST]], %[[UNITS]] : i32
// CHECK: scf.for %[[U:.*]] = %[[FIRST]] to %[[END]]
// CHECK: %[[ARR:.*]] = warpspec.global.offset %{{.*}}[%[[U]]]
// CHECK: warpspec.counter.wait %[[ARR]], %c64_i32{{.*}} scope gpu name "pull_arrival" timeout_cycles 20000000000
// CHECK-NEXT: warpspec.fence.async_global
// CHECK: warpspec.global.atomic add
// CHECK: arith.cmpi eq, %{{.*}}, %c1_i32
// CHECK: warpspec.global.store
// CHECK: warpspec.global.store
// One warp loads A and its scales under one commit, the other B.
// CHECK: warpspec.producer.acquire
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.cmpi eq
// CHECK-NEXT: scf.if
// CHECK-NEXT: warpspec.tma.load
// CHECK-NEXT: warpspec.tma.load
// CHECK-NEXT: warpspec.producer.commit
// CHECK-NEXT: } else {
// CHECK-NEXT: warpspec.tma.load
// CHECK-NEXT: warpspec.producer.commit
// The math warpgroups read the router weights after the first block's MMAs
// (the dispatch warps write them).
// CHECK: warpspec.role "math0"
// CHECK: warpspec.mma.block_scaled
// CHECK: warpspec.acc_rows.load
// CHECK: warpspec.role "dispatch0" warps [0, 1) regs 40 {
// Rows below pool_info[1] (at most P = 1152); counted below the computed
// m-blocks' end (the last block's first row + its 64 or 128 rows).
// CHECK: arith.minui %{{.*}}, %c1152_i32 : i32
// CHECK: arith.select %{{.*}}, %c64_i32{{.*}}, %c128_i32
// CHECK: %[[END2:.*]] = arith.select
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// A real row's x: a bulk copy into stage 0 of the warp's SMEM slot, then
// to the pool; lane 0 waits for the writes. No acquire or release: the
// warp is the slot's only user and lane 0 issues both copies in order.
// CHECK: warpspec.peer.ptr
// CHECK-NOT: warpspec.producer.acquire %[[PULL0]]
// CHECK: warpspec.bulk.copy %{{.*}}, %c512_i32 -> %[[ROW0]][%[[S0:.*]]], %[[PULL0]]
// CHECK: warpspec.producer.commit %[[PULL0]][%[[S0]]]
// CHECK: warpspec.consumer.wait %[[PULL0]]
// CHECK: warpspec.bulk.store %{{.*}}, %c512_i32{{.*}} -> %{{.*}} : !warpspec.global<i8>
// CHECK-NEXT: warpspec.tma.store.wait pending 0{{$}}
// CHECK-NOT: warpspec.consumer.release %[[PULL0]]
// CHECK: %[[COUNTED:.*]] = arith.cmpi ult, %[[ROW]], %[[END2]] : i32
// CHECK: scf.if %[[COUNTED]] {
// CHECK-NEXT: warpspec.fence.async_global
// CHECK-NEXT: warpspec.warp_sync
// CHECK: arith.divui %[[ROW]], %c64_i32
// CHECK: warpspec.counter.add %{{.*}}, %c1_i32{{.*}} scope gpu

// The planted missing arrivals: 64 + 3, with the given bound.
// MISSING: warpspec.counter.wait %{{.*}}, %c67_i32{{.*}} scope gpu name "pull_arrival" timeout_cycles 1000

// BM64-LABEL: warpspec.kernel @moe_l1_swiglu(
// BM64: warpspec.role "tma" warps [2, 4) regs 40 {
// BM64: warpspec.counter.wait %{{.*}}, %c64_i32{{.*}} name "pull_arrival"
// BM64: warpspec.producer.commit
// BM64: } else {
// BM64-NEXT: warpspec.tma.load
// BM64-NEXT: warpspec.tma.load
// BM64-NEXT: warpspec.producer.commit
// BM64: warpspec.role "dispatch0" warps [0, 1) regs 40 {
// BM64: warpspec.role "dispatch1" warps [1, 2) regs 40 {

// PTX-DAG: ld.acquire.gpu
// PTX-DAG: bar.warp.sync -1
// PTX-DAG: red.release.gpu.global.add.u32
// PTX-DAG: cp.async.bulk.global.shared::cta.bulk_group

// JSON: ['moe_route', 'moe_layout', 'moe_l1_swiglu', 'moe_l2_gemm', 'moe_combine_barrier', 'moe_combine_reduce']
// JSON: ['barriers', 'send_count', 'errors', 'pull_arrivals', 'pull_waits',

// NOWARN-NOT: spills registers
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
