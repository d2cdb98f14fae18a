// The split schedule's plan (docs/SplitSchedule.md): the unfused schedule's
// variants and worst-case pool; a variant's L1 + activation as one kernel
// where splitFusesActivation says so (BLOCK_M 64, or fast-math), and a
// buffer without h (l1_out) when every variant does. The BLOCK_M 128 variant
// pads each expert to 64 rows (half blocks: pool_block_row); from 112
// expected rows per expert (sharedWeightsMinTokens: 4779 tokens) a variant
// of its own runs its L1 kernel in clusters of 2 and its L2 GEMM in expert
// blocks (pool_expert_block; stageL1Cluster, stageL2ExpertBlocks).
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-print-plan -o /dev/null | FileCheck %s
// schedule=auto plans the BLOCK_M 64 variant with fused-gemm (its own
// schedule) and the 128 one with split (the plan's); the buffer then also
// holds the fused GEMM kernel's l2_arrivals and l2_waits.
// RUN: megamoe-opt %s --megamoe-plan="schedule=auto" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=AUTO
// V4-Pro (H 7168): fused-gemm for the BLOCK_M 64 variant, split for the
// BLOCK_M 128 one with shared weights (from 7168 tokens; with l1-cluster
// and l2-expert-blocks 0.847 of split's time at 8192 tokens, where
// fused-gemm's wave order was 0.951: fastestBuiltSchedule), and below it
// split too (a fused-gemm BLOCK_M 128 variant beside the shared one gave a
// wrong y on one H100: not planned).
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a fast-math=true" --megamoe-plan="schedule=auto" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=AUTO-PRO
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=auto" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=AUTO-PRO-EXACT
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-print-plan=format=json -o /dev/null | %python -c "import json,sys; docs=sys.stdin.read().split('\n}\n'); [print(d['plan']['schedule'], d['plan']['pool_tokens'], [r['name'] for r in d['buffer_layout']['regions']]) for d in (json.loads(t + '\n}') for t in docs[:2])]" | FileCheck %s --check-prefix=JSON

megamoe.layer @v4_flash_ep1 config = #megamoe.config<hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 1, max_tokens = 8192>
megamoe.layer @v4_flash_ep1_fm config = #megamoe.config<hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 1, max_tokens = 8192, fast_math = true>

// Without fast-math the BLOCK_M 128 variant keeps moe_l1_gemm +
// moe_activation, so h stays in the buffer.
// CHECK: // layer @v4_flash_ep1
// CHECK-NEXT: layer: H=4096 I=2048 E=256 K=6 R=1 T=8192 chip=sm_90a requant=128
// CHECK-NEXT: plan: schedule=split sms=132 kernels: route, layout, pull, L1 grouped GEMM + SwiGLU + requant or L1 grouped GEMM, activation (per variant), L2 grouped GEMM + combine scatter, combine barrier, combine reduce
// CHECK-NEXT: pool: 81664 rows (worst case, never wraps)
// CHECK-NEXT: variant tokens 0..2730: grouped GEMMs BLOCK_M=64 {{.*}} L1+SwiGLU epilogue
// CHECK-NEXT: variant tokens 2731..4778: grouped GEMMs BLOCK_M=128 (experts padded to 64: half blocks) {{.*}} L1 then activation (splitFusesActivation){{$}}
// CHECK-NEXT: variant tokens 4779..8192: grouped GEMMs BLOCK_M=128 (experts padded to 64: half blocks) {{.*}} L1 then activation (splitFusesActivation) l2-expert-blocks (the L2 GEMM in 256-row expert blocks) l1-cluster (the L1 kernel in clusters of 2, an expert's m-blocks sharing its weight tiles)
// CHECK-NEXT: symmetric buffer: 2,344,910,208 B (2236.28 MiB)
// With fast-math both variants fuse: 960.27 MiB, h was 81664 x 4096 x 4 B.
// CHECK: // layer @v4_flash_ep1_fm
// CHECK: plan: schedule=split sms=132 kernels: route, layout, pull, L1 grouped GEMM + SwiGLU + requant, L2 grouped GEMM
// CHECK-NEXT: pool: 81664 rows (worst case, never wraps)
// CHECK-NEXT: variant tokens 0..2730: grouped GEMMs BLOCK_M=64 {{.*}} L1+SwiGLU epilogue
// CHECK-NEXT: variant tokens 2731..4778: grouped GEMMs BLOCK_M=128 {{.*}} L1+SwiGLU epilogue
// CHECK-NEXT: variant tokens 4779..8192: grouped GEMMs BLOCK_M=128 {{.*}} L1+SwiGLU epilogue l2-expert-blocks
// CHECK-NEXT: symmetric buffer: 1,006,927,232 B (960.28 MiB)

// JSON: split 81664 ['barriers', 'send_count', 'errors', 'x', 'x_sf', 'topk_idx', 'topk_weights', 'recv_count', 'src_token_index', 'pool_row_start', 'pool_block_expert', 'pool_block_row', 'pool_expert_block', 'pool_info', 'l1_pool', 'l1_pool_sf', 'l1_pool_weight', 'pool_source', 'l1_out', 'l2_pool', 'l2_pool_sf', 'combine']
// JSON: split 81664 ['barriers', 'send_count', 'errors', 'x', 'x_sf', 'topk_idx', 'topk_weights', 'recv_count', 'src_token_index', 'pool_row_start', 'pool_block_expert', 'pool_block_row', 'pool_expert_block', 'pool_info', 'l1_pool', 'l1_pool_sf', 'l1_pool_weight', 'pool_source', 'l2_pool', 'l2_pool_sf', 'combine']

// AUTO: // layer @v4_flash_ep1_fm
// AUTO: plan: schedule=split sms=132
// AUTO-NEXT: pool: 81664 rows (worst case, never wraps)
// AUTO-NEXT: variant tokens 0..2730 schedule=fused-gemm (its own): grouped GEMMs BLOCK_M=64 {{.*}} wave=4 lag=1
// AUTO-NEXT: variant tokens 2731..4778: grouped GEMMs BLOCK_M=128 {{.*}} L1+SwiGLU epilogue
// AUTO-NEXT: variant tokens 4779..8192: grouped GEMMs BLOCK_M=128 {{.*}} L1+SwiGLU epilogue l2-expert-blocks
// AUTO-NEXT: symmetric buffer: 1,006,947,712 B (960.30 MiB)

// AUTO-PRO: plan: schedule=split sms=132
// AUTO-PRO: variant tokens 0..4096 schedule=fused-gemm (its own): grouped GEMMs BLOCK_M=64 {{.*}} wave=4 lag=1
// AUTO-PRO-NEXT: variant tokens 4097..7167: grouped GEMMs BLOCK_M=128 {{.*}} l1-pair-stages (an L1 pair is one BLOCK_N 256 mainloop pass){{$}}
// AUTO-PRO-NEXT: variant tokens 7168..8192: grouped GEMMs BLOCK_M=128 {{.*}} l1-pair-stages {{.*}} l2-expert-blocks {{.*}} l1-cluster
// AUTO-PRO-EXACT: plan: schedule=split sms=132
// AUTO-PRO-EXACT: variant tokens 0..4096 schedule=fused-gemm (its own): grouped GEMMs BLOCK_M=64
// AUTO-PRO-EXACT-NEXT: variant tokens 4097..7167: grouped GEMMs BLOCK_M=128 (experts padded to 64: half blocks)
// AUTO-PRO-EXACT-NEXT: variant tokens 7168..8192: grouped GEMMs BLOCK_M=128 (experts padded to 64: half blocks)
