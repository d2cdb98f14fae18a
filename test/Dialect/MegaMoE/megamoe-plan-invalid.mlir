// Overrides that cannot fit are errors that say why.
// RUN: not megamoe-opt %s --megamoe-plan="stages=9" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not megamoe-opt %s --megamoe-plan="block-m=128" 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not megamoe-opt %s --megamoe-plan="math-registers=256 math-mode=cooperative-n" 2>&1 | FileCheck %s --check-prefix=SUM
// RUN: not megamoe-opt %s --megamoe-plan="math-mode=single" 2>&1 | FileCheck %s --check-prefix=SINGLE
// RUN: not megamoe-opt %s --megamoe-plan="l1-block-n=128" 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not megamoe-opt %s --megamoe-plan="block-k=64" 2>&1 | FileCheck %s --check-prefix=BK
// RUN: not megamoe-opt %s --megamoe-plan="num-sms=200" 2>&1 | FileCheck %s --check-prefix=SMS
// RUN: not megamoe-opt %s --megamoe-plan="schedule=pipelined" 2>&1 | FileCheck %s --check-prefix=SCHED
// RUN: not megamoe-opt %s --megamoe-plan="math-mode=pingpong" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not megamoe-opt %s --megamoe-plan="pool-tokens=100" 2>&1 | FileCheck %s --check-prefix=POOL
// RUN: not megamoe-opt %s --megamoe-plan="experts-per-wave=33" 2>&1 | FileCheck %s --check-prefix=WAVE

// STAGES: error: megamoe-plan: no plan fits layer @v4_flash
// STAGES: note: variant BLOCK_M 32 (tokens/rank 0..8): 9 stages need {{[0-9]+}} B of shared memory {{.*}}; the limit is 232448 B (at most 5 stages fit)

// REGS: note: variant BLOCK_M 128 (tokens/rank 0..8): a math thread holds a 64x256 FP32 tile twice (accumulator + promotion) = 256 registers plus ~64 working registers = 320, over the math budget of 224

// SUM: note: {{.*}}registers 128 x (48 + 2 x 256) = 71680 exceed the 65536 of an SM

// SINGLE: note: {{.*}}a math thread holds a 64x256 FP32 tile twice

// GROUP: note: {{.*}}L1 BLOCK_N (128) must be a multiple of 256 (whole per-128 requantization groups of gate/up-interleaved rows) that divides 2 x intermediate (4096)

// BK: note: {{.*}}BLOCK_K (64) must be 128 or 256

// SMS: note: number of SMs (200) must be between 1 and the 132 SMs of sm_90a: the persistent grid needs every CTA resident

// SCHED: error: megamoe-plan: unknown schedule="pipelined"; expected fused, split, unfused, fused-gemm or auto

// MODE: error: megamoe-plan: unknown math-mode="pingpong"

// POOL: note: pool tokens (100) must be a positive multiple of 128

// WAVE: note: {{.*}}experts per wave (33) must be between 1 and the 32 experts of a rank
megamoe.layer @v4_flash config = <hidden = 4096, intermediate = 2048, experts = 256, topk = 6, ranks = 8, max_tokens = 8>
