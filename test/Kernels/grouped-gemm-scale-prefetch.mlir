// scale-prefetch=1 (GemmProblem::scalePrefetch): each math warpgroup reads
// the first K block's weight scales before its K loop and, inside it, the
// next K block's (clamped to the last, in bounds) before the stage wait; the
// MMAs use the carried values. BLOCK_N 256: two column blocks, two scales
// per K block (the second block's K / 128 = 56 entries later). Without the
// option the loop carries no scales and reads its own K block's.
// REQUIRES: ptxas
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 scale-prefetch=1 unroll-wide=false" | FileCheck %s
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 scale-prefetch=0" | FileCheck %s --check-prefix=OFF
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 scale-prefetch=1" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/grouped_gemm.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK-LABEL: warpspec.role "math0"
// The tile's scale row is addressed once, the entries in 64 bits.
// CHECK: arith.constant 56 : i64
// CHECK: %[[S0:.*]] = warpspec.global.load %{{.*}} : !warpspec.global<f32>
// CHECK: %[[S1:.*]] = warpspec.global.load %{{.*}} : !warpspec.global<f32>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c56 step %{{.*}} iter_args({{.*}}, %[[B0:.*]] = %[[S0]], %[[B1:.*]] = %[[S1]]) -> ({{.*}}, index, f32, f32)
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK: arith.minui %[[NEXT]], %c55 : index
// CHECK: %[[N0:.*]] = warpspec.global.load
// CHECK: %[[N1:.*]] = warpspec.global.load
// CHECK: warpspec.consumer.wait
// CHECK: warpspec.mma.block_scaled {{.*}} b_scales %[[B0]] {{.*}}into
// CHECK: warpspec.mma.block_scaled {{.*}} b_scales %[[B1]] {{.*}}into
// CHECK: scf.yield {{.*}}, %[[N0]], %[[N1]] :

// OFF-LABEL: warpspec.role "math0"
// OFF: scf.for {{.*}} iter_args({{.*}}) -> (!warpspec.acc<64x128xf32>, !warpspec.acc<64x128xf32>, index) {
// OFF: warpspec.global.load
// OFF: warpspec.global.load
// OFF: warpspec.consumer.wait

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
