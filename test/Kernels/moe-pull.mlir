// moe_pull (docs/UnfusedSchedule.md, kernel 3): the builder's IR, then the
// SM90 pipeline to PTX, the manifest's bindings and ptxas resources.
// Layer: H = 384 (24 vectors of 16 B, 3 scale columns), L = 6, R = 2,
// T = 40, K = 3 (T * K = 120), P = 1024, BM = 128.
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-layer="hidden=384 intermediate=256 experts=12 topk=3 ranks=2 max-tokens=40 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_pull" | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && mkdir -p %t/h7168 %t/h2048
// RUN: megamoe-opt %s --megamoe-layer="hidden=384 intermediate=256 experts=12 topk=3 ranks=2 max-tokens=40 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_pull" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/layer.ptx
// RUN: %python -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; print(k['name'], k['block'], k['grid'], [(p['name'], p['kind'], p['bind']) for p in k['params']])" %t/layer.json | FileCheck %s --check-prefix=JSON
// RUN: %ptxas -arch=sm_90a -v %t/layer.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// DeepSeek-V3 at EP8 (a 3.7 GB pool: 64-bit offsets): 448 vectors per row,
// 14 per lane: seven 16-byte loads in flight per lane (the largest unroll
// <= 8 that divides 14).
// RUN: megamoe-opt %s --megamoe-layer="hidden=7168 intermediate=2048 experts=256 topk=8 ranks=8 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_pull" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/h7168" -o /dev/null
// RUN: grep -c "ld.global.v4.b32" %t/h7168/layer.ptx | FileCheck %s --check-prefix=LOADS7
// RUN: %ptxas -arch=sm_90a -v %t/h7168/layer.ptx -o %t/h7168/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// H = 4096 (V4-Flash): 256 vectors per row, the whole row in one trip of
// eight loads per lane, still without spills.
// RUN: mkdir -p %t/h4096
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_pull" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/h4096" -o /dev/null
// RUN: grep -c "ld.global.v4.b32" %t/h4096/layer.ptx | FileCheck %s --check-prefix=LOADS24
// RUN: %ptxas -arch=sm_90a -v %t/h4096/layer.ptx -o %t/h4096/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS2
// H = 2048: 128 vectors per row, four loads in flight per lane.
// RUN: megamoe-opt %s --megamoe-layer="hidden=2048 intermediate=1024 experts=64 topk=6 ranks=4 max-tokens=512 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_pull" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/h2048" -o /dev/null
// RUN: grep -c "ld.global.v4.b32" %t/h2048/layer.ptx | FileCheck %s --check-prefix=LOADS4
// RUN: %ptxas -arch=sm_90a -v %t/h2048/layer.ptx -o %t/h2048/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// IR-LABEL: warpspec.kernel @moe_pull(
// IR-SAME: %[[SRC:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:src_token_index", megamoe.name = "src_token_index"}
// IR-SAME: %[[START:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_row_start", megamoe.name = "pool_row_start"}
// IR-SAME: %[[BLOCKS:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_block_expert", megamoe.name = "pool_block_expert"}
// IR-SAME: %[[INFO:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_info", megamoe.name = "pool_info"}
// IR-SAME: %[[POOL:[a-z0-9]+]]: !warpspec.global<i8> {megamoe.bind = "region:l1_pool", megamoe.name = "l1_pool"}
// IR-SAME: %[[POOLSF:[a-z0-9]+]]: !warpspec.global<f32> {megamoe.bind = "region:l1_pool_sf", megamoe.name = "l1_pool_sf"}
// IR-SAME: %[[WEIGHT:[a-z0-9]+]]: !warpspec.global<f32> {megamoe.bind = "region:l1_pool_weight", megamoe.name = "l1_pool_weight"}
// IR-SAME: %[[SOURCE:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_source", megamoe.name = "pool_source"}
// IR-SAME: %[[X:[a-z0-9]+]]: !warpspec.global<i8> {megamoe.bind = "region:x", megamoe.name = "x"}
// IR-SAME: %[[XSF:[a-z0-9]+]]: !warpspec.global<f32> {megamoe.bind = "region:x_sf", megamoe.name = "x_sf"}
// IR-SAME: %[[TOPKW:[a-z0-9]+]]: !warpspec.global<f32> {megamoe.bind = "region:topk_weights", megamoe.name = "topk_weights"}
// IR-SAME: %[[PEERS:[a-z0-9]+]]: !warpspec.global<i64> {megamoe.bind = "peer_offsets", megamoe.name = "peer_offsets"}
// IR-SAME: megamoe.grid = [{ctas = "num_sms"}, 1, 1], programmatic_launch, threads = 1024 : i32
// IR: %[[LANEID:.*]] = gpu.lane_id
// IR-NEXT: %[[LANE:.*]] = arith.index_castui %[[LANEID]] : index to i32
// Rows: min(pool_info[1], P), one warp each, grid-stride over the warps.
// IR: warpspec.global.offset %[[INFO]]
// IR: %[[USED:.*]] = warpspec.global.load
// IR: %[[ROWS:.*]] = arith.minui %[[USED]], %c1024_i32 : i32
// IR: scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} : i32 {
// IR: %[[DST:.*]] = warpspec.global.offset %[[POOL]][%{{.*}}] : !warpspec.global<i8>, i64
// row -> block -> expert l (forced into [0, L)).
// IR: %[[BLOCK:.*]] = arith.divui %[[ROW]], %c128_i32 : i32
// IR: warpspec.global.offset %[[BLOCKS]]
// IR: %[[EXPERT:.*]] = warpspec.global.load
// IR: %[[EOK:.*]] = arith.cmpi ult, %[[EXPERT]], %c6_i32 : i32
// IR: %[[L:.*]] = arith.select %[[EOK]], %[[EXPERT]], %{{.*}} : i32
// Source rank: the lanes count the ranks whose segment ends at or before the row.
// IR: scf.for %{{.*}} = %[[LANE]] to %c2_i32{{.*}} step %c32_i32{{.*}} iter_args
// IR: warpspec.global.offset %[[START]]
// IR: arith.cmpi ule, %{{.*}}, %[[ROW]] : i32
// IR: %[[COUNT:.*]] = gpu.subgroup_reduce  add %{{.*}} uniform : (i32) -> i32
// IR: %[[R:.*]] = arith.select %[[EOK]], %[[COUNT]], %c2_i32 : i32
// IR: %[[ISSRC:.*]] = arith.cmpi ult, %[[R]], %c2_i32{{.*}} : i32
// Slot s = src_token_index[l][r][row - pool_row_start[l][r]], or -1.
// IR: %[[SLOT:.*]] = scf.if %[[ISSRC]] -> (i32) {
// IR: arith.subi %[[ROW]],
// IR: arith.constant 120 : i64
// IR: warpspec.global.offset %[[SRC]]
// IR: } else {
// IR: %[[REAL:.*]] = arith.cmpi ult, %[[SLOT]], %c120_i32 : i32
// IR: scf.if %[[REAL]] {
// IR: %[[T:.*]] = arith.divui %[[SLOT]], %c3_i32
// IR: %[[K:.*]] = arith.remui %[[SLOT]], %c3_i32
// x row of rank r: 16-byte vectors, lanes stride over the 24 vectors.
// IR: %[[PX:.*]] = warpspec.peer.ptr %[[X]], %[[R]], %[[PEERS]] : !warpspec.global<i8>, !warpspec.global<i64>
// IR: %[[XROW:.*]] = warpspec.global.offset %[[PX]]
// IR: scf.for %{{.*}} = %[[LANE]] to %c24_i32 step %c32_i32
// IR: %[[XV:.*]] = warpspec.global.cast %[[XROW]] : !warpspec.global<i8> to !warpspec.global<vector<4xi32>>
// IR: warpspec.global.offset %[[XV]][%{{.*}}] : !warpspec.global<vector<4xi32>>, i32
// IR: %[[V:.*]] = warpspec.global.load %{{.*}} align 16 : !warpspec.global<vector<4xi32>>
// IR: %[[DV:.*]] = warpspec.global.cast %[[DST]] : !warpspec.global<i8> to !warpspec.global<vector<4xi32>>
// IR: warpspec.global.offset %[[DV]][%{{.*}}] : !warpspec.global<vector<4xi32>>, i32
// IR: warpspec.global.store %[[V]], %{{.*}} align 16 : !warpspec.global<vector<4xi32>>
// x_sf[t][c] -> l1_pool_sf[c][row] (stride P = 1024).
// IR: %[[PSF:.*]] = warpspec.peer.ptr %[[XSF]], %[[R]], %[[PEERS]] : !warpspec.global<f32>, !warpspec.global<i64>
// IR: scf.for %[[C:.*]] = %[[LANE]] to %c3_i32{{.*}} step %c32_i32
// IR: warpspec.global.offset %[[PSF]]
// IR: arith.constant 1024 : i64
// IR: warpspec.global.offset %[[POOLSF]]
// Lane 0: topk_weights[s] of rank r and the source (r, t, k).
// IR: warpspec.peer.ptr %[[TOPKW]], %[[R]], %[[PEERS]]
// IR: warpspec.global.offset %[[WEIGHT]]
// IR: warpspec.global.offset %[[SOURCE]]
// IR: warpspec.global.store %[[R]]
// IR: warpspec.global.offset %[[SOURCE]]
// IR: warpspec.global.store %[[T]]
// IR: warpspec.global.offset %[[SOURCE]]
// IR: warpspec.global.store %[[K]]
// Padding row: zeros and (-1, -1, -1).
// IR: } else {
// IR: arith.constant dense<0> : vector<4xi32>
// IR: warpspec.global.cast %[[DST]]
// IR: warpspec.global.offset %[[POOLSF]]
// IR: warpspec.global.offset %[[WEIGHT]]
// IR: %[[NONE:.*]] = arith.constant -1 : i32
// IR-COUNT-3: warpspec.global.store %[[NONE]]

