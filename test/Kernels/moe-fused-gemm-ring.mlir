// The fused GEMM kernel with its dispatch warps beside the GEMM roles
// (megamoe-plan l1-pull=true: moe_pull is not built, warps 0-1 of
// moe_fused_gemm copy the pool rows and release each 64-row unit's pull
// arrival) and the pool ring (pool-tokens below the worst case,
// docs/FusedSchedule.md "The dispatch warps and the pool ring"): layout row r is stored at row
// r mod P; before a dispatch warp refills a slot (lap >= 1) it waits until
// pool_ring_done[slot] >= lap x (L2 tiles per m-block x their computing
// warpgroups); each such warpgroup adds 1 when its L2 tile is done with the
// slot, or zeroes the counter on the slot's last m-block.
// Layer: H = 512 (4 L2 tiles per m-block), T = 256, ring of 512 rows (8
// m-blocks of 64; the layout's 1024).
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=256 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=64 l1-pull=true wave-m-blocks=2 pool-tokens=512" --megamoe-expand="only=moe_fused_gemm" | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t/bm64 %t/bm128 %t/pro %t/profile
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=256 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=64 l1-pull=true wave-m-blocks=2 pool-tokens=512" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm64" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/bm64/layer.ptx -o %t/bm64/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7510
// RUN: %python -c "import json; m = json.load(open('%t/bm64/layer.json')); print([k['name'] for k in m['kernels']]); print({r['name']: r['shape'] for r in m['buffer_layout']['regions'] if r['name'] in ('pool_ring_done', 'pool_block_expert', 'pull_arrivals', 'l1_pool', 'l2_pool')})" | FileCheck %s --check-prefix=MANIFEST
// With the phase profile, dispatch warp 0 is the kernel's fourth role.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=256 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=64 l1-pull=true wave-m-blocks=2 pool-tokens=512" --megamoe-expand="profile=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/profile" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/profile/layer.ptx -o %t/profile/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7510
// RUN: %python -c "import json; p = json.load(open('%t/profile/layer.json'))['profile']; print(p['phases'][6:], p['kernels']['moe_fused_gemm']['roles'])" | FileCheck %s --check-prefix=PROFILE
// BLOCK_M 128 (both warpgroups release per L2 tile) and V4-Pro's size.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=256 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=128 l1-pull=true wave-m-blocks=2 pool-tokens=512" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm128" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/bm128/layer.ptx -o %t/bm128/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7510
// RUN: FileCheck %s --check-prefix=BM128 --input-file=%t/bm128/layer.ptx
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a clamp=10 fast-math=true" --megamoe-plan="schedule=fused-gemm l1-pull=true" --megamoe-expand="only=moe_fused_gemm" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/pro" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/pro/layer.ptx -o %t/pro/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS2 --implicit-check-not=C7510
// The planner's ring (Heuristics.cpp, stagePoolTokens) where every variant
// can run one: 256 m-blocks, so that V4-Pro at EP8 and 8192 tokens per
// rank holds 1.1 GiB (4.7 GiB with the worst case, pool-tokens=0).
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=8 max-tokens=8192 chip=sm_90a fast-math=true" --megamoe-plan="schedule=fused-gemm l1-pull=true" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=PRO8
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=8 max-tokens=8192 chip=sm_90a fast-math=true" --megamoe-plan="schedule=fused-gemm l1-pull=true pool-tokens=0" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=PRO8-WORST
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=8 max-tokens=8192 chip=sm_90a fast-math=true" --megamoe-plan="schedule=fused-gemm" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=PRO8-WORST
// Where a ring cannot run, the plan says why.
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=256 chip=sm_90a" --megamoe-plan="schedule=fused-gemm block-m=64 l1-pull=true wave-m-blocks=4 pool-tokens=256" 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=256 chip=sm_90a" --megamoe-plan="schedule=fused-gemm block-m=64 l1-pull=true wave-m-blocks=0 pool-tokens=512" 2>&1 | FileCheck %s --check-prefix=PHASES
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=256 chip=sm_90a fast-math=true" --megamoe-plan="schedule=split l1-pull=true pool-tokens=512" 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=256 chip=sm_90a" --megamoe-plan="schedule=fused-gemm pool-tokens=384" 2>&1 | FileCheck %s --check-prefix=NOPULL
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=256 chip=sm_90a" --megamoe-plan="schedule=fused-gemm block-m=64 l1-pull=true" --megamoe-expand="one-kernel=true" 2>&1 | FileCheck %s --check-prefix=ONE

