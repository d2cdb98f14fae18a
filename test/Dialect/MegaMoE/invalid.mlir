// RUN: megamoe-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{hidden (H = 4000) must be a positive multiple of 128, the scale-block size}}
megamoe.layer @l config = <hidden = 4000, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>

// -----

// expected-error @+1 {{intermediate (I = 2000) must be a positive multiple of 128}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2000, experts = 256, topk = 6, ranks = 8, max_tokens = 8>

// -----

// expected-error @+1 {{experts (E = 256) must be divisible by ranks (R = 3) so every rank holds E/R experts}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 3, max_tokens = 8>

// -----

// expected-error @+1 {{top-k (K = 9) must satisfy 1 <= K <= experts (E = 8)}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 8, topk = 9, ranks = 8, max_tokens = 8>

// -----

// expected-error @+1 {{top-k (K = 0) must satisfy 1 <= K <= experts (E = 256)}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 0, ranks = 8, max_tokens = 8>

// -----

// expected-error @+1 {{max tokens per rank (T = 0) must be at least 1}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 0>

// -----

// expected-error @+1 {{ranks (R = 80) must be between 1 and 72 (one NVLink domain)}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 320, topk = 6, ranks = 80, max_tokens = 8>

// -----

// expected-error @+1 {{unsupported chip "sm_80"; expected "sm_90a" or "sm_100a"}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8, chip = "sm_80">

// -----

// expected-error @+1 {{recipe: the L1-output requantization block (32) must be 128 or 64 channels}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8, requant_block = 32>

// -----

// expected-error @+1 {{recipe: activations (bf16) and weights (e4m3) must be e4m3; only FP8 x FP8 is supported}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8, act_dtype = "bf16">

// -----

// expected-error @+1 {{unknown weight dtype "fp4"}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8, weight_dtype = "fp4">

// -----

// expected-error @+1 {{unsupported activation "gelu"; expected "swiglu"}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8, activation = "gelu">

// -----

// expected-error @+1 {{activation clamp (-1) must be a finite positive number}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8, clamp = -1.0>

// -----

// A plan whose stages do not fit shared memory.
// expected-error @+1 {{'megamoe.layer' op variant BLOCK_M 32 (tokens/rank 0..8): 9 stages need 359936 B of shared memory (fixed 26624 + 9 x 37008 per stage + barriers); the limit is 232448 B (at most 5 stages fit)}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 9, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 359936>]>

// -----

// A plan whose registers do not fit an SM.
// expected-error @+1 {{'megamoe.layer' op variant BLOCK_M 32 (tokens/rank 0..8): registers 128 x (48 + 2 x 256) = 71680 exceed the 65536 of an SM}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 256, idle_registers = 24, smem_bytes = 211840>]>

// -----

// Variants must cover 0..T.
// expected-error @+1 {{'megamoe.layer' op the variants must cover 0..8 tokens per rank; they end at 4}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 4, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 211840>]>

// -----

// The plan's requantization must be the recipe's.
// expected-error @+1 {{'megamoe.layer' op the plan requantizes per 64 channels but the recipe says 128}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 64, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 211840>]>

// -----

// expected-error @+2 {{unknown schedule "pipelined"; expected "fused", "split", "unfused" or "fused-gemm"}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "pipelined", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408, variants = []>

// -----

// A variant's own schedule must be a schedule's name.
// expected-error @+4 {{unknown variant schedule "pipelined"; expected "unfused", "split" or "fused-gemm" (or none: the plan's)}}
// expected-error @+3 {{failed to parse MegaMoE_PlanAttr parameter 'variants'}}
megamoe.layer @l config = <hidden = 512, intermediate = 256, experts = 8, topk = 2, ranks = 1, max_tokens = 1024, clamp = 7.000000e+00 : f64>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "split", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 3072,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 256, block_m = 64, expert_align = 64, l1_block_n = 128, l2_block_n = 128, block_k = 128, stages = 0, experts_per_wave = 8, math_mode = "single", producer_registers = 40, math_registers = 232, idle_registers = 0, smem_bytes = 0, wave_m_blocks = 4, schedule = "pipelined">, #megamoe.variant<min_tokens = 257, max_tokens = 1024, block_m = 128, expert_align = 64, l1_block_n = 128, l2_block_n = 256, block_k = 128, stages = 0, experts_per_wave = 8, math_mode = "cooperative-m", producer_registers = 40, math_registers = 232, idle_registers = 0, smem_bytes = 0>]>

