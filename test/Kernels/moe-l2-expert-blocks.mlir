// Expert blocks (megamoe-plan l2-expert-blocks=true; config::Variant::
// l2ExpertBlocks): the split schedule's BLOCK_M 128 L2 GEMM takes an
// expert's 64-row units four at a time, 256 x 128 tiles whose math
// warpgroups compute two row blocks each (or one, or skip), so that a tile
// reads the expert's weight tile once for up to 256 rows.
// Layer: E = 8, L = 8, R = 1, T = 64, K = 2, P = 1152, BLOCK_M 128.
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l2-expert-blocks=true" --megamoe-print-plan | FileCheck %s --check-prefix=PLAN
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l2-expert-blocks=true" --megamoe-expand="only=moe_layout" | FileCheck %s --check-prefix=LAYOUT
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l2-expert-blocks=true" --megamoe-expand="only=moe_l2_gemm" | FileCheck %s --check-prefix=L2
// Off (l2-expert-blocks=false; on by default where it applies,
// stageL2ExpertBlocks) the layout has no expert-block table.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l2-expert-blocks=false" --megamoe-expand="only=moe_layout" | FileCheck %s --check-prefix=OFF
// Every kernel of the layer, and V4-Pro's and V4-Flash's layout and L2
// GEMM, compile without spills.
// RUN: rm -rf %t && mkdir -p %t/s %t/pro %t/flash
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split block-m=128 l2-expert-blocks=true" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/s" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/s/layer.ptx -o %t/s/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json; print([(r['name'], r['shape']) for r in json.load(open('%t/s/layer.json'))['buffer_layout']['regions'] if r['name'] in ('pool_block_row', 'pool_expert_block', 'pool_info')])" | FileCheck %s --check-prefix=REGION
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a clamp=10 fast-math=true" --megamoe-plan="schedule=split l2-expert-blocks=true" --megamoe-expand="only=moe_layout,moe_l2_gemm" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/pro" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/pro/layer.ptx -o %t/pro/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXASV4
// RUN: megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a clamp=10 fast-math=true" --megamoe-plan="schedule=split l2-expert-blocks=true" --megamoe-expand="only=moe_layout,moe_l2_gemm" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/flash" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/flash/layer.ptx -o %t/flash/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXASV4
// Only the BLOCK_M 128 variant of the split schedule with half blocks takes
// them; asked of a plan without one, the option is an error.
// RUN: %python -c "import json; print([v['l2_expert_blocks'] for v in json.load(open('%t/pro/layer.json'))['plan']['variants']])" | FileCheck %s --check-prefix=PRO
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128 l2-expert-blocks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=64 l2-expert-blocks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 expert-align=128 l2-expert-blocks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a requant-block=64" --megamoe-plan="schedule=split block-m=128 l2-expert-blocks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l2-expert-blocks=yes" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=fused l2-expert-blocks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RULE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l2-block-n=256 l2-expert-blocks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BN

// PLAN: variant tokens 0..64: {{.*}}BLOCK_M=128 (experts padded to 64: half blocks) L1 BLOCK_N=128 L2 BLOCK_N=128 {{.*}} l2-expert-blocks (the L2 GEMM in 256-row expert blocks)
// PLAN: l2_expert_blocks = true

// moe_layout: per expert ceil(padded / 256) blocks, scanned over the lanes;
// block j's first row start + 256 j, its units those of its two m-blocks
// inside the pool, written as row | (units - 1) << 30; pool_info[2] counts
// the blocks.
// LAYOUT-LABEL: warpspec.kernel @moe_layout(
// LAYOUT-SAME: megamoe.bind = "region:pool_expert_block", megamoe.name = "pool_expert_block"
// LAYOUT: %[[L2B:.*]] = arith.divui %{{.*}}, %c256_i32 : i32
// LAYOUT: arith.muli %{{.*}}, %c256_i32{{.*}} : i32
// LAYOUT: arith.minui %{{.*}}, %c256_i32{{.*}} : i32
// LAYOUT: arith.divui %{{.*}}, %c64_i32{{.*}} : i32
// LAYOUT: arith.cmpi ugt
// LAYOUT: arith.shli %{{.*}}, %c30_i32{{.*}} : i32
// LAYOUT: scf.if
// LAYOUT: warpspec.global.offset %arg10
// LAYOUT: warpspec.global.offset %arg4[%c2_i32{{.*}}]
// OFF-LABEL: warpspec.kernel @moe_layout(
// OFF-NOT: pool_expert_block
// OFF-NOT: %c256_i32

