// The split L1 kernel in clusters of 2 (megamoe-plan l1-cluster; config::
// Variant::l1Cluster, on by default where it applies: stageL1Cluster): the
// two CTAs of a cluster compute m-blocks 2g and 2g + 1 at the same column
// blocks and, when both are one expert's, each loads half of every weight
// tile multicast to both; moe_layout lists each expert's m-blocks in pairs
// first and the odd ones out after every pair, so that a pair is one
// expert's. A last group of one m-block is computed again by rank 1, which
// stores nothing (ClusterTile::owned).
// Layer: E = 8, L = 8, R = 1, T = 64, K = 2, P = 1152, BLOCK_M 128.
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128" --megamoe-print-plan | FileCheck %s --check-prefix=PLAN
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l2-expert-blocks=false" --megamoe-expand="only=moe_layout" | FileCheck %s --check-prefix=LAYOUT
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=L1
// Off, the kernel is one CTA per tile and the layout's table contiguous.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-cluster=false" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=OFF
// Every kernel of the small layer (moe_l1_swiglu with fast math, moe_l1_gemm
// without: its TMA-store epilogue), and V4-Pro's (pair stages) and
// V4-Flash's layout and L1 kernel, compile without spills.
// RUN: rm -rf %t && mkdir -p %t/s %t/g %t/pro %t/flash
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/s" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/s/layer.ptx -o %t/s/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json; print([(k['name'], k['grid'][0], k['cluster']) for k in json.load(open('%t/s/layer.json'))['kernels'] if k['name'].startswith('moe_l1')])" | FileCheck %s --check-prefix=GRID
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/g" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/g/layer.ptx -o %t/g/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json; print([(k['name'], k['grid'][0], k['cluster']) for k in json.load(open('%t/g/layer.json'))['kernels'] if k['name'].startswith('moe_l1')])" | FileCheck %s --check-prefix=GRIDG
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a clamp=10 fast-math=true" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_layout,moe_l1_swiglu" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/pro" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/pro/layer.ptx -o %t/pro/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json; print([(v['block_m'], v['l1_cluster'], v['l1_pair_stages']) for v in json.load(open('%t/pro/layer.json'))['plan']['variants']])" | FileCheck %s --check-prefix=PRO
// Two BLOCK_M 128 variants (below and from sharedWeightsMinTokens): each
// kernel is built for its own variant, not for the first of its BLOCK_M
// (the shared one's L1 in clusters, its L2 in expert blocks: 765 x 24 L1
// tiles rounded to whole clusters, 1530 units x 56 L2 tiles).
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a clamp=10 fast-math=true" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_l1_swiglu,moe_l2_gemm" -o %t/pro3.mlir
// RUN: FileCheck %s --check-prefix=PRO3 --input-file=%t/pro3.mlir
// RUN: megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a clamp=10 fast-math=true" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_layout,moe_l1_swiglu" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/flash" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/flash/layer.ptx -o %t/flash/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// Only the split schedule's BLOCK_M 128 variant with half blocks, without
// k-split or l1-pull, takes it; asked of a plan without one, the option is
// an error; with the tiled L1 weights (whole-tile boxes) the rule refuses it.
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128 l1-cluster=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=64 l1-cluster=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 expert-align=128 l1-cluster=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-pull=true l1-cluster=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=fused l1-cluster=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RULE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-weight-tiles=true l1-cluster=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l1-cluster=yes" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALUE
// The tiled L1 weights asked for alone: the heuristic's clusters give way.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-weight-tiles=true" --megamoe-print-plan=format=json -o /dev/null | %python -c "import json,sys; print([v['l1_cluster'] for v in json.load(sys.stdin)['plan']['variants']])" | FileCheck %s --check-prefix=GIVEWAY

// PLAN: variant tokens 0..64: {{.*}}BLOCK_M=128 (experts padded to 64: half blocks) {{.*}} l1-cluster (the L1 kernel in clusters of 2, an expert's m-blocks sharing its weight tiles)
// PLAN: l1_cluster = true

