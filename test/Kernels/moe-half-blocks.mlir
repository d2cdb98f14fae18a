// Half blocks (config::Variant::expertAlign 64 with BLOCK_M 128, the split
// schedule's default on sm_90a; docs/UnfusedSchedule.md "Half blocks"): each
// expert's pool segment is padded to 64 rows, and its last m-block is a
// 64-row half block when the padded rows leave 64.
// Layer: E = 8, L = 8, R = 1, T = 64, K = 2, P = 1152, BLOCK_M 128.
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l1-cluster=false l2-expert-blocks=false" --megamoe-expand="only=moe_layout" | FileCheck %s --check-prefix=LAYOUT
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128" --megamoe-expand="only=moe_pull" | FileCheck %s --check-prefix=PULL
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 l2-expert-blocks=false" --megamoe-expand="only=moe_l2_gemm" | FileCheck %s --check-prefix=L2
// RUN: rm -rf %t && mkdir -p %t/a %t/b
// Every kernel of the split layer with half blocks, with and without
// fast-math (moe_l1_swiglu or moe_l1_gemm), compiles without spills.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split block-m=128" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/b" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWARN --allow-empty
// RUN: %ptxas -arch=sm_90a -v %t/a/layer.ptx -o %t/a/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/b/layer.ptx -o %t/b/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// The plan's rule: 64 only with BLOCK_M 128 in the split schedule (the unfused
// schedule is the reference it is checked against).
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=fused-gemm block-m=128 expert-align=64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RULE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128 expert-align=64" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RULE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split block-m=128 expert-align=32" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RULE32

// LAYOUT-LABEL: warpspec.kernel @moe_layout(
// LAYOUT-SAME: megamoe.bind = "region:pool_block_row", megamoe.name = "pool_block_row"
// Per lane (one expert each here): rows padded to 64, then the m-blocks of
// 128 they make; the lanes' sums of both scanned.
// LAYOUT: arith.addi %{{.*}}, %c63_i32 : i32
// LAYOUT: %[[PAD:.*]] = arith.muli %{{.*}}, %c64_i32 : i32
// LAYOUT: %[[BLOCKS:.*]] = arith.divui %{{.*}}, %c128_i32
// LAYOUT: %[[LANEBLOCKS:.*]] = arith.addi %{{.*}}, %[[BLOCKS]] : i32
// LAYOUT-COUNT-5: gpu.shuffle  up
// LAYOUT-COUNT-5: gpu.shuffle  up
// LAYOUT: %[[BLOCKBASE:.*]] = arith.subi %{{.*}}, %[[LANEBLOCKS]] : i32
// LAYOUT: %[[FIRST:.*]] = arith.addi %[[BLOCKBASE]], %{{.*}} : i32
// pool_block_expert: one entry per 64-row unit (capped at P / 64 = 18).
// LAYOUT: arith.divui %{{.*}}, %c64_i32
// LAYOUT: arith.minui %{{.*}}, %c18_i32 : i32
// Block j of the expert: row start + 128 j, a half block when fewer than
// 128 padded rows are left; written when it lies inside the pool.
// LAYOUT: scf.for %[[J:.*]] = %{{.*}} to %[[BLOCKS]] step %{{.*}} iter_args
// LAYOUT: %[[OFF:.*]] = arith.muli %[[J]], %c128_i32
// LAYOUT: %[[LEFT:.*]] = arith.subi %[[PAD]], %[[OFF]] : i32
// LAYOUT: %[[HALF:.*]] = arith.cmpi ult, %[[LEFT]], %c128_i32
// LAYOUT: arith.select %[[HALF]], %c64_i32{{.*}}, %c128_i32
// LAYOUT: arith.cmpi ule, %{{.*}}, %c1152_i32 : i32
// LAYOUT: arith.constant -2147483648 : i32
// LAYOUT: arith.ori
// LAYOUT: arith.addi %[[FIRST]], %[[J]] : i32
// LAYOUT: warpspec.global.store
// pool_info[0]: the m-blocks inside the pool (not rows / 128): the lanes'
// counts of written blocks, scanned, from lane 31.
// LAYOUT-COUNT-5: gpu.shuffle  up
// LAYOUT: %[[WRITTEN:.*]], %{{.*}} = gpu.shuffle  idx
// LAYOUT: warpspec.global.store %[[WRITTEN]]

// moe_pull finds a row's expert per 64-row unit.
// PULL-LABEL: warpspec.kernel @moe_pull(
// PULL: arith.divui %{{.*}}, %c64_i32 : i32
// PULL: warpspec.global.offset %{{.*}} : !warpspec.global<i32>, i32

// The L2 GEMM: math warpgroup 0 releases a half block's stages twice,
// warpgroup 1 skips them (K / 128 = 2) and scatters nothing; both meet on
// the half barrier after warpgroup 0's mainloop.
// L2-LABEL: warpspec.kernel @moe_l2_gemm(
// L2-SAME: megamoe.bind = "region:pool_block_row", megamoe.name = "block_row"
// L2: %[[HB:.*]] = warpspec.named_barrier 4 roles ["math0", "math1"]
// L2: warpspec.role "math0"
// L2: %[[E0:.*]] = warpspec.global.load
// L2: %[[H0:.*]] = arith.cmpi slt, %[[E0]], %{{.*}} : i32
// L2: %[[N:.*]] = arith.select %[[H0]], %c2_i32, %c1_i32 : i32
// L2: warpspec.consumer.release %{{.*}} count %[[N]]
// L2: scf.if %[[H0]] {
// L2-NEXT: warpspec.barrier.sync %[[HB]]
// L2: warpspec.role "math1"
// L2: %[[E:.*]] = warpspec.global.load
// L2: %[[H:.*]] = arith.cmpi slt, %[[E]], %{{.*}} : i32
// L2: scf.if %[[H]] {
// L2-NEXT: warpspec.consumer.skip %{{.*}}, 2 :
// L2-NEXT: warpspec.barrier.sync %[[HB]]
// L2-NEXT: } else {
// L2: warpspec.mma.block_scaled
// L2: warpspec.peer.ptr

// NOWARN-NOT: spills registers
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// RULE: expert-align (64) must be BLOCK_M, or 64 with BLOCK_M 128 in the split schedule on sm_90a
// RULE32: expert-align (32) must be BLOCK_M, or 64 with BLOCK_M 128
