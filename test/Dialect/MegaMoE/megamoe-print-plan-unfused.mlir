// The unfused schedule's plan: one grouped-GEMM tile choice and the worst-case pool.
// RUN: megamoe-opt %s --megamoe-plan="schedule=unfused" --megamoe-print-plan -o /dev/null | FileCheck %s
// RUN: megamoe-opt %s --megamoe-plan="schedule=unfused block-m=128" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=BM128
// RUN: megamoe-opt %s --megamoe-plan="schedule=unfused" --megamoe-print-plan=format=json -o /dev/null | %python -c "import json,sys; d=json.loads(sys.stdin.read().split('\n}\n')[0] + '\n}'); print(d['plan']['schedule'], d['plan']['pool_tokens'], [r['name'] for r in d['buffer_layout']['regions']])" | FileCheck %s --check-prefix=JSON

// 6 expected rows per expert: 64-row tiles pad less.
megamoe.layer @v4_flash_ep2 config = #megamoe.config<hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 2, max_tokens = 128>
// Up to 8192 tokens: 64-row tiles for decode-sized calls, 128-row ones above.
megamoe.layer @v4_flash_ep2_prefill config = #megamoe.config<hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 2, max_tokens = 8192>

// CHECK: // layer @v4_flash_ep2
// CHECK-NEXT: layer: H=4096 I=2048 E=256 K=6 R=2 T=128 chip=sm_90a requant=128
// CHECK-NEXT: plan: schedule=unfused sms=132 kernels: route, layout, pull, L1 grouped GEMM, activation, L2 grouped GEMM + combine scatter, combine barrier, combine reduce
// 2 x 128 x 6 slots + 128 x 63 padding rows.
// CHECK-NEXT: pool: 9600 rows (worst case, never wraps)
// CHECK-NEXT: variant tokens 0..128: grouped GEMMs BLOCK_M=64 L1 BLOCK_N=256 L2 BLOCK_N=256 BLOCK_K=128 stages=as many as fit math=single registers=40/232
// No l2_out region (the L2 GEMM scatters into combine).
// CHECK-NEXT: symmetric buffer: 225,897,984 B (215.43 MiB), workspace 1,280 B (0.00 MiB)
// CHECK: // layer @v4_flash_ep2_prefill
// 2 x 8192 x 6 slots + 128 x 127 padding rows.
// CHECK: pool: 114560 rows (worst case, never wraps)
// Up to 64 x 256 / (2 x 6) = 1365 tokens an expert expects <= 64 rows.
// CHECK-NEXT: variant tokens 0..1365: grouped GEMMs BLOCK_M=64 {{.*}} math=single
// CHECK-NEXT: variant tokens 1366..8192: grouped GEMMs BLOCK_M=128 {{.*}} math=cooperative-m

// BM128: pool: 17792 rows (worst case, never wraps)
// BM128-NEXT: variant tokens 0..128: grouped GEMMs BLOCK_M=128 L1 BLOCK_N=256 L2 BLOCK_N=256 BLOCK_K=128 stages=as many as fit math=cooperative-m registers=40/232
// BM128-NEXT: symmetric buffer: 412,151,296 B (393.06 MiB), workspace 1,280 B (0.00 MiB)

// JSON: unfused 9600 ['barriers', 'send_count', 'errors', 'x', 'x_sf', 'topk_idx', 'topk_weights', 'recv_count', 'src_token_index', 'pool_row_start', 'pool_block_expert', 'pool_info', 'l1_pool', 'l1_pool_sf', 'l1_pool_weight', 'pool_source', 'l1_out', 'l2_pool', 'l2_pool_sf', 'combine']