// moe_l2_gemm: 256 x 128 tiles (a 256-row A stage, a 128-row output tile of
// one 64-column panel per warpgroup), its blocks counted by pool_info[2].
// L2-LABEL: warpspec.kernel @moe_l2_gemm(
// L2-SAME: megamoe.bind = "region:pool_expert_block", megamoe.name = "block_row"
// L2: arith.constant 2 : i32
// L2-NEXT: warpspec.global.offset %{{.*}}[%{{.*}}] : !warpspec.global<i32>, i32
// L2: warpspec.smem.alloc "a_tiles" : !warpspec.smem<256x128xf8E4M3FN
// L2: warpspec.smem.alloc "d_tiles" : !warpspec.smem<128x64xbf16
// L2: %[[HB:.*]] = warpspec.named_barrier 4 roles ["math0", "math1"]
// L2: warpspec.role "tma"
// L2: warpspec.tma.load %arg0{{.*}} : !warpspec.tma_desc<256x128xf8E4M3FN
// Warpgroup 0: the units from bits 30-31; it releases each stage twice when
// warpgroup 1 has none of the block (units <= 2); two row blocks (two MMAs
// per K block) when it holds units 0 and 1, else one.
// L2: warpspec.role "math0"
// L2: %[[E0:.*]] = warpspec.global.load
// L2: %[[S0:.*]] = arith.shrui %[[E0]], %c30_i32 : i32
// L2: %[[U0:.*]] = arith.addi %[[S0]], %c1_i32 : i32
// L2: %[[SKIP0:.*]] = arith.cmpi ule, %[[U0]], %{{.*}} : i32
// L2: %[[N:.*]] = arith.select %[[SKIP0]], %{{.*}}, %{{.*}} : i32
// L2: %[[TWO0:.*]] = arith.cmpi uge, %[[U0]], %c2_i32{{.*}} : i32
// L2: scf.if %[[TWO0]] {
// L2: warpspec.mma.block_scaled
// L2-NEXT: warpspec.mma.block_scaled
// L2: warpspec.consumer.release %{{.*}} count %[[N]]
// L2: scf.if %[[SKIP0]] {
// L2-NEXT: warpspec.barrier.sync %[[HB]]
// L2: warpspec.peer.ptr
// L2: } else {
// L2: warpspec.mma.block_scaled
// L2-NOT: warpspec.mma.block_scaled
// L2: warpspec.consumer.release %{{.*}} count %[[N]]
// L2: warpspec.peer.ptr
// Warpgroup 1: skips the block's stages when it has none of its units, else
// computes units 2 and 3 (four present) or unit 2.
// L2: warpspec.role "math1"
// L2: %[[E1:.*]] = warpspec.global.load
// L2: %[[S1:.*]] = arith.shrui %[[E1]], %c30_i32 : i32
// L2: %[[U1:.*]] = arith.addi %[[S1]], %c1_i32 : i32
// L2: %[[SKIP1:.*]] = arith.cmpi ule, %[[U1]], %{{.*}} : i32
// L2: %[[TWO1:.*]] = arith.cmpi uge, %[[U1]], %c4_i32 : i32
// L2: scf.if %[[SKIP1]] {
// L2-NEXT: warpspec.consumer.skip %{{.*}}, 2 :
// L2-NEXT: warpspec.barrier.sync %[[HB]]
// L2-NEXT: } else {
// L2-NEXT: scf.if %[[TWO1]] {
// L2: warpspec.mma.block_scaled
// L2-NEXT: warpspec.mma.block_scaled

// The table: one entry per 64-row unit at most (P / 64 = 18).
// REGION: [('pool_block_row', [18]), ('pool_expert_block', [18]), ('pool_info', [4])]
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXASV4-NOT: {{[1-9][0-9]*}} bytes spill
// PRO: [False, True]
// NONE: l2-expert-blocks=true applies to no variant of this plan: it is built for the split schedule's L2 GEMM at BLOCK_M 128 with half blocks (expert-align 64) on sm_90a, without k-split, with requant-block 128
// VALUE: unknown l2-expert-blocks="yes"; expected true, false or empty (heuristic)
// RULE: l2-expert-blocks is built for the split schedule's L2 GEMM
// BN: l2-expert-blocks needs L2 BLOCK_N 128 (a 256-row tile of 256 columns does not fit a warpgroup's registers), got 256
