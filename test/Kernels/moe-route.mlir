// moe_route (docs/UnfusedSchedule.md, kernel 1): the builder's IR, then the
// SM90 pipeline to PTX, the manifest's bindings and ptxas resources.
// Layer: E = 12, L = 6, R = 2, T = 40, K = 3 (T * K = 120).
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-layer="hidden=384 intermediate=256 experts=12 topk=3 ranks=2 max-tokens=40 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_route" | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt %s --megamoe-layer="hidden=384 intermediate=256 experts=12 topk=3 ranks=2 max-tokens=40 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_route" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/layer.ptx
// RUN: %python -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; print(k['name'], k['block'], k['grid'], [(p['name'], p['kind'], p['bind']) for p in k['params']])" %t/layer.json | FileCheck %s --check-prefix=JSON
// RUN: %ptxas -arch=sm_90a -v %t/layer.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// IR-LABEL: warpspec.kernel @moe_route(
// IR-SAME: %[[IDX:[a-z0-9]+]]: !warpspec.global<i64> {megamoe.bind = "region:topk_idx", megamoe.name = "topk_idx"}
// IR-SAME: %[[SEND:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:send_count", megamoe.name = "send_count"}
// IR-SAME: %[[SRC:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:src_token_index", megamoe.name = "src_token_index"}
// IR-SAME: %[[ERR:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:errors", megamoe.name = "errors"}
// IR-SAME: %[[PEERS:[a-z0-9]+]]: !warpspec.global<i64> {megamoe.bind = "peer_offsets", megamoe.name = "peer_offsets"}
// IR-SAME: %[[RANK:[a-z0-9]+]]: i32 {megamoe.bind = "value:rank", megamoe.name = "rank"}
// IR-SAME: %[[NTOK:[a-z0-9]+]]: i32 {megamoe.bind = "value:num_tokens", megamoe.name = "num_tokens"}
// IR-SAME: megamoe.grid = [{ctas = "num_sms"}, 1, 1], programmatic_launch, threads = 512 : i32
// A rank outside [0, R) does nothing.
// IR: %[[R:.*]] = arith.constant 2 : i32
// IR: arith.cmpi ult, %[[RANK]], %[[R]] : i32
// num_tokens is clamped to [0, T]; slots = tokens * K, grid-stride.
// IR: %[[T:.*]] = arith.constant 40 : i32
// IR: %[[LO:.*]] = arith.maxsi %[[NTOK]]
// IR: %[[TOK:.*]] = arith.minsi %[[LO]], %[[T]]
// IR: %[[K:.*]] = arith.constant 3 : i32
// IR: %[[SLOTS:.*]] = arith.muli %[[TOK]], %[[K]]
// IR: scf.for %[[S:.*]] = %[[FIRST:.*]] to %[[SLOTS]] step %{{.*}} : i32 {
// IR: %[[E:.*]] = warpspec.global.load %{{.*}} align 8 : !warpspec.global<i64>
// Valid ids are [0, E) (unsigned compare), -1 is masked.
// IR: %[[NE:.*]] = arith.constant 12 : i64
// IR: %[[VALID:.*]] = arith.cmpi ult, %[[E]], %[[NE]] : i64
// IR: %[[MASKED:.*]] = arith.cmpi eq, %[[E]], %{{.*}} : i64
// IR: scf.if %[[VALID]] {
// IR: %[[E32:.*]] = arith.trunci %[[E]]
// IR: %[[L:.*]] = arith.constant 6 : i32
// IR: %[[OWNER:.*]] = arith.divui %[[E32]], %[[L]]
// IR: %[[LOCAL:.*]] = arith.remui %[[E32]],
// IR: %[[CTR:.*]] = warpspec.global.offset %[[SEND]][%[[E32]]] : !warpspec.global<i32>, i32
// IR: %[[POS:.*]] = warpspec.global.atomic add %[[CTR]], %{{.*}} : !warpspec.global<i32>
// IR: %[[TK:.*]] = arith.constant 120 : i32
// IR: %[[INB:.*]] = arith.cmpi ult, %[[POS]], %[[TK]]
// IR: scf.if %[[INB]] {
// src_token_index[l][rank][pos] on the owner rank.
// IR: %[[LR:.*]] = arith.muli %[[LOCAL]], %{{.*}} : i32
// IR: %[[ROW:.*]] = arith.addi %[[LR]], %[[RANK]] : i32
// IR: arith.constant 120 : i64
// IR: %[[MINE:.*]] = warpspec.global.offset %[[SRC]][%{{.*}}] : !warpspec.global<i32>, i64
// IR: %[[REMOTE:.*]] = warpspec.peer.ptr %[[MINE]], %[[OWNER]], %[[PEERS]] : !warpspec.global<i32>, !warpspec.global<i64>
// IR: warpspec.global.store %[[S]], %[[REMOTE]] align 4 : !warpspec.global<i32>
// IR: } else {
// IR: %[[BAD:.*]] = arith.xori %[[MASKED]], %true
// IR: scf.if %[[BAD]] {
// IR: warpspec.global.atomic add %[[ERR]], %{{.*}} : !warpspec.global<i32>
// After the loop, the threads that handled a slot (first < slots): system
// fence for their remote stores.
// IR: %[[HANDLED:.*]] = arith.cmpi slt, %[[FIRST]], %[[SLOTS]] : i32
// IR-NEXT: scf.if %[[HANDLED]] {
// IR-NEXT: warpspec.fence scope sys
// IR-NEXT: }
// IR-NEXT: }
// IR-NEXT: warpspec.return

// PTX: .entry moe_route(
// PTX: .reqntid 512, 1, 1
// PTX: .maxnreg 64
// PTX-DAG: ld.global.b64
// PTX-DAG: atom.global.add.u32
// PTX-DAG: st.global.b32
// PTX-DAG: fence.sc.sys;

// JSON: moe_route [512, 1, 1] [{'ctas': 'num_sms'}, 1, 1] [('topk_idx', 'pointer', 'region:topk_idx'), ('send_count', 'pointer', 'region:send_count'), ('src_token_index', 'pointer', 'region:src_token_index'), ('errors', 'pointer', 'region:errors'), ('peer_offsets', 'pointer', 'peer_offsets'), ('rank', 'i32', 'value:rank'), ('num_tokens', 'i32', 'value:num_tokens')]

// PTXAS: Compiling entry function 'moe_route' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
