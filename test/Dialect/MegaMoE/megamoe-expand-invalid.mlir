// megamoe-expand refuses what it cannot build, and says why.
// RUN: not megamoe-opt %s --megamoe-expand 2>&1 | FileCheck %s --check-prefix=NOPLAN
// RUN: not megamoe-opt %s --megamoe-plan --megamoe-expand 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: not megamoe-opt %s --megamoe-plan="schedule=unfused" --megamoe-expand="only=moe_route,moe_gather" 2>&1 | FileCheck %s --check-prefix=ONLY
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64 requant-block=64 chip=sm_100a" --megamoe-plan="schedule=fused-gemm" 2>&1 | FileCheck %s --check-prefix=REQUANT
// RUN: not megamoe-opt %s --megamoe-plan="schedule=unfused pool-tokens=1024" 2>&1 | FileCheck %s --check-prefix=POOL
// RUN: not megamoe-opt %s --megamoe-plan="schedule=unfused pool-tokens=256" 2>&1 | FileCheck %s --check-prefix=RING
// RUN: not megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-expand="only=moe_activation" 2>&1 | FileCheck %s --check-prefix=SPLIT-ONLY
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64 requant-block=64 chip=sm_100a" --megamoe-plan="schedule=split" 2>&1 | FileCheck %s --check-prefix=SPLIT-REQUANT
// RUN: not megamoe-opt --megamoe-plan="schedule=unfused" --megamoe-expand 2>&1 | FileCheck %s --check-prefix=EMPTY

megamoe.layer @small config = #megamoe.config<hidden = 512, intermediate = 256, experts = 8, topk = 2, ranks = 2, max_tokens = 64>

// NOPLAN: error: megamoe-expand: layer @small has no plan; run megamoe-plan first
// FUSED: error: megamoe-expand: the fused schedule is not built yet; the unfused, split and fused-gemm schedules are
// ONLY: error: megamoe-expand: only= names 'moe_gather', which is not a kernel of the unfused schedule (moe_route, moe_layout, moe_pull, moe_l1_gemm, moe_activation, moe_l2_gemm, moe_combine_barrier, moe_combine_reduce)
// REQUANT: note: per-64 requantization is built for sm_90a only (the sm_100a block-scaled MMA
// POOL: note: pool tokens (1024) must be a positive multiple of 128 and at most the worst case (512)
// RING: note: a pool of 256 rows, below the worst case of 512, is a ring; variant BLOCK_M 64 (tokens/rank 0..64) cannot run it: it runs the unfused schedule (a ring needs the fused-gemm schedule with l1-pull: no ring flow control between kernels)
// SPLIT-ONLY: error: megamoe-expand: only= names 'moe_activation', which is not a kernel of the split schedule (moe_route, moe_layout, moe_pull, moe_l1_swiglu, moe_l2_gemm, moe_combine_barrier, moe_combine_reduce)
// SPLIT-REQUANT: note: per-64 requantization is built for sm_90a only (the sm_100a block-scaled MMA
// EMPTY: error: megamoe-expand: the module holds no megamoe.layer
