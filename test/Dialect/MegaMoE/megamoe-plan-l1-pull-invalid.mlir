// The plan rule l1-pull: the pull inside the L1 kernel is built for the
// split schedule's moe_l1_swiglu and the fused-gemm schedule's moe_fused_gemm on
// sm_90a; each other case is an error that
// says which condition fails. A bad option value names the accepted ones.
// RUN: not megamoe-opt %s --megamoe-plan="schedule=split l1-pull=true" 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not megamoe-opt %s --megamoe-plan="schedule=unfused l1-pull=true" 2>&1 | FileCheck %s --check-prefix=UNFUSED
// RUN: not megamoe-opt %s --megamoe-plan="schedule=fused l1-pull=true" 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: not megamoe-opt %s --megamoe-plan="schedule=split l1-pull=yes" 2>&1 | FileCheck %s --check-prefix=VALUE

// Without fast-math the BLOCK_M 128 variant stores h for moe_activation (the
// BLOCK_M 64 one fuses and passes); on sm_100a neither is built.
// SPLIT: error: megamoe-plan: no plan fits layer @v4_flash_ep1{{$}}
// SPLIT-NOT: BLOCK_M 64
// Two BLOCK_M 128 variants: below and from sharedWeightsMinTokens (4779).
// SPLIT: note: variant BLOCK_M 128 (tokens/rank 2731..4778): l1-pull: this variant's L1 kernel stores h for moe_activation (splitFusesActivation: BLOCK_M 64, or fast-math); the pull inside the L1 kernel is built for the split schedule's moe_l1_swiglu and the fused-gemm schedule's moe_fused_gemm on sm_90a
// SPLIT: note: variant BLOCK_M 128 (tokens/rank 4779..8192): l1-pull: this variant's L1 kernel stores h for moe_activation
// SPLIT-NOT: @v4_flash_ep1_fm
// SPLIT: error: megamoe-plan: no plan fits layer @v4_flash_ep1_sm100
// SPLIT: note: variant BLOCK_M 64 (tokens/rank 0..2730): l1-pull: it is not built for sm_100a (sm_90a only); the pull inside the L1 kernel is built for the split schedule's moe_l1_swiglu and the fused-gemm schedule's moe_fused_gemm on sm_90a
// SPLIT-NEXT: note: variant BLOCK_M 128 (tokens/rank 2731..8192): l1-pull: it is not built for sm_100a (sm_90a only)
// SPLIT-NOT: error:

// UNFUSED: error: megamoe-plan: no plan fits layer @v4_flash_ep1{{$}}
// UNFUSED: note: variant BLOCK_M 64 (tokens/rank 0..2730): l1-pull: the unfused schedule has no such L1 kernel (split and fused-gemm only); the pull inside the L1 kernel is built for the split schedule's moe_l1_swiglu and the fused-gemm schedule's moe_fused_gemm on sm_90a
// UNFUSED: error: megamoe-plan: no plan fits layer @v4_flash_ep1_fm

// FUSED: note: {{.*}}: l1-pull: the fused schedule has no such L1 kernel (split and fused-gemm only)

// VALUE: error: megamoe-plan: unknown l1-pull="yes"; expected true, false or empty (heuristic)

megamoe.layer @v4_flash_ep1 config = #megamoe.config<hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 1, max_tokens = 8192>
megamoe.layer @v4_flash_ep1_fm config = #megamoe.config<hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 1, max_tokens = 8192, fast_math = true>
megamoe.layer @v4_flash_ep1_sm100 config = #megamoe.config<hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 1, max_tokens = 8192, fast_math = true, chip = "sm_100a">
