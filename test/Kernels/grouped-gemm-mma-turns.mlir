// mma-turns=true (GemmProblem::mmaTurns): the two math warpgroups issue their
// MMAs in turns over two named barriers after the kernel's others (ids 6 and
// 7 with two math warpgroups). math1 hands the first turn to math0 before its
// tiles; each MMA waits for its warpgroup's turn and passes it to the other;
// math0 takes the one turn left after its last tile, so the barrier ends
// balanced. In the PTX each wgmma group sits between the turn's barrier.sync
// and the bar.arrive that passes it, before the wait for the wgmma.
// REQUIRES: ptxas
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 mma-turns=true" | FileCheck %s
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256" | FileCheck %s --check-prefix=OFF
// RUN: rm -rf %t && mkdir -p %t/a %t/b
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 cluster-m=2 scale-prefetch=1 mma-turns=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/a" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/a/grouped_gemm.ptx
// RUN: %ptxas -arch=sm_90a -v %t/a/grouped_gemm.ptx -o %t/a/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=2048 max-m=32768 block-m=128 block-n=128 mma-turns=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/b" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/b/grouped_gemm.ptx -o %t/b/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-m=64 mma-turns=true" 2>&1 | FileCheck %s --check-prefix=BM64
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="chip=sm_100a mma-turns=true" 2>&1 | FileCheck %s --check-prefix=SM100

// CHECK: %[[T0:.*]] = warpspec.named_barrier 6 roles ["math0", "math1"]
// CHECK: %[[T1:.*]] = warpspec.named_barrier 7 roles ["math0", "math1"]
// CHECK-LABEL: warpspec.role "math0"
// CHECK-NOT: warpspec.barrier.arrive %[[T0]]
// CHECK: warpspec.tile_loop
// CHECK: warpspec.mma.block_scaled {{.*}} turn %[[T0]] pass %[[T1]] into
// CHECK: warpspec.mma.block_scaled {{.*}} turn %[[T0]] pass %[[T1]] into
// CHECK: warpspec.barrier.sync %[[T0]]
// CHECK-LABEL: warpspec.role "math1"
// CHECK: warpspec.barrier.arrive %[[T0]]
// CHECK-NEXT: warpspec.tile_loop
// CHECK: warpspec.mma.block_scaled {{.*}} turn %[[T1]] pass %[[T0]] into
// CHECK-NOT: warpspec.barrier.sync %[[T0]]
// CHECK: warpspec.return

// OFF-NOT: named_barrier 6
// OFF-NOT: turn %

// PTX: barrier.sync 6, 256;
// PTX-NEXT: // end inline asm
// PTX-NEXT: wgmma.fence.sync.aligned;
// PTX: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NEXT: // begin inline asm
// PTX-NEXT: bar.arrive 7, 256;
// PTX-NEXT: // end inline asm
// PTX-NEXT: wgmma.wait_group.sync.aligned 0;

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// BM64: error: megamoe-grouped-gemm: mma-turns needs two math warpgroups that compute every tile alike: block-m 128, no half blocks, no k-split, no pulled rows; got block-m 64
// SM100: error: megamoe-grouped-gemm: mma-turns is built for sm_90a (on sm_100a one thread issues the MMAs), got 'sm_100a'
