// Malformed megamoe-layer / megamoe-plan options on the command line: each is
// a diagnostic naming the option and its value, and megamoe-opt fails (no
// crash, no module printed). The in-process fuzz of the same options is
// unittests/Dialect/PassOptionsFuzzTest.cpp.
// RUN: not megamoe-opt --megamoe-layer="hidden=abc" 2>&1 | FileCheck %s --check-prefix=NOTINT
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 max-tokens=99999999999999999999" 2>&1 | FileCheck %s --check-prefix=TOOBIG
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 max-tokens=4611686018427387903" 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 max-tokens=64 no-such-option=1" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 max-tokens=64" --megamoe-plan="schedule=nope" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 max-tokens=64" --megamoe-plan="block-m=-9223372036854775808" 2>&1 | FileCheck %s --check-prefix=BLOCKM
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=128 experts=8 topk=2 max-tokens=64" --megamoe-plan="l1-block-n=512" 2>&1 | FileCheck %s --check-prefix=L1N

// NOTINT: for the --hidden option: 'abc' value invalid for long argument!
// NOTINT-NOT: megamoe.layer
// TOOBIG: for the --max-tokens option: '99999999999999999999' value invalid for long argument!
// OVERFLOW: error: megamoe-layer: max tokens per rank (T = 4611686018427387903) x top-k (K = 2) x ranks (R = 1) must stay below 2^31: the kernel indexes token slots in i32
// UNKNOWN: no-such-option
// SCHEDULE: error: megamoe-plan: unknown schedule="nope"; expected fused, split, unfused, fused-gemm or auto
// BLOCKM: error: megamoe-plan: no plan fits layer @layer
// BLOCKM: override block-m (-9223372036854775808) must be between 1 and 4096
// L1N: error: megamoe-plan: no plan fits layer @layer
// L1N: L1 BLOCK_N (512) must be a multiple of 256 {{.*}} that divides 2 x intermediate (256)
