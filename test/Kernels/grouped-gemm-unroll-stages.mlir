// The math warps' K loop unrolled over the pipeline stages (unroll-stages,
// MainloopConfig::unrollStages): BLOCK_M 64 x 128 at K 7168 has 8 stages and
// 56 K blocks, so the loop steps by 8 and K block j of each group waits with
// `known_stage j` (the producer's loop is unchanged). Not where the K blocks
// are no multiple of the stages (stages=5 given), not at BLOCK_N 256 with
// unroll-wide=false, not with unroll-stages=false.
// REQUIRES: ptxas
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=64 block-n=128" | FileCheck %s
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=64 block-n=128 unroll-stages=false" | FileCheck %s --check-prefix=OFF
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=128 stages=5" | FileCheck %s --check-prefix=OFF
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=128" | FileCheck %s --check-prefix=BM128
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 cluster-m=1 stages=4 unroll-wide=false" | FileCheck %s --check-prefix=OFF
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 cluster-m=1" | FileCheck %s --check-prefix=WIDE
// RUN: rm -rf %t && mkdir -p %t/wide
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/wide" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/wide/grouped_gemm.ptx -o %t/wide/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: grep -c "mov.u32 %r[0-9]*, 0;" %t/wide/grouped_gemm.ptx | FileCheck %s --check-prefix=REMAT
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=64 block-n=128" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/grouped_gemm.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK-LABEL: warpspec.role "math0"
// CHECK: scf.for %{{.*}} = %{{.*}} to %c56 step %c8
// CHECK: warpspec.consumer.wait %{{.*}} known_stage 0
// CHECK: warpspec.consumer.wait %{{.*}} known_stage 1
// CHECK: warpspec.consumer.wait %{{.*}} known_stage 7
// CHECK-NOT: known_stage
// CHECK: warpspec.return

// OFF-NOT: known_stage

// BLOCK_M 128 x 128: 5 stages fit, the plan takes 4 (they divide the 56 K
// blocks: config::unrolledStageCount) and unrolls both math warpgroups' loops.
// BM128: STAGES = 4 : i64
// BM128-LABEL: warpspec.role "math0"
// BM128: scf.for %{{.*}} = %{{.*}} to %c56 step %c4
// BM128: warpspec.consumer.wait %{{.*}} known_stage 3
// BM128-LABEL: warpspec.role "math1"
// BM128: scf.for %{{.*}} = %{{.*}} to %c56 step %c4

// unroll-wide (the default): the BLOCK_N 256 tile (4 stages, 56 K blocks) unrolled too,
// its block-scaled MMAs with rematerialize_k_steps (the K-step descriptor
// offsets added in the loop through an opaque zero: 3 per wgmma group, 2
// groups x 4 stages x 2 math roles), 0 spills (hoisted, they spilled).
// WIDE: STAGES = 4 : i64
// WIDE-SAME: UNROLL_STAGES = 1 : i64
// WIDE-LABEL: warpspec.role "math0"
// WIDE: scf.for %{{.*}} = %{{.*}} to %c56 step %c4
// WIDE: warpspec.consumer.wait %{{.*}} known_stage 0
// WIDE: warpspec.mma.block_scaled {{.*}} rematerialize_k_steps into
// WIDE: warpspec.mma.block_scaled {{.*}} rematerialize_k_steps into
// WIDE: warpspec.consumer.wait %{{.*}} known_stage 3
// REMAT: 48

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