// -----

// A variant may run its own schedule only among the stage-kernel schedules.
// expected-error @+1 {{'megamoe.layer' op variant BLOCK_M 64 (tokens/rank 0..256): a schedule of its own (fused) needs the plan's and its own to be stage-kernel schedules (unfused, split or fused-gemm); the plan's is split}}
megamoe.layer @l config = <hidden = 512, intermediate = 256, experts = 8, topk = 2, ranks = 1, max_tokens = 1024, clamp = 7.000000e+00 : f64>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "split", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 3072,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 256, block_m = 64, expert_align = 64, l1_block_n = 128, l2_block_n = 128, block_k = 128, stages = 0, experts_per_wave = 8, math_mode = "single", producer_registers = 40, math_registers = 232, idle_registers = 0, smem_bytes = 0, wave_m_blocks = 4, schedule = "fused">, #megamoe.variant<min_tokens = 257, max_tokens = 1024, block_m = 128, expert_align = 64, l1_block_n = 128, l2_block_n = 256, block_k = 128, stages = 0, experts_per_wave = 8, math_mode = "cooperative-m", producer_registers = 40, math_registers = 232, idle_registers = 0, smem_bytes = 0>]>

// -----

// expected-error @+2 {{a plan needs at least one #megamoe.variant}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408, variants = []>

// -----

// expected-error @+2 {{plan variants must be #megamoe.variant, got 1 : i64}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408, variants = [1]>

// -----

// expected-error @+4 {{unknown math mode "pingpong"; expected "cooperative-m", "cooperative-n" or "single"}}
// expected-error @+3 {{failed to parse MegaMoE_PlanAttr parameter 'variants'}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 24, math_mode = "pingpong", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 211840>]>

// -----

// l1_pull (last, omitted when false) is for the split and fused-gemm schedules only.
// expected-error @+1 {{'megamoe.layer' op variant BLOCK_M 32 (tokens/rank 0..8): l1-pull: the fused schedule has no such L1 kernel (split and fused-gemm only); the pull inside the L1 kernel is built for the split schedule's moe_l1_swiglu and the fused-gemm schedule's moe_fused_gemm on sm_90a}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 211840, l1_pull = true>]>

// -----

// expected-error @+5 {{expected 'true' or 'false'}}
// expected-error @+4 {{failed to parse MegaMoE_VariantAttr parameter 'l1_pull' which is to be a `bool`}}
// expected-error @+3 {{failed to parse MegaMoE_PlanAttr parameter 'variants'}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 211840, l1_pull = 1>]>

// -----

// Absurd sizes are range errors, never arithmetic overflow.
// expected-error @+1 {{'megamoe.layer' op variant BLOCK_M 32 (tokens/rank 0..8): stages (9223372036854775807) must be between 0 and 1024}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 8, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 9223372036854775807, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 211840>]>

// -----

// expected-error @+1 {{'megamoe.layer' op variant BLOCK_M 32 (tokens/rank 0..9223372036854775807): token ranges must be contiguous from 0 to T = 8 (expected to start at 0)}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
  plan = <chip = "sm_90a", num_sms = 132, schedule = "fused", threads = 384, dispatch_warps = 2, tma_a_warp = 2, tma_b_warp = 3, math_warpgroups = 2, entry_registers = 168, requant_block = 128, pool_tokens = 1408,
    variants = [#megamoe.variant<min_tokens = 0, max_tokens = 9223372036854775807, block_m = 32, expert_align = 32, l1_block_n = 256, l2_block_n = 256, block_k = 128, stages = 5, experts_per_wave = 24, math_mode = "cooperative-n", producer_registers = 48, math_registers = 224, idle_registers = 24, smem_bytes = 211840>]>

// -----

// SM100's native UE8M0-per-32 scales (docs/SM100.md, recipe (a)) are not
// implemented: sm_100a runs the FP32-per-128 recipe.
// expected-error @+1 {{recipe: the input scale block (32) must be 128 channels; sm_100a runs the FP32-per-128 recipe (docs/SM100.md option (b)): UE8M0 scales per 32 K are not implemented}}
megamoe.layer @l config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8, chip = "sm_100a", input_scale_block = 32>
