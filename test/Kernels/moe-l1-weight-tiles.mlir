// megamoe-plan l1-weight-tiles=true (docs/UnfusedSchedule.md, "Tiled L1
// weights"): the L1 GEMMs' B descriptor is rank 4 over 128 x 128 contiguous
// tiles (K in tile, row in tile, K tile, row tile), loaded by
// cp.async.bulk.tensor.4d at (0, row % 128, k / 128, row / 128); the L2
// GEMM's stays rank 2; the plan JSON says so; ptxas without spills; off by
// default; refused on sm_100a.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split l1-weight-tiles=true" | FileCheck %s --check-prefix=PLAN
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split l1-weight-tiles=true" --megamoe-expand="only=moe_l1_swiglu,moe_l2_gemm" | FileCheck %s --check-prefix=IR
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split l1-weight-tiles=true" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); print('tiles', m['plan']['l1_weight_tiles']); [print(k['name'], t['rank'], t['global_shape'], t['global_strides_bytes'], t['box']) for k in m['kernels'] for t in k.get('tma_descriptors', []) if t['name'] == 'b']" %t/layer.json | FileCheck %s --check-prefix=JSON
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/layer.ptx
// RUN: %ptxas -arch=sm_90a -v %t/layer.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" | FileCheck %s --check-prefix=OFF
// RUN: not megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_100a" --megamoe-plan="schedule=split l1-weight-tiles=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM100
// RUN: not megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="l1-weight-tiles=maybe" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// PLAN: plan = <chip = "sm_90a"{{.*}}], l1_weight_tiles = true>
// OFF-NOT: l1_weight_tiles = true

// IR-LABEL: warpspec.kernel @moe_l1_swiglu_bm64(
// IR-SAME: !warpspec.tma_desc<1x1x128x128xf8E4M3FN, swizzle = 128> {megamoe.bind = "input:l1_weight"
// IR: warpspec.tma.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}], %{{.*}} : !warpspec.tma_desc<1x1x128x128xf8E4M3FN, swizzle = 128>
// IR-LABEL: warpspec.kernel @moe_l2_gemm_bm64(
// IR-SAME: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128> {megamoe.bind = "input:l2_weight"

// JSON: tiles True
// JSON-DAG: moe_l1_swiglu_bm64 4 [128, 128, 32, 8192] [128, 16384, 524288] [128, 128, 1, 1]
// JSON-DAG: moe_l1_gemm_bm128 4 [128, 128, 32, 8192] [128, 16384, 524288] [128, 128, 1, 1]
// JSON-DAG: moe_l2_gemm_bm64 2 [2048, 1048576] [2048] [128, 128]

// PTX: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PTXAS-NOT: bytes spill stores
// PTXAS-COUNT-12: 0 bytes spill stores, 0 bytes spill loads
// SM100: l1-weight-tiles: the tiled L1 weights are built for sm_90a only (not sm_100a)
// BAD: unknown l1-weight-tiles="maybe"

module {
}
