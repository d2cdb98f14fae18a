// megamoe-plan's l1-pull (config::Variant::l1Pull): each split variant's L1
// kernel fills its own pool rows, no moe_pull (docs/SplitSchedule.md, "The
// pull in the L1 kernel"). Off by default (not measured yet, config::
// stageL1Pull); l1-pull=true sets every variant. With fast-math both of
// V4-Flash's split variants fuse SwiGLU into the L1 kernel, which the plan
// rule l1-pull asks for (megamoe-plan-l1-pull-invalid.mlir).
// RUN: megamoe-opt %s --megamoe-plan="schedule=split l1-pull=true" | FileCheck %s
// RUN: megamoe-opt %s --megamoe-plan="schedule=split l1-pull=true" | megamoe-opt | FileCheck %s
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" | FileCheck %s --check-prefix=OFF
// RUN: megamoe-opt %s --megamoe-plan="schedule=split l1-pull=false" | FileCheck %s --check-prefix=OFF
// RUN: megamoe-opt %s --megamoe-plan="schedule=split l1-pull=true" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=TEXT
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-print-plan -o /dev/null | FileCheck %s --check-prefix=TEXT-OFF
// RUN: megamoe-opt %s --megamoe-plan="schedule=split l1-pull=true" --megamoe-print-plan=format=json -o /dev/null | %python -c "import json,sys; d=json.load(sys.stdin); l=d['buffer_layout']; print([v['l1_pull'] for v in d['plan']['variants']], [(r['name'], r['shape'], r['offset'] < l['workspace_bytes']) for r in l['regions'] if r['name'].startswith('pull_')])" | FileCheck %s --check-prefix=JSON
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-print-plan=format=json -o /dev/null | %python -c "import json,sys; d=json.load(sys.stdin); print([v['l1_pull'] for v in d['plan']['variants']], [r['name'] for r in d['buffer_layout']['regions'] if r['name'].startswith('pull_')])" | FileCheck %s --check-prefix=JSON-OFF

// The attribute spells l1_pull last, and only when true.
// CHECK-LABEL: megamoe.layer @v4_flash_ep1_fm
// CHECK-SAME: schedule = "split"
// CHECK-SAME: #megamoe.variant<min_tokens = 0, max_tokens = 2730, block_m = 64, {{[^#]*}} smem_bytes = 0, l1_pull = true>
// CHECK-SAME: #megamoe.variant<min_tokens = 2731, max_tokens = 4778, block_m = 128, {{[^#]*}} smem_bytes = 0, l1_pull = true>
// CHECK-SAME: #megamoe.variant<min_tokens = 4779, max_tokens = 8192, block_m = 128, {{[^#]*}} smem_bytes = 0, l1_pull = true, l2_expert_blocks = true>]>
// OFF-LABEL: megamoe.layer @v4_flash_ep1_fm
// OFF-NOT: l1_pull
// OFF: smem_bytes = 0, l2_expert_blocks = true, l1_cluster = true>]>

// No pull kernel when every variant pulls in its L1 kernel.
// TEXT: plan: schedule=split sms=132 kernels: route, layout, L1 grouped GEMM + SwiGLU + requant,
// TEXT: variant tokens 0..2730: grouped GEMMs BLOCK_M=64 {{.*}} L1+SwiGLU epilogue l1-pull (the L1 kernel pulls its pool rows)
// TEXT-NEXT: variant tokens 2731..4778: grouped GEMMs BLOCK_M=128 {{.*}} L1+SwiGLU epilogue l1-pull (the L1 kernel pulls its pool rows)
// TEXT-NEXT: variant tokens 4779..8192: grouped GEMMs BLOCK_M=128 {{.*}} L1+SwiGLU epilogue l1-pull (the L1 kernel pulls its pool rows) l2-expert-blocks
// TEXT-OFF: kernels: route, layout, pull, L1
// TEXT-OFF-NOT: l1-pull

// The pull's arrivals and waits: u32 per 64-row unit of the 81664-row pool,
// in the workspace (zero between calls).
// JSON: [True, True, True] [('pull_arrivals', [1276], True), ('pull_waits', [1276], True)]
// JSON-OFF: [False, False, False] []
megamoe.layer @v4_flash_ep1_fm config = #megamoe.config<hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 1, max_tokens = 8192, fast_math = true>
