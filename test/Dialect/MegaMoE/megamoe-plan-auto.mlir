// schedule=auto: the fastest schedule megamoe-expand builds for the layer's
// chip and BLOCK_M, from the measurements in config::fastestBuiltSchedule:
// on sm_90a fused-gemm (with the wave order) where every variant is BLOCK_M
// 64, split where the plan has a BLOCK_M 128 variant; the unfused reference
// on a chip without measurements (sm_100a). The plan records the choice and
// the expand builds it.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" | FileCheck %s --check-prefix=SM90
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=1024 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" | FileCheck %s --check-prefix=SM90BIG
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto block-m=128" | FileCheck %s --check-prefix=SM90BIG
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_100a clamp=7" --megamoe-plan="schedule=auto" | FileCheck %s --check-prefix=SM100
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" --megamoe-expand | FileCheck %s --check-prefix=EXPAND
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=1024 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" --megamoe-expand | FileCheck %s --check-prefix=EXPANDBIG

// Max 64 tokens x 2 / 8 experts: BLOCK_M 64 only (256 tokens or fewer).
// SM90: schedule = "fused-gemm"
// SM90: block_m = 64
// SM90-SAME: wave_m_blocks = 4
// SM90BIG: schedule = "split"
// SM100: schedule = "unfused"
// The fused-gemm schedule's kernels (docs/FusedSchedule.md).
// EXPAND: warpspec.kernel @moe_route
// EXPAND: warpspec.kernel @moe_fused_gemm
// EXPAND-NOT: warpspec.kernel @moe_l2_gemm
// The split schedule's kernels (docs/SplitSchedule.md).
// EXPANDBIG: warpspec.kernel @moe_route
// EXPANDBIG: warpspec.kernel @moe_l1_swiglu
// EXPANDBIG: warpspec.kernel @moe_l2_gemm
