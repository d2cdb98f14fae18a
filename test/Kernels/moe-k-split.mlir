// The K-split tail (megamoe-plan k-split=N, config::Variant::kSplit): the
// grouped GEMMs of the BLOCK_M 64 variant split their last wave's tiles
// into N units along K; units 0 .. N - 2 spill their partial sums and count
// them, unit N - 1 waits, sums in part order and runs the epilogue
// (lib/Kernels/Collectives/SplitTile.h). Small layer: H = 512 (4 K blocks
// in L1), I = 256 (2 in L2), k-split 2; V4-Flash with k-split 4.
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split k-split=2" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=L1
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=unfused k-split=2" --megamoe-expand="only=moe_l2_gemm" | FileCheck %s --check-prefix=L2
// The plan: k_split per variant, the workspace counters (zero between
// calls) and the partial sums (one slot per unit of (2 - 1) * 132 / 2 = 66
// tiles, 64 x 256 floats each).
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split k-split=2" --megamoe-print-plan=format=json -o /dev/null | %python -c "import json,sys; d=json.load(sys.stdin); l=d['buffer_layout']; print([v['k_split'] for v in d['plan']['variants']], [(r['name'], r['shape'], r['offset'] < l['workspace_bytes']) for r in l['regions'] if r['name'].startswith('split_')])" | FileCheck %s --check-prefix=JSON
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split k-split=4" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=TEXT
// V4-Flash, split schedule, k-split 4 with L2 BLOCK_N 128: the split kernels
// of the BLOCK_M 64 variant assemble without spills.
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt %s --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 clamp=10 fast-math=true chip=sm_90a" --megamoe-plan="schedule=split k-split=4 l2-block-n=128" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// RUN: %python -c "import json,sys; print([(k['name'], k['resources']['spill_stores_bytes']) for k in json.load(open(sys.argv[1]))['kernels'] if 'bm64' in k['name'] and ('gemm' in k['name'] or 'swiglu' in k['name'])])" %t/layer.json | FileCheck %s --check-prefix=SPILLS
// The rule's refusals.
// RUN: not megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=fused-gemm k-split=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: not megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split k-split=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=KBLOCKS
// RUN: not megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split k-split=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: not megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_100a" --megamoe-plan="schedule=split k-split=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM100

// Split columns: each warpgroup hands on its own column block (counter
// slot 0 or 1), the SwiGLU runs on the sum.
// L1-LABEL: warpspec.kernel @moe_l1_swiglu(
// L1-SAME: megamoe.bind = "region:split_partials", megamoe.name = "split_partials"
// L1-SAME: megamoe.bind = "region:split_counts", megamoe.name = "split_counts"
// L1-SAME: megamoe.bind = "region:pool_row_start", megamoe.name = "pool_row_start"
// L1: warpspec.role "tma"
// L1: warpspec.tile_loop (%{{.*}}, %{{.*}}, %[[PU:.*]]) m_blocks(%{{.*}}) n_blocks 2 raster 2 k_split 2 tiles 66 {
// The unit's K blocks: [2 p, 2 p + 2) of 4, or all 4 for a whole tile.
// L1: arith.cmpi sge, %[[PU]], %c0_i32
// L1: arith.remui
// L1: warpspec.role "math0"
// L1: warpspec.tile_loop (%{{.*}}, %{{.*}}, %[[U:.*]]) m_blocks(%{{.*}}) n_blocks 2 raster 2 k_split 2 tiles 66 {
// The m-block's real rows, pool_row_start[expert][R] - row0 (R = 1), read
// before the mainloop.
// L1: %[[EXPERT:.*]] = warpspec.global.load
// L1: %[[ENTRY_BASE:.*]] = arith.muli %[[EXPERT]], %c2_i32
// L1: %[[ENTRY:.*]] = arith.addi %[[ENTRY_BASE]], %c1_i32
// L1: warpspec.global.offset %{{.*}}[%[[ENTRY]]]
// L1: %[[END:.*]] = warpspec.global.load
// L1: %[[ROWS:.*]] = arith.subi %[[END]], %{{.*}} : i32
// L1: warpspec.consumer.wait
// L1: arith.cmpi sge, %[[U]], %c0_i32{{.*}} : i32
// L1: scf.if %{{.*}} -> (i1, !warpspec.acc<64x128xf32>)
// L1: %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %c1_i32{{.*}} : i32
// L1: scf.if %[[LAST]] -> (i1, !warpspec.acc<64x128xf32>)
// L1: warpspec.counter.wait %{{.*}}, %c1_i32{{.*}} scope gpu name "split_partials" timeout_cycles
// L1: warpspec.barrier.sync
// L1: warpspec.acc.fill %{{.*}} rows %[[ROWS]]
// L1: warpspec.acc.map
// L1: } else {
// L1: warpspec.acc.spill %{{.*}}, %{{.*}} rows %[[ROWS]]
// L1: warpspec.barrier.sync
// L1: warpspec.counter.add %{{.*}}, %c1_i32{{.*}} scope gpu
// L1: scf.if %{{.*}} {
// L1: warpspec.acc.deinterleave

// One warpgroup, two column blocks (BLOCK_N 256): the second block's own
// partial and the first block's sum pass through the last unit's own slot.
// L2-LABEL: warpspec.kernel @moe_l2_gemm(
// L2: warpspec.role "math0"
// L2: scf.if %{{.*}} -> (i1, !warpspec.acc<64x128xf32>, !warpspec.acc<64x128xf32>)
// L2: warpspec.counter.wait
// Block 1's own partial out; block 0 = part 0's + own, its sum out; block 1
// = part 0's + own (read back); block 0's sum read back.
// L2: warpspec.acc.spill
// L2: warpspec.acc.fill
// L2: warpspec.acc.spill
// L2: warpspec.acc.fill
// L2: warpspec.acc.fill
// L2: warpspec.acc.fill
// L2: } else {

// JSON: [2] [('split_counts', [132], True), ('split_partials', [132, 16384], False)]
// TEXT: BLOCK_M=64 {{.*}} k-split=4 (the last wave's tiles split along K)
// TEXT-NOT: BLOCK_M=128 {{.*}} k-split
// NOWARN-NOT: spills registers
// SPILLS: [('moe_l1_swiglu_bm64', 0), ('moe_l2_gemm_bm64', 0)]
// FUSED: k-split: the fused-gemm schedule has no K-split tail (unfused and split only)
// KBLOCKS: k-split: the K blocks of L1 (4) and L2 (2) must be multiples of it
// THREE: k-split: it must be 1, 2 or 4, got 3
// SM100: k-split: it is not built for sm_100a (sm_90a only)
