// schedule=auto: the fastest schedule megamoe-expand builds for the layer's
// chip, from the measurements in config::fastestBuiltSchedule: split on
// sm_90a (every token count, both BLOCK_M variants), the unfused reference
// on a chip without measurements (sm_100a). The plan records the choice and
// the expand builds it.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" | FileCheck %s --check-prefix=SM90
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_100a clamp=7" --megamoe-plan="schedule=auto" | FileCheck %s --check-prefix=SM100
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=auto" --megamoe-expand | FileCheck %s --check-prefix=EXPAND

// SM90: schedule = "split"
// SM100: schedule = "unfused"
// The split schedule's kernels (docs/SplitSchedule.md).
// EXPAND: warpspec.kernel @moe_route
// EXPAND: warpspec.kernel @moe_l1_swiglu
// EXPAND: warpspec.kernel @moe_l2_gemm
