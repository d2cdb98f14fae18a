// megamoe-expand programmatic-launch=true marks every kernel of the layer
// (each then begins with griddepcontrol.wait, Conversion/WarpSpecToNVVM/
// programmatic-launch.mlir): 1 (the default) waits at entry, 2 also
// triggers the next kernel there, 0 is off.
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-expand="programmatic-launch=2" | FileCheck %s
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-expand="programmatic-launch=1" | FileCheck %s --check-prefix=WAIT
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-expand="programmatic-launch=0" | FileCheck %s --check-prefix=OFF
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-expand | FileCheck %s --check-prefix=WAIT
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64" --megamoe-plan="schedule=split" --megamoe-expand="programmatic-launch=2" 2>&1 | FileCheck %s --check-prefix=RANKS
// RUN: not megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-expand="programmatic-launch=3" 2>&1 | FileCheck %s --check-prefix=VALUE

megamoe.layer @small config = #megamoe.config<hidden = 512, intermediate = 256, experts = 8, topk = 2, ranks = 1, max_tokens = 64>

// CHECK-COUNT-7: warpspec.kernel @{{.*}}programmatic_launch, {{.*}}trigger_dependents_at_entry
// CHECK-NOT: warpspec.kernel @
// OFF-NOT: programmatic_launch
// RANKS: error: megamoe-expand: programmatic-launch=2 is built for one rank (ranks = 1); the layer has 2 ranks
// WAIT-COUNT-7: warpspec.kernel @{{.*}}programmatic_launch
// WAIT-NOT: trigger_dependents_at_entry
// VALUE: error: megamoe-expand: programmatic-launch must be 0 (off), 1 (wait at entry) or 2 (wait and trigger at entry); got 3
