// megamoe-expand programmatic-launch=true marks every kernel of the layer
// (each then begins with griddepcontrol.wait, Conversion/WarpSpecToNVVM/
// programmatic-launch.mlir); off by default.
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-expand="programmatic-launch=true" | FileCheck %s
// RUN: megamoe-opt %s --megamoe-plan="schedule=split" --megamoe-expand | FileCheck %s --check-prefix=OFF
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64" --megamoe-plan="schedule=split" --megamoe-expand="programmatic-launch=true" 2>&1 | FileCheck %s --check-prefix=RANKS

megamoe.layer @small config = #megamoe.config<hidden = 512, intermediate = 256, experts = 8, topk = 2, ranks = 1, max_tokens = 64>

// CHECK-COUNT-7: warpspec.kernel @{{.*}}programmatic_launch
// CHECK-NOT: warpspec.kernel @
// OFF-NOT: programmatic_launch
// RANKS: error: megamoe-expand: programmatic-launch is built for one rank (ranks = 1); the layer has 2 ranks
