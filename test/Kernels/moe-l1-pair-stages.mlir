// megamoe-plan l1-pair-stages=true: the split schedule's BLOCK_M 128 L1 +
// SwiGLU kernel runs each tile's pair of 128-column blocks as one BLOCK_N
// 256 mainloop pass (GemmProblem::swigluPairStages): a second B tile per
// stage ("b_tiles1"), one A load per K block, and per K block two MMAs per
// math warpgroup (one per column block, promoted in halves) instead of two
// passes over K of one MMA each. The epilogue is the same SwiGLU pair.
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-pair-stages=true" --megamoe-print-plan | FileCheck %s --check-prefix=PLAN
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-pair-stages=true" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=TWO
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-pair-stages=true" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/layer.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// V4-Pro (the planner's default there) and V4-Flash: no spills either.
// RUN: mkdir -p %t/pro %t/flash
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a clamp=10 fast-math=true" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_l1_swiglu" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/pro" -o /dev/null
// RUN: %python -c "import json; print([v['l1_pair_stages'] for v in json.load(open('%t/pro/layer.json'))['plan']['variants']])" | FileCheck %s --check-prefix=PRO
// RUN: %ptxas -arch=sm_90a -v %t/pro/layer.ptx -o %t/pro/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXASV4
// V4-Flash with pair stages asked for: without l1-cluster (on by default
// where it applies; with both this kernel spills 124 bytes, ptxas, so
// V4-Flash's default, without pair stages, is the measured one).
// RUN: megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a clamp=10 fast-math=true" --megamoe-plan="schedule=split l1-pair-stages=true l1-cluster=false" --megamoe-expand="only=moe_l1_swiglu" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/flash" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/flash/layer.ptx -o %t/flash/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXASV4
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split block-m=128 l1-pair-stages=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFUSE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=unfused block-m=128 l1-pair-stages=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFUSE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=fused l1-pair-stages=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-pair-stages=yes" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="swiglu-pair-stages=true" 2>&1 | FileCheck %s --check-prefix=GG

// PLAN: variant tokens 0..64: {{.*}}BLOCK_M=128{{.*}} l1-pair-stages (an L1 pair is one BLOCK_N 256 mainloop pass)
// PLAN: l1_pair_stages = true

// CHECK: warpspec.kernel @moe_l1_swiglu
// CHECK: warpspec.smem.alloc "b_tiles" : !warpspec.smem<128x128xf8E4M3FN
// CHECK-NEXT: warpspec.smem.alloc "b_tiles1" : !warpspec.smem<128x128xf8E4M3FN
// The producer: per K block A, its scales and the pair's two B boxes.
// CHECK: warpspec.role "tma"
// CHECK: warpspec.tile_loop
// CHECK-COUNT-1: warpspec.tma.load %arg0
// CHECK: warpspec.tma.load %arg2
// CHECK: warpspec.tma.load %arg1[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}]
// CHECK: warpspec.tma.load %arg1[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}]
// CHECK-NOT: warpspec.tma.load %arg0
// Each math warpgroup: both column blocks of each stage (b_tiles, b_tiles1).
// CHECK: warpspec.role "math0"
// CHECK: warpspec.mma.block_scaled %{{.*}}, %[[B0:[0-9]+]] stage
// CHECK-NEXT: warpspec.mma.block_scaled %{{.*}}, %[[B1:[0-9]+]] stage
// CHECK: warpspec.role "math1"

// Without the option: the pair's two passes, each with its own A loads,
// one B tile per stage.
// TWO-NOT: "b_tiles1"
// TWO: warpspec.role "tma"
// TWO-COUNT-2: warpspec.tma.load %arg0
// TWO: warpspec.role "math0"

// No spills: the router weights are read after the pass (kept through it
// beside both blocks' totals, the V4 kernels spilled 112 bytes).
// PTXAS: Compiling entry function 'moe_l1_swiglu' for 'sm_90a'
// PTXAS-NEXT: Function properties for moe_l1_swiglu
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PRO: [False, True, True]
// PTXASV4: Compiling entry function 'moe_l1_swiglu_bm128{{(_shared)?}}' for 'sm_90a'
// PTXASV4-NEXT: Function properties for moe_l1_swiglu_bm128
// PTXASV4-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// NOFUSE: l1-pair-stages=true applies to no variant of this plan
// FUSED: l1-pair-stages is built for the split schedule's L1 + SwiGLU kernel at BLOCK_M 128 and L1 BLOCK_N 128 on sm_90a, without k-split (where SwiGLU is fused: BLOCK_M 128 needs fast-math); this variant is fused,
// VALUE: megamoe-plan: unknown l1-pair-stages="yes"; expected true, false or empty (heuristic)
// GG: swiglu-pair-stages needs swiglu without swiglu-arrivals
module {
}
