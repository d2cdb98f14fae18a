// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: rm -rf %t && megamoe-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// On sm_90a one K block of mma.block_scaled is wgmma into a fresh
// accumulator (scale-d = 0 on the first of K / 32 = 4 instructions), commit,
// wait 0, then the promotion: one product a_scale[row] * b_scale per (row
// half, scale), one FMA per element, the scale of 8-column group j chosen by
// the b_scale_map (here (j) mod 2: groups alternate s0, s1).

!tile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<64xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x64xf32>
!out = !warpspec.smem<64x64xf32, slots = 1, align = 1024>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @block_scaled
// CHECK-SAME: (%[[S0:.*]]: f32, %[[S1:.*]]: f32)
// The row scales are read before the MMA (acc.row_scales), so their latency
// is not between its completion and the promotion.
// CHECK: %[[SA0:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[SA1:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: %[[P00:.*]] = arith.mulf %[[SA0]], %[[S0]] : f32
// CHECK-NEXT: %[[P01:.*]] = arith.mulf %[[SA0]], %[[S1]] : f32
// CHECK-NEXT: %[[P10:.*]] = arith.mulf %[[SA1]], %[[S0]] : f32
// CHECK-NEXT: %[[P11:.*]] = arith.mulf %[[SA1]], %[[S1]] : f32
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P00]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P10]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P01]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P11]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P00]], %{{.*}})
// CHECK-NOT: warpspec.
warpspec.kernel @block_scaled(%s0: f32, %s1: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 40960 : i64, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %b = warpspec.smem.alloc "b" offset 16384 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 32768 : !sfa
  %out = warpspec.smem.alloc "out" offset 33792 : !out
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t = warpspec.mma.block_scaled %a, %b stage %c1 row %c0 a_scales %sfa b_scales %s0, %s1 b_scale_map affine_map<(c) -> ((c floordiv 8) mod 2)> into %z : !tile, !tile, !sfa, !acc
      warpspec.acc.store %t -> %out[%c0, %c0] : !acc, !out
    }
  }
  warpspec.return
}
}
}
