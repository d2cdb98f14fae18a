// megamoe-expand one-kernel (docs/FusedSchedule.md, "One kernel"): the
// fused-gemm layer as ONE kernel per variant, moe_fused: route, CTA 0's
// layout (with the cross-rank barrier barriers[0]) and the pull before the
// roles, at grid barriers barriers[2], [3] and [5]; the fused GEMM kernel's
// roles (L2 tiles waiting on the L1 arrivals); after the math warpgroups'
// last tile a grid barrier of the math threads (barriers[6], named barrier
// 5), CTA 0's cross-rank barrier (barriers[1]), barriers[4] and the top-k
// reduce by the 256 math threads. The combine reads its own copies of its
// parameters ("combine." names, same bindings). The manifest's schedule is
// one kernel per variant; refused with other schedules and with
// merge-stages. ptxas for V4-Flash: BLOCK_M 64 without spills (the
// dispatch reads the special registers opaquely, so none stays live through
// the roles); BLOCK_M 128 still spills 40 bytes (docs/FusedSchedule.md).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/flash
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=fused-gemm" --megamoe-expand="one-kernel=true" | FileCheck %s --check-prefix=IR
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=fused-gemm" --megamoe-expand="one-kernel=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/flash" -o /dev/null 2>/dev/null
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); [print(v['block_m'], ' '.join(v['schedule'])) for v in m['variants']]" %t/flash/layer.json | FileCheck %s --check-prefix=SCHED
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); k=[k for k in m['kernels'] if k['name']=='moe_fused_bm64'][0]; print(' '.join(p['name'] + '=' + p.get('bind','') for p in k['params'] if 'rank' in p['name'] or p['name'].startswith('combine')))" %t/flash/layer.json | FileCheck %s --check-prefix=PARAMS
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/flash/layer.ptx
// RUN: %ptxas -arch=sm_90a -v %t/flash/layer.ptx -o %t/flash/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: not megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="one-kernel=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=fused-gemm" --megamoe-expand="one-kernel=true merge-stages=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MERGE

// IR-LABEL: warpspec.kernel @moe_fused(
// IR-SAME: megamoe.name = "l2_waits"
// IR-SAME: megamoe.name = "topk_idx"
// IR-SAME: megamoe.name = "barriers"
// IR-SAME: megamoe.bind = "value:rank", megamoe.name = "combine.rank"
// IR-SAME: megamoe.bind = "input:y", megamoe.name = "combine.y"
// IR-SAME: megamoe.grid = [{ctas = "num_sms"}, 1, 1]
// The dispatch, every thread before the roles.
// IR: warpspec.peer.ptr
// IR: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_fused: barriers[2], after the route"
// IR: warpspec.cross_rank.barrier %{{.*}} name "moe_fused: barriers[0], before the pull"
// IR: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_fused: barriers[3], after the layout"
// IR: warpspec.fence.async_global
// IR: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_fused: barriers[5], after the pull"
// IR: warpspec.fence.async_global
// IR: %[[MATH:.*]] = warpspec.named_barrier 5 roles ["math0", "math1"]
// IR: warpspec.roles {
// IR: warpspec.role "tma"
// IR: warpspec.counter.wait %{{.*}} name "l2_arrival"
// IR: warpspec.role "math0"
// The combine, by the math warpgroups after their last tile.
// IR: warpspec.fence scope sys
// IR: warpspec.barrier.sync %[[MATH]]
// IR: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_fused: barriers[6], after the L2 tiles"
// IR: warpspec.barrier.sync %[[MATH]]
// IR: warpspec.cross_rank.barrier %{{.*}} name "moe_fused: barriers[1], before the combine reduce"
// IR: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_fused: barriers[4], after the cross-rank barrier"
// IR: scf.for
// IR: warpspec.role "math1"
// IR: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_fused: barriers[6], after the L2 tiles"
// IR: warpspec.return

// SCHED: 64 moe_fused_bm64
// SCHED-NEXT: 128 moe_fused_bm128

// PARAMS: rank=value:rank combine.barriers=region:barriers combine.peer_offsets=peer_offsets combine.rank=value:rank combine.topk_idx=region:topk_idx combine.combine=region:combine combine.y=input:y combine.num_tokens=value:num_tokens

// (LLVM lays the blocks out interleaved: dispatch, roles and combine)
// PTX-LABEL: .entry moe_fused_bm64(
// PTX-DAG: atom.add.release.gpu.global.u32
// PTX-DAG: atom.add.release.sys.global.u32
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// PTX-DAG: wgmma.mma_async
// PTX-DAG: fence.sc.sys
// PTX-DAG: barrier.sync 5, 256
// PTX-LABEL: .entry moe_fused_bm128(

// PTXAS: Compiling entry function 'moe_fused_bm128'
// PTXAS: Compiling entry function 'moe_fused_bm64'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// SPLIT: one-kernel is built for the fused-gemm schedule (megamoe-plan="schedule=fused-gemm"); the BLOCK_M 64 variant's is split
// MERGE: one-kernel already holds the dispatch and the combine; merge-stages does not apply

module {
}