// moe_layout: per expert its m-blocks in pairs (blocks - blocks & 1) and
// the odd one out (blocks & 1), summed in the lane and scanned over the
// lanes; block j of an expert goes to its pairs' place + j while j is
// below its paired count, else to its single's place after every pair.
// LAYOUT-LABEL: warpspec.kernel @moe_layout(
// LAYOUT-SAME: %[[TABLE:arg[0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_block_row"
// LAYOUT: %[[ODD:.*]] = arith.andi %{{.*}}, %c1_i32{{.*}} : i32
// LAYOUT-NEXT: arith.subi %{{.*}}, %[[ODD]] : i32
// LAYOUT: gpu.shuffle up
// LAYOUT: %[[INPAIR:.*]] = arith.cmpi ult, %arg{{[0-9]+}}, %{{.*}} : i32
// LAYOUT-NEXT: %[[PAIRAT:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// LAYOUT-NEXT: %[[AT:.*]] = arith.select %[[INPAIR]], %[[PAIRAT]], %{{.*}} : i32
// LAYOUT-NEXT: warpspec.global.offset %[[TABLE]][%[[AT]]]

// moe_l1_swiglu: a cluster of 2 (kernel attribute, cluster ring, cluster
// tile loop), a grid of whole clusters (max 20: 9 m-blocks of 128 in the
// 1152-row pool, 10 in clusters, x 2 pairs), the weight tile multicast
// when both m-blocks are one expert's (their experts read through the
// half-block table), and the stores of each math warpgroup under the
// cluster tile's owner predicate (warpgroup 1 also under its half-block
// flag).
// L1-LABEL: warpspec.kernel @moe_l1_swiglu(
// L1-SAME: cluster = array<i32: 2, 1, 1>
// L1-SAME: megamoe.grid = [{ctas = "num_sms", max = 20 : i64}, 1, 1]
// L1: warpspec.pipeline.create "ab" {{.*}} cluster 2
// L1: warpspec.role "tma"
// L1: warpspec.tile_loop (%[[M:.*]], %{{.*}}) m_blocks(%{{.*}}) n_blocks 2 raster 2 cluster 2 {
// L1: %[[SHARE:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// L1: scf.if %[[SHARE]] {
// L1-NEXT: warpspec.tma.load %{{.*}} multicast 2 :
// Else both 64-row halves here, the second at slot offset 8 KiB.
// L1: } else {
// L1: warpspec.tma.load %{{.*}}, %{{.*}} : !warpspec.tma_desc<64x128xf8E4M3FN
// L1: warpspec.tma.load %{{.*}}, %{{.*}} slot_offset 8192 : !warpspec.tma_desc<64x128xf8E4M3FN
// L1: warpspec.role "math0"
// L1: %[[OWN0:.*]] = arith.cmpi ult, %[[M0:.*]], %{{.*}} : index
// L1: scf.if %[[OWN0]] {
// L1: warpspec.tma.store
// L1: warpspec.role "math1"
// L1: %[[OWN1:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// L1: %[[STORE1:.*]] = arith.andi %{{.*}}, %[[OWN1]] : i1
// L1-NEXT: scf.if %[[STORE1]] {
// OFF-LABEL: warpspec.kernel @moe_l1_swiglu(
// OFF-NOT: cluster = array
// OFF-NOT: multicast

// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// GRID: [('moe_l1_swiglu', {'ctas': 'num_sms', 'max': 20}, [2, 1, 1])]
// GRIDG: [('moe_l1_gemm', {'ctas': 'num_sms', 'max': 40}, [2, 1, 1])]
// PRO: [(64, False, False), (128, False, True), (128, True, True)]
// PRO3-DAG: warpspec.kernel @moe_l1_swiglu_bm128({{.*}}megamoe.grid = [{ctas = "num_sms", max = 18360 : i64}
// PRO3-DAG: warpspec.kernel @moe_l2_gemm_bm128({{.*}}megamoe.grid = [{ctas = "num_sms", max = 21420 : i64}
// PRO3-DAG: warpspec.kernel @moe_l1_swiglu_bm128_shared({{.*}}cluster = array<i32: 2, 1, 1>{{.*}}megamoe.grid = [{ctas = "num_sms", max = 18384 : i64}
// PRO3-DAG: warpspec.kernel @moe_l2_gemm_bm128_shared({{.*}}megamoe.grid = [{ctas = "num_sms", max = 85680 : i64}
// NONE: l1-cluster=true applies to no variant of this plan: it is built for the split schedule's L1 kernel at BLOCK_M 128 with half blocks (expert-align 64) on sm_90a, without k-split or l1-pull
// RULE: l1-cluster is built for the split schedule's L1 kernel at BLOCK_M 128 with half blocks
// TILES: l1-cluster loads half column blocks, which the tiled L1 weights (l1-weight-tiles) do not have
// VALUE: unknown l1-cluster="yes"; expected true, false or empty (heuristic)
// GIVEWAY: [False]
