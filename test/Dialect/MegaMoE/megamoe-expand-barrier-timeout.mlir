// megamoe-expand's barrier-timeout-cycles: how long each cross-rank barrier
// of the unfused schedule (moe_layout's and moe_combine_barrier's) waits
// before it prints the counter it waited for and traps. The GPU fault test
// (scripts/gpu-sanitize.sh, a rank that never arrives) builds its layer with
// a short one.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64" --megamoe-plan="schedule=unfused" --megamoe-expand="barrier-timeout-cycles=1000000" | FileCheck %s
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64" --megamoe-plan="schedule=unfused" --megamoe-expand | FileCheck %s --check-prefix=DEFAULT
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64" --megamoe-plan="schedule=unfused" --megamoe-expand="barrier-timeout-cycles=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// CHECK-LABEL: warpspec.kernel @moe_layout
// CHECK: warpspec.cross_rank.barrier {{.*}} timeout_cycles 1000000
// CHECK-LABEL: warpspec.kernel @moe_combine_barrier
// CHECK: warpspec.cross_rank.barrier {{.*}} timeout_cycles 1000000
// CHECK-NOT: timeout_cycles 20000000000

// DEFAULT-LABEL: warpspec.kernel @moe_layout
// DEFAULT: warpspec.cross_rank.barrier {{.*}} timeout_cycles 20000000000
// DEFAULT-LABEL: warpspec.kernel @moe_combine_barrier
// DEFAULT: warpspec.cross_rank.barrier {{.*}} timeout_cycles 20000000000

// NEGATIVE: megamoe-expand: barrier-timeout-cycles (-1) must be positive, or 0 for the default
