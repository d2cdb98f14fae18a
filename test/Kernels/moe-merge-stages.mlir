// megamoe-expand merge-stages (docs/UnfusedSchedule.md, "Merged stages"):
// moe_route + moe_layout + moe_pull become one kernel per variant,
// moe_dispatch, whose steps meet at grid barriers (barriers[2] after the
// route, barriers[3] after CTA 0's layout with its cross-rank barrier), and
// moe_combine_barrier + moe_combine_reduce become moe_combine (CTA 0 crosses
// the ranks' barrier, then every CTA meets at barriers[4] and reduces). The
// manifest's schedules name them; ptxas without spills for V4-Flash and
// V4-Pro; off by default; refused with l1-pull.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/flash %t/pro %t/off
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=2 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="merge-stages=true only=moe_dispatch,moe_combine" | FileCheck %s --check-prefix=IR
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="merge-stages=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/flash" -o /dev/null
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); [print(v['block_m'], ' '.join(v['schedule'])) for v in m['variants']]" %t/flash/layer.json | FileCheck %s --check-prefix=SCHED
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/flash/layer.ptx
// RUN: %ptxas -arch=sm_90a -v %t/flash/layer.ptx -o %t/flash/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: megamoe-opt %s --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="merge-stages=true only=moe_dispatch,moe_combine" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/pro" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/pro/layer.ptx -o %t/pro/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-PRO
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/off" -o /dev/null
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); [print(v['block_m'], ' '.join(v['schedule'])) for v in m['variants']]" %t/off/layer.json | FileCheck %s --check-prefix=OFF
// RUN: not megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split l1-pull=true block-m=64" --megamoe-expand="merge-stages=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PULL

// IR-LABEL: warpspec.kernel @moe_dispatch_bm64(
// IR-SAME: megamoe.name = "topk_idx"
// IR-SAME: megamoe.name = "recv_count"
// IR-SAME: megamoe.name = "barriers"
// IR-SAME: megamoe.name = "l1_pool"
// The route: one thread per slot, the remote store, the fence.
// IR: warpspec.peer.ptr
// IR: warpspec.fence scope sys
// IR: gpu.barrier
// IR: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_dispatch_bm64: barriers[2], after the route" timeout_cycles 20000000000
// IR: gpu.barrier
// The layout, on CTA 0.
// IR: scf.if
// IR: warpspec.cross_rank.barrier %{{.*}} name "moe_dispatch_bm64: barriers[0], before the pull"
// IR: gpu.shuffle up
// IR: gpu.barrier
// IR: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_dispatch_bm64: barriers[3], after the layout"
// IR: gpu.barrier
// The pull: one warp per used pool row.
// IR: scf.for
// IR: warpspec.return
// IR-LABEL: warpspec.kernel @moe_combine(
// IR: warpspec.cross_rank.barrier %{{.*}} name "moe_combine: barriers[1], before the combine reduce"
// IR: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_combine: barriers[4], after the cross-rank barrier"
// IR: scf.for
// IR: warpspec.return
// IR-LABEL: warpspec.kernel @moe_dispatch_bm128(
// IR-SAME: megamoe.name = "pool_block_row"

// SCHED: 64 moe_dispatch_bm64 moe_l1_swiglu_bm64 moe_l2_gemm_bm64 moe_combine
// SCHED: 128 moe_dispatch_bm128 moe_l1_gemm_bm128 moe_activation moe_l2_gemm_bm128 moe_combine
// SCHED: 128 moe_dispatch_bm128_shared moe_l1_gemm_bm128_shared moe_activation moe_l2_gemm_bm128_shared moe_combine

// PTX-LABEL: .entry moe_dispatch_bm64(
// PTX: atom.add.release.gpu.global.u32
// PTX: ld.acquire.gpu.global
// PTX: atom.add.release.sys.global.u32
// PTX: atom.add.release.gpu.global.u32
// PTX: ld.global.v4.b32

// PTXAS-NOT: bytes spill stores
// PTXAS-COUNT-11: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: bytes spill stores
// PTXAS-PRO-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
// OFF: 64 moe_route moe_layout_bm64 moe_pull_bm64 moe_l1_swiglu_bm64 moe_l2_gemm_bm64 moe_combine_barrier moe_combine_reduce
// PULL: merge-stages is not built for a variant whose L1 kernel pulls its rows (l1-pull, BLOCK_M 64)

module {
}
