// Every plan field can be overridden; an override applies to every variant.
// RUN: megamoe-opt %s --megamoe-plan="stages=3 num-sms=130 schedule=fused experts-per-wave=2 pool-tokens=4096 producer-registers=40 math-registers=232" | FileCheck %s --check-prefix=ALL
// RUN: megamoe-opt %s --megamoe-plan="block-m=64" | FileCheck %s --check-prefix=BM64
// RUN: megamoe-opt %s --megamoe-plan="block-k=256 l2-block-n=128" | FileCheck %s --check-prefix=TILES
// RUN: megamoe-opt %s --megamoe-plan="pool-tokens=0" | FileCheck %s --check-prefix=FULL
// RUN: megamoe-opt %s --megamoe-plan="math-mode=cooperative-n block-m=64 l1-block-n=256 l2-block-n=256" | FileCheck %s --check-prefix=MODE

// ALL-LABEL: megamoe.layer @v4_flash
// ALL-SAME: num_sms = 130, schedule = "fused",
// ALL-SAME: pool_tokens = 4096,
// ALL-SAME: block_m = 32, {{[^#]*}} stages = 3, experts_per_wave = 2, math_mode = "cooperative-n", producer_registers = 40, math_registers = 232,
// ALL-SAME: block_m = 64, {{[^#]*}} stages = 3, experts_per_wave = 2, math_mode = "cooperative-n", producer_registers = 40, math_registers = 232,

// A fixed BLOCK_M serves every token count with one variant.
// BM64-LABEL: megamoe.layer @v4_flash
// BM64-SAME: variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8192, block_m = 64, {{[^#]*}}>]>

// BLOCK_K 256 doubles the operand bytes of a stage: 2 stages fit.
// TILES-LABEL: megamoe.layer @v4_flash
// TILES-SAME: block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 128, block_k = 256, stages = 2,
// TILES-SAME: block_m = 64, expert_align = 64, l1_block_n = 256, l2_block_n = 128, block_k = 256, stages = 2,

// pool-tokens=0: the worst case, 8 ranks x 8192 tokens x 6 slots + padding.
// FULL-LABEL: megamoe.layer @v4_flash
// FULL-SAME: pool_tokens = 395264,
megamoe.layer @v4_flash config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8192>

// ALL-LABEL: megamoe.layer @per64
// ALL-SAME: num_sms = 130
// ALL-SAME: block_m = 128, {{[^#]*}} stages = 3, experts_per_wave = 2, math_mode = "cooperative-m", producer_registers = 40, math_registers = 232,

// Per-64 requantization defaults to single / cooperative-m; forcing
// cooperative-n gives the 64x256 tile of the per-128 recipe.
// MODE-LABEL: megamoe.layer @per64
// MODE-SAME: variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8192, block_m = 64, expert_align = 64, l1_block_n = 256, l2_block_n = 256, {{[^#]*}} math_mode = "cooperative-n"
megamoe.layer @per64 config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 2, max_tokens = 8192, requant_block = 64>
