// moe_layout (docs/UnfusedSchedule.md, kernel 2): the builder's IR, then the
// SM90 pipeline to PTX, the manifest's bindings and ptxas resources.
// Layer: E = 12, L = 6, R = 2, T = 40, K = 3 (T * K = 120), P = 1024, BM = 128.
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-layer="hidden=384 intermediate=256 experts=12 topk=3 ranks=2 max-tokens=40 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_layout" | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && mkdir -p %t/big
// RUN: megamoe-opt %s --megamoe-layer="hidden=384 intermediate=256 experts=12 topk=3 ranks=2 max-tokens=40 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_layout" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/layer.ptx --implicit-check-not=vprintf
// RUN: %python -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; print(k['name'], k['block'], k['grid'], [(p['name'], p['kind'], p['bind']) for p in k['params']])" %t/layer.json | FileCheck %s --check-prefix=JSON
// RUN: %ptxas -arch=sm_90a -v %t/layer.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// More local experts than lanes (L = 192: six per lane, their 2 x 6 count
// loads issued before the first scan).
// RUN: megamoe-opt %s --megamoe-layer="hidden=1024 intermediate=256 experts=384 topk=6 ranks=2 max-tokens=256 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_layout" | FileCheck %s --check-prefix=BIG
// V4-Pro at EP1 in the split schedule: L = 384, twelve experts per lane,
// half blocks (a second scan), without spills.
// RUN: mkdir -p %t/pro
// RUN: megamoe-opt %s --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_layout" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/pro" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/pro/layer.ptx -o %t/pro/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXASPRO
// RUN: megamoe-opt %s --megamoe-layer="hidden=1024 intermediate=256 experts=384 topk=6 ranks=2 max-tokens=256 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_layout" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/big" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/big/layer.ptx -o %t/big/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// IR-LABEL: warpspec.kernel @moe_layout(
// IR-SAME: %[[SEND:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:send_count", megamoe.name = "send_count"}
// IR-SAME: %[[RECV:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:recv_count", megamoe.name = "recv_count"}
// IR-SAME: %[[START:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_row_start", megamoe.name = "pool_row_start"}
// IR-SAME: %[[BLOCKS:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_block_expert", megamoe.name = "pool_block_expert"}
// IR-SAME: %[[INFO:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_info", megamoe.name = "pool_info"}
// IR-SAME: %[[BARRIERS:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:barriers", megamoe.name = "barriers"}
// IR-SAME: %[[ERR:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:errors", megamoe.name = "errors"}
// IR-SAME: %[[PEERS:[a-z0-9]+]]: !warpspec.global<i64> {megamoe.bind = "peer_offsets", megamoe.name = "peer_offsets"}
// IR-SAME: %[[RANK:[a-z0-9]+]]: i32 {megamoe.bind = "value:rank", megamoe.name = "rank"}
// IR-SAME: megamoe.grid = [1, 1, 1], programmatic_launch, threads = 128 : i32
// IR: arith.cmpi ult, %[[RANK]], %{{.*}} : i32
// Step 1: send_count[e] -> rank e / L's recv_count[rank][e % L], then zero.
// IR: scf.for %[[E:.*]] = %{{.*}} to %c12_i32 step %c128_i32 : i32 {
// IR: %[[COUNT:.*]] = warpspec.global.load %{{.*}} : !warpspec.global<i32>
// IR: %[[OWNER:.*]] = arith.divui %[[E]], %c6_i32
// IR: %[[L:.*]] = arith.remui %[[E]],
// IR: %[[RL:.*]] = arith.muli %[[RANK]],
// IR: arith.addi %[[RL]], %[[L]]
// IR: %[[MINE:.*]] = warpspec.global.offset %[[RECV]]
// IR: %[[REMOTE:.*]] = warpspec.peer.ptr %[[MINE]], %[[OWNER]], %[[PEERS]] : !warpspec.global<i32>, !warpspec.global<i64>
// IR: warpspec.global.store %[[COUNT]], %[[REMOTE]]
// IR: warpspec.global.offset %[[SEND]]
// IR: warpspec.global.store %c0_i32{{.*}}, %{{.*}} : !warpspec.global<i32>
// IR: }
// Step 2: fence, block sync, one thread crosses the ranks' barrier, block sync.
// IR-NEXT: warpspec.fence scope sys
// IR-NEXT: gpu.barrier
// IR: scf.if
// IR-NEXT: %[[NR:.*]] = arith.constant 2 : i32
// IR-NEXT: warpspec.cross_rank.barrier %[[BARRIERS]], %[[RANK]], %[[NR]], %[[PEERS]] scope sys name "moe_layout: barriers[0], before the pull" timeout_cycles 20000000000 : !warpspec.global<i32>, !warpspec.global<i64>
// IR-NEXT: }
// IR-NEXT: gpu.barrier
// Step 3 (warp 0): lane i owns experts [i c, (i + 1) c), c = ceil(6 / 32) = 1;
// N_l = sum of min(recv_count[r][l], T * K), both ranks' loads before any use,
// at an index clamped to L - 1 (no branch between the loads).
// IR: %[[LANEID:.*]] = gpu.lane_id
// IR-NEXT: %[[LANE:.*]] = arith.index_castui %[[LANEID]] : index to i32
// IR: %[[VALID:.*]] = arith.cmpi ult, %{{.*}}, %c6_i32{{.*}} : i32
// IR-NEXT: %[[CLAMPED:.*]] = arith.minui %{{.*}}, %c5_i32 : i32
// IR-NOT: scf.
// IR: warpspec.global.offset %[[RECV]]
// IR-NEXT: warpspec.global.load
// IR-NEXT: arith.constant 120 : i32
// IR-NEXT: arith.minui
// IR-NOT: scf.
// IR: warpspec.global.offset %[[RECV]]
// IR-NEXT: warpspec.global.load
// IR: %[[ROWS:.*]] = arith.select %[[VALID]], %{{.*}}, %{{.*}} : i32
// pad(N_l), the lane's sum, its warp-inclusive scan, the lane's first row.
// IR: arith.addi %[[ROWS]], %c127_i32 : i32
// IR: arith.divui
// IR: %[[PADDED:.*]] = arith.muli
// IR: %[[SUM:.*]] = arith.addi %{{.*}}, %[[PADDED]] : i32
// IR-COUNT-5: gpu.shuffle  up
// IR: %[[INCL:.*]] = arith.select
// IR-NEXT: %[[BASE:.*]] = arith.subi %[[INCL]], %[[SUM]] : i32
// IR: gpu.shuffle  idx %[[INCL]], %c31_i32, %c32_i32{{.*}} : i32
// IR: %[[S:.*]] = arith.addi %[[BASE]], %{{.*}} : i32
// pool_row_start[l][0..R], the blocks of expert l (capped at P / BM = 8).
// IR: scf.if %[[VALID]] {
// IR: scf.for %{{.*}} iter_args(%{{.*}} = %[[S]]) -> (i32)
// IR: warpspec.global.offset %[[START]]
// IR: warpspec.global.offset %[[START]]
// IR: arith.minui %{{.*}}, %c8_i32{{.*}} : i32
// IR: warpspec.global.offset %[[BLOCKS]]
// pool_info = (min(rows, P) / BM, min(rows, P)); an overflow counts in errors[1].
// IR: %[[USED:.*]] = arith.minui %[[TOTAL:.*]], %c1024_i32 : i32
// IR: arith.divui %[[USED]], %c128_i32
// IR: warpspec.global.offset %[[INFO]]
// IR: warpspec.global.offset %[[INFO]]
// IR: warpspec.global.store %[[USED]]
// IR: arith.cmpi ugt, %[[TOTAL]], %c1024_i32
// IR: warpspec.global.offset %[[ERR]]
// IR: warpspec.global.atomic add

