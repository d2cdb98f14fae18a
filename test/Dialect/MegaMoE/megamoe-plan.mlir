// RUN: megamoe-opt %s --megamoe-plan | FileCheck %s
// Planned IR verifies and round-trips.
// RUN: megamoe-opt %s --megamoe-plan | megamoe-opt --verify-each | FileCheck %s

// Design-doc decode shape (seeds/004 section 20): E/R = 6 experts per rank,
// 128 tokens/rank = 128 tokens/expert. Per-128 requantization: every variant
// is cooperative-n with 256-wide tiles (two m64n128 warpgroups).
// CHECK-LABEL: megamoe.layer @decode
// CHECK-SAME: plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 6528,
// CHECK-SAME: #megamoe.variant<min_tokens = 0, max_tokens = 16, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 6, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 210816>
// CHECK-SAME: #megamoe.variant<min_tokens = 17, max_tokens = 128, block_m = 64, expert_align = 64, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 4, experts_per_wave = 6, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 207104>]>
megamoe.layer @decode config = <hidden = 7168, intermediate = 2048, experts = 48, topk = 6, ranks = 8, max_tokens = 128>

// Design-doc prefill: the pool is a ring of 2 x 132 blocks of 64 rows.
// CHECK-LABEL: megamoe.layer @prefill
// CHECK-SAME: pool_tokens = 16896
// CHECK-SAME: max_tokens = 16, block_m = 32
// CHECK-SAME: min_tokens = 17, max_tokens = 8192, block_m = 64, {{[^#]*}} stages = 4, experts_per_wave = 1,
megamoe.layer @prefill config = <hidden = 7168, intermediate = 3072, experts = 48, topk = 6, ranks = 8, max_tokens = 8192>

// V4-Flash EP8 at 8 tokens/rank: 1.5 tokens/expert, one BLOCK_M 32 variant,
// 24 of the 32 local experts per wave; the worst-case pool is small.
// CHECK-LABEL: megamoe.layer @v4_flash_8
// CHECK-SAME: pool_tokens = 1408, variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, {{[^#]*}} stages = 5, experts_per_wave = 24, {{[^#]*}}>]>
megamoe.layer @v4_flash_8 config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>

// CHECK-LABEL: megamoe.layer @v4_flash_512
// CHECK-SAME: max_tokens = 88, block_m = 32
// CHECK-SAME: min_tokens = 89, max_tokens = 512, block_m = 64, {{[^#]*}} experts_per_wave = 12,
megamoe.layer @v4_flash_512 config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 512>

// CHECK-LABEL: megamoe.layer @v4_pro
// CHECK-SAME: max_tokens = 132, block_m = 32
// CHECK-SAME: min_tokens = 133, max_tokens = 8192, block_m = 64, {{[^#]*}} smem_bytes = 208128>]>
megamoe.layer @v4_pro config = <hidden = 7168, intermediate = 3072, experts = 384, topk = 6, ranks = 8, max_tokens = 8192>

// MiMo-V2.5 (top-8) reaches BLOCK_M 64 sooner: 16.5 * 256 / 64 = 66 tokens.
// CHECK-LABEL: megamoe.layer @mimo
// CHECK-SAME: max_tokens = 66, block_m = 32
// CHECK-SAME: min_tokens = 67, max_tokens = 8192, block_m = 64
megamoe.layer @mimo config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 8, ranks = 8, max_tokens = 8192>

// Per-64 requantization: the design doc's three buckets; BLOCK_M 128 splits M
// across both warpgroups, 32 and 64 use one warpgroup.
// CHECK-LABEL: megamoe.layer @v4_flash_ep2_per64
// CHECK-SAME: requant_block = 64, pool_tokens = 33792
// CHECK-SAME: max_tokens = 352, block_m = 32, expert_align = 32, l1_block_n = 128, l2_block_n = 128, block_k = 128, stages = 10, {{[^#]*}} math_mode = "single"
// CHECK-SAME: max_tokens = 1376, block_m = 64, {{[^#]*}} math_mode = "single"
// CHECK-SAME: min_tokens = 1377, max_tokens = 8192, block_m = 128, expert_align = 128, l1_block_n = 128, l2_block_n = 128, block_k = 128, stages = 5, {{[^#]*}} math_mode = "cooperative-m"
megamoe.layer @v4_flash_ep2_per64 config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 2, max_tokens = 8192, requant_block = 64>

// Re-planning replaces an existing plan.
// CHECK-LABEL: megamoe.layer @replanned
// CHECK-SAME: num_sms = 132
megamoe.layer @replanned config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 64, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 211840>]>
