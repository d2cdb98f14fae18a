// RUN: not warpspec-opt %s 2>&1 | FileCheck %s
// RUN: megamoe-opt %s | FileCheck %s --check-prefix=ALL

// warpspec-opt registers warpspec and upstream dialects only: a megamoe op
// in warpspec-level IR (a layer that was not expanded) does not parse there,
// while megamoe-opt, which registers both layers, reads it.
// CHECK: Dialect `megamoe' not found for custom op 'megamoe.layer'
// ALL: megamoe.layer @leaked
megamoe.layer @leaked config = <hidden = 4096, intermediate = 2048,
    experts = 256, topk = 6, ranks = 8, max_tokens = 8192>