// PTX: .entry moe_pull(
// PTX: .reqntid 1024, 1, 1
// PTX: .maxnreg 64
// PTX-DAG: redux.sync.add
// PTX-DAG: ld.global.v4.b32
// PTX-DAG: st.global.v4.b32 {{.*}}{0, 0, 0, 0};

// JSON: moe_pull [1024, 1, 1] [{'ctas': 'num_sms'}, 1, 1] [('src_token_index', 'pointer', 'region:src_token_index'), ('pool_row_start', 'pointer', 'region:pool_row_start'), ('pool_block_expert', 'pointer', 'region:pool_block_expert'), ('pool_info', 'pointer', 'region:pool_info'), ('l1_pool', 'pointer', 'region:l1_pool'), ('l1_pool_sf', 'pointer', 'region:l1_pool_sf'), ('l1_pool_weight', 'pointer', 'region:l1_pool_weight'), ('pool_source', 'pointer', 'region:pool_source'), ('x', 'pointer', 'region:x'), ('x_sf', 'pointer', 'region:x_sf'), ('topk_weights', 'pointer', 'region:topk_weights'), ('peer_offsets', 'pointer', 'peer_offsets')]

// PTXAS: Compiling entry function 'moe_pull' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// LOADS7: {{^}}7{{$}}
// LOADS4: {{^}}4{{$}}
// Three variants (BLOCK_M 64, 128, and 128 from sharedWeightsMinTokens),
// eight loads each.
// LOADS24: {{^}}24{{$}}
// PTXAS2-COUNT-3: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
