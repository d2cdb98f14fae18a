// schedule=auto: per variant, the fastest schedule megamoe-expand builds for
// the layer's chip and the variant's BLOCK_M (config::fastestBuiltSchedule):
// on sm_90a fused-gemm (with the wave order) at BLOCK_M 64, split at 128;
// the unfused reference on a chip without measurements (sm_100a). The plan's
// schedule is that of its largest BLOCK_M; a variant that differs records
// its own (Variant::schedule), and the expand builds each variant's kernels
// into one manifest.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" | FileCheck %s --check-prefix=SM90
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=1024 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" | FileCheck %s --check-prefix=SM90BIG
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto block-m=128" | FileCheck %s --check-prefix=PINNED
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_100a clamp=7" --megamoe-plan="schedule=auto" | FileCheck %s --check-prefix=SM100
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" --megamoe-expand | FileCheck %s --check-prefix=EXPAND
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=1024 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" --megamoe-expand | FileCheck %s --check-prefix=EXPANDBIG

// Max 64 tokens x 2 / 8 experts: BLOCK_M 64 only (256 tokens or fewer).
// SM90: schedule = "fused-gemm"
// SM90: block_m = 64
// SM90-SAME: wave_m_blocks = 4
// Max 1024 tokens: BLOCK_M 64 up to 256 tokens (fused-gemm, its own), 128
// above (split, the plan's), from 448 (112 expected rows per expert,
// sharedWeightsMinTokens) its own variant with l1-cluster and
// l2-expert-blocks.
// SM90BIG: schedule = "split"
// SM90BIG-SAME: #megamoe.variant<min_tokens = 0, max_tokens = 256, block_m = 64, {{.*}}wave_m_blocks = 4, schedule = "fused-gemm">
// SM90BIG-SAME: #megamoe.variant<min_tokens = 257, max_tokens = 447, block_m = 128, {{[^>]*}}smem_bytes = 0>
// SM90BIG-SAME: #megamoe.variant<min_tokens = 448, max_tokens = 1024, block_m = 128, {{[^>]*}}smem_bytes = 0, l2_expert_blocks = true, l1_cluster = true>
// block-m=128 pinned: one split variant.
// PINNED: schedule = "split"
// PINNED-NOT: schedule = "fused-gemm"
// SM100: schedule = "unfused"
// The fused-gemm schedule's kernels (docs/FusedSchedule.md).
// EXPAND: warpspec.kernel @moe_route
// EXPAND: warpspec.kernel @moe_fused_gemm
// EXPAND-NOT: warpspec.kernel @moe_l2_gemm
// Each variant's kernels in one manifest: fused-gemm's at BLOCK_M 64, the
// split schedule's at 128 (without fast math its L1 GEMM stores h for
// moe_activation, splitFusesActivation).
// EXPANDBIG: megamoe.variants = [{block_m = 64 : i64, max_tokens = 256 : i64, min_tokens = 0 : i64, schedule = ["moe_route", "moe_layout_bm64", "moe_pull_bm64", "moe_fused_gemm_bm64", "moe_combine_barrier", "moe_combine_reduce"]}, {block_m = 128 : i64, max_tokens = 447 : i64, min_tokens = 257 : i64, schedule = ["moe_route", "moe_layout_bm128", "moe_pull_bm128", "moe_l1_gemm_bm128", "moe_activation", "moe_l2_gemm_bm128", "moe_combine_barrier", "moe_combine_reduce"]}, {block_m = 128 : i64, max_tokens = 1024 : i64, min_tokens = 448 : i64, schedule = ["moe_route", "moe_layout_bm128_shared", "moe_pull_bm128_shared", "moe_l1_gemm_bm128_shared", "moe_activation", "moe_l2_gemm_bm128_shared", "moe_combine_barrier", "moe_combine_reduce"]}]
// EXPANDBIG: warpspec.kernel @moe_fused_gemm_bm64
// EXPANDBIG: warpspec.kernel @moe_l2_gemm_bm128