// The ring counter is a parameter of its own; the A descriptor spans the
// ring's 512 rows.
// CHECK-LABEL: warpspec.kernel @moe_fused_gemm(
// CHECK-SAME: megamoe.bind = "region:l1_pool", megamoe.name = "a", megamoe.tma = {global_shape = [512, 512]
// CHECK-SAME: %[[DONE:arg[0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_ring_done", megamoe.name = "pool_ring_done"})
// The TMA role reads A at the m-block's first row mod 512, after the pull
// arrivals of its rows (layout numbering).
// CHECK: warpspec.role "tma"
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[P:.*]] = arith.constant 512 : i32
// CHECK-NEXT: arith.remui %[[ROW]], %[[P]] : i32
// CHECK: warpspec.counter.wait %{{.*}}, %c64_i32{{.*}} scope gpu name "pull_arrival"
// CHECK: warpspec.counter.wait %{{.*}}, %c4_i32 scope gpu name "l2_arrival"
// Math warpgroup 0 computes the L2 tiles at BLOCK_M 64: after the scatter,
// its storer's lane 0 adds 1 to the slot (m-block mod 8) while a later lap
// refills it, else zeroes it.
// CHECK: warpspec.role "math0"
// CHECK: %[[SLOT:.*]] = arith.remui %{{.*}}, %c8_i32{{.*}} : i32
// CHECK: %[[CTR:.*]] = warpspec.global.offset %[[DONE]][%[[SLOT]]]
// CHECK: %[[NEXT:.*]] = arith.addi %{{.*}}, %c8_i32{{.*}} : i32
// CHECK-NEXT: %[[LATER:.*]] = arith.cmpi ult, %[[NEXT]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[LATER]] {
// CHECK: warpspec.counter.add %[[CTR]], %c1_i32{{.*}} scope gpu
// CHECK-NEXT: } else {
// CHECK: warpspec.global.store %c0_i32{{.*}}, %[[CTR]] align 4
// Warpgroup 1 walks the L2 tiles' stages and releases nothing on the ring.
// CHECK: warpspec.role "math1"
// CHECK-NOT: %[[DONE]][
// CHECK: warpspec.role "dispatch0" warps [0, 1)
// The dispatch warp: a row of m-block m = row / 64 at lap m / 8 >= 1 waits
// for lap x 4 (4 L2 tiles, one warpgroup each), then is written at row mod
// 512.
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK: %[[MB:.*]] = arith.divui %[[R]], %c64_i32{{.*}} : i32
// CHECK: %[[WSLOT:.*]] = arith.remui %{{.*}}, %c8_i32{{.*}} : i32
// CHECK-NEXT: %[[LAP:.*]] = arith.divui %{{.*}}, %c8_i32{{.*}} : i32
// CHECK: %[[REFILL:.*]] = arith.cmpi ugt, %[[LAP]], %c0_i32{{.*}} : i32
// CHECK-NEXT: scf.if %[[REFILL]] {
// CHECK: %[[TARGET:.*]] = arith.muli %[[LAP]], %c4_i32{{.*}} : i32
// CHECK-NEXT: %[[WAITED:.*]] = warpspec.global.offset %[[DONE]][%[[WSLOT]]]
// CHECK-NEXT: warpspec.counter.wait %[[WAITED]], %[[TARGET]] scope gpu name "pool_ring_slot" timeout_cycles
// CHECK: arith.remui %[[R]], %c512_i32{{.*}} : i32
// CHECK: warpspec.role "dispatch1" warps [1, 2)

// PTXAS: Compiling entry function 'moe_fused_gemm' for 'sm_90a'
// PTXAS-NEXT: Function properties for moe_fused_gemm
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// PTXAS2: Compiling entry function 'moe_fused_gemm_bm{{(64|128)}}' for 'sm_90a'
// PTXAS2-NEXT: Function properties for moe_fused_gemm_bm{{(64|128)}}
// PTXAS2-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS2: Compiling entry function 'moe_fused_gemm_bm{{(64|128)}}' for 'sm_90a'
// PTXAS2-NEXT: Function properties for moe_fused_gemm_bm{{(64|128)}}
// PTXAS2-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// No moe_pull; the block tables span the layout's 1024 rows, the pool's
// data 512.
// MANIFEST: ['moe_route', 'moe_layout', 'moe_fused_gemm', 'moe_combine_barrier', 'moe_combine_reduce']
// MANIFEST-NEXT: {'pool_ring_done': [16], 'pull_arrivals': [16], 'pool_block_expert': [16], 'l1_pool': [512, 512], 'l2_pool': [512, 256]}

// BM128: .entry moe_fused_gemm(

// PROFILE: ['pull', 'ring_wait'] ['tma', 'math0', 'math1', 'dispatch']

// PRO8: pool: 32768 rows (ring of the layout's 399360 rows: the fused GEMM kernel's dispatch warps refill a slot once its L2 tiles are done)
// PRO8: variant tokens 513..8192: grouped GEMMs BLOCK_M=128 {{.*}} l1-pull (the L1 kernel pulls its pool rows) wave=4 lag=1
// PRO8-NEXT: symmetric buffer: 1,188,024,064 B (1132.99 MiB)
// PRO8-WORST: pool: 399360 rows (worst case, never wraps)
// PRO8-WORST: symmetric buffer: 5,065,{{[0-9]+}},{{[0-9]+}} B (4830.{{[0-9]+}} MiB)

// SMALL: note: a pool of 256 rows, below the worst case of 1024, is a ring; variant BLOCK_M 64 (tokens/rank 0..256) cannot run it: its ring of 4 m-blocks is below (wave-lag + 1) x wave-m-blocks = 8 (an L1 tile would wait for an L2 tile after it)
// PHASES: note: {{.*}}cannot run it: it has no wave order (every L1 tile would run before the L2 tile that frees its slot)
// SPLIT: note: {{.*}}cannot run it: it runs the split schedule (a ring needs the fused-gemm schedule with l1-pull: no ring flow control between kernels)
// NOPULL: note: {{.*}}cannot run it: it runs the fused-gemm schedule without l1-pull (a ring needs the fused-gemm schedule with l1-pull: no ring flow control between kernels)
// ONE: error: megamoe-expand: one-kernel is not built for a variant whose L1 kernel pulls its rows (l1-pull, BLOCK_M 64): moe_fused runs the pull before its roles
