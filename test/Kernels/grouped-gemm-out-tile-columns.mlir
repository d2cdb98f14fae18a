// out-tile-columns: the TMA-store epilogue's SMEM output tile as wide as
// asked (a multiple of the 64-column BF16 panel dividing BLOCK_N). At the
// whole BLOCK_N 256 each of the tile's four pieces has its own slot, so a
// piece waits only for the store of the previous tile's piece in that slot
// (pending 3), and the ring keeps 3 stages.
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 cluster-m=2 scale-prefetch=1 stages=3 out-tile-columns=256" | FileCheck %s
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=256 out-tile-columns=96" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 out-tile-columns=256" 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 block-n=256 out-tile-columns=256" | FileCheck %s --check-prefix=AUTO
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 block-n=256 out-tile-columns=256 stages=4" 2>&1 | FileCheck %s --check-prefix=SMEM

// CHECK: STAGES = 3 : i64
// CHECK: %[[D:.*]] = warpspec.smem.alloc "d_tiles" : !warpspec.smem<128x64xbf16, slots = 4, align = 1024, swizzle = 128>
// CHECK: warpspec.role "math0"
// CHECK-COUNT-4: warpspec.tma.store.wait pending 3 read
// BAD: out-tile-columns must be 0 (the plan's) or, for the TMA-store epilogue, a multiple of the 64-column output panel that divides block-n 256, got 96
// WIDE: out-tile-columns must be 0 {{.*}} that divides block-n 128, got 256
// The 64 KiB tile leaves room for 3 stages of 48.5 KiB: the plan picks 3
// (then the K loop of 56 blocks stays rolled), and 4 do not fit.
// AUTO: STAGES = 3 : i64
// AUTO-NOT: UNROLL_STAGES
// SMEM: error: megamoe-grouped-gemm: 4 stages of {{.*}} B of shared memory, more than the 232448 B an sm_90a block can have
module {}
