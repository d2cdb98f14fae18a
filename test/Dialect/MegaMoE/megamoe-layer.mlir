// A layer from the command line, with no input file: an empty module to start.
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=2048 experts=256 topk=8 ranks=8 max-tokens=8192 chip=sm_90a" | FileCheck %s --check-prefix=OPTS
// OPTS: module {
// OPTS-NEXT: megamoe.layer @layer config = <hidden = 7168, intermediate = 2048, experts = 256, topk = 8, ranks = 8, max_tokens = 8192>
// OPTS-NEXT: }

// Options for the recipe and activation; planning in the same command.
// RUN: megamoe-opt --megamoe-layer="name=pro hidden=7168 intermediate=3072 experts=384 topk=6 ranks=2 max-tokens=1 requant-block=64 clamp=10 fast-math=true" --megamoe-plan | FileCheck %s --check-prefix=RECIPE
// RECIPE: megamoe.layer @pro config = <hidden = 7168, intermediate = 3072, experts = 384, topk = 6, ranks = 2, max_tokens = 1, requant_block = 64, clamp = 1.000000e+01 : f64, fast_math = true> plan = <

// With an input file the layer is appended to it.
// RUN: megamoe-opt %s --megamoe-layer="name=second hidden=4096 intermediate=2048 experts=256 topk=6 ranks=8 max-tokens=8" | FileCheck %s --check-prefix=FILE
// FILE: megamoe.layer @first
// FILE-NEXT: megamoe.layer @second config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>

// A layer that breaks the rules is reported, rule by rule.
// RUN: not megamoe-opt --megamoe-layer="hidden=4000 intermediate=2048 experts=256 topk=6 ranks=3 max-tokens=8" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD-DAG: error: megamoe-layer: hidden (H = 4000) must be a positive multiple of 128
// BAD-DAG: error: megamoe-layer: experts (E = 256) must be divisible by ranks (R = 3)

// Missing shape options read as 0 and are rejected the same way.
// RUN: not megamoe-opt --megamoe-layer="hidden=4096" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: megamoe-layer: intermediate (I = 0) must be a positive multiple of 128

// RUN: not megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=8 max-tokens=8 chip=sm_80" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: megamoe-layer: unsupported chip "sm_80"; expected "sm_90a" or "sm_100a"

// RUN: not megamoe-opt %s --megamoe-layer="name=first hidden=4096 intermediate=2048 experts=256 topk=6 ranks=8 max-tokens=8" 2>&1 | FileCheck %s --check-prefix=DUP
// DUP: error: megamoe-layer: the module already has a symbol @first; pick another name=
megamoe.layer @first config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
