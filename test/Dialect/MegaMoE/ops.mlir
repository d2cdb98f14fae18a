// RUN: megamoe-opt %s | FileCheck %s
// RUN: megamoe-opt %s | megamoe-opt | FileCheck %s
// RUN: megamoe-opt %s -mlir-print-op-generic | megamoe-opt | FileCheck %s

// Defaults (chip sm_90a, e4m3 x e4m3 -> bf16, 128-wide scale blocks,
// requantization per 128, swiglu, no clamp, no fast math) are not printed.
// CHECK-LABEL: megamoe.layer @v4_flash
// CHECK-SAME: config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8192>
// CHECK-NOT: plan
megamoe.layer @v4_flash config = <hidden = 4096, intermediate = 2048,
    experts = 256, topk = 6, ranks = 8, max_tokens = 8192>

// Every parameter given.
// CHECK-LABEL: megamoe.layer @everything
// CHECK-SAME: chip = "sm_100a"
// CHECK-SAME: requant_block = 64
// CHECK-SAME: clamp = 1.000000e+01 : f64
// CHECK-SAME: fast_math = true
megamoe.layer @everything config = <hidden = 7168, intermediate = 3072,
    experts = 384, topk = 6, ranks = 2, max_tokens = 1, chip = "sm_100a",
    act_dtype = "e4m3", weight_dtype = "e4m3", out_dtype = "bf16",
    input_scale_block = 128, weight_scale_block = 128, requant_block = 64,
    activation = "swiglu", clamp = 10.0, fast_math = true>

// The edge cases the rules allow: K = E, T = 1, one expert per rank.
// CHECK-LABEL: megamoe.layer @topk_all
megamoe.layer @topk_all config = <hidden = 128, intermediate = 128,
    experts = 4, topk = 4, ranks = 4, max_tokens = 1>

// A planned layer (as megamoe-plan writes it) round-trips.
// CHECK-LABEL: megamoe.layer @planned
// CHECK-SAME: plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
// CHECK-SAME: variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 211840>]>
megamoe.layer @planned config = <hidden = 4096, intermediate = 2048,
    experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384,
    dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2,
    entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32,
      expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5,
      experts_per_wave = 24, math_mode = "cooperative-n",
      producer_registers = 48, math_registers = 224, idle_registers = 24,
      smem_bytes = 211840>]>