// PTX: .entry moe_layout(
// PTX: .reqntid 128, 1, 1
// PTX-DAG: st.global.b32
// PTX-DAG: fence.sc.sys;
// PTX-DAG: bar.sync 0;
// PTX-DAG: atom.add.release.sys.global.u32
// PTX-DAG: red.release.sys.global.add.u32
// PTX-DAG: ld.acquire.sys.global.b32
// PTX-DAG: shfl.sync.up.b32
// PTX-DAG: shfl.sync.idx.b32
// The barrier's timeout: its report into the runtime's record (claimed by
// a compare-and-swap), then a trap.
// PTX-DAG: atom.relaxed.sys.global.cas.b32
// PTX-DAG: trap;

// JSON: moe_layout [128, 1, 1] [1, 1, 1] [('send_count', 'pointer', 'region:send_count'), ('recv_count', 'pointer', 'region:recv_count'), ('pool_row_start', 'pointer', 'region:pool_row_start'), ('pool_block_expert', 'pointer', 'region:pool_block_expert'), ('pool_info', 'pointer', 'region:pool_info'), ('barriers', 'pointer', 'region:barriers'), ('errors', 'pointer', 'region:errors'), ('peer_offsets', 'pointer', 'peer_offsets'), ('rank', 'i32', 'value:rank')]

// No stack frame: the barrier timeout's report is stores, not a call.
// PTXAS: Compiling entry function 'moe_layout' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// BIG: gpu.lane_id
// BIG-COUNT-12: warpspec.global.load
// BIG-NOT: warpspec.global.load
// BIG: gpu.shuffle  up

// PTXASPRO-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
