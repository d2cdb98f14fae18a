// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: warpspec-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// acc.promote with a b_scale_map over four b_scales and 64 columns: two
// column blocks of 32 columns, each alternating every 8 columns between its
// pair of scales (a gate/up-interleaved weight): groups 0..7 use scales
// 0 1 0 1 2 3 2 3.
// The thread's two rows (sa0, sa1) make one product per (row, scale); element
// i of the fragment (group i / 4, row half (i % 4) / 2) takes its product.

!acc = !warpspec.acc<64x64xf32>
!sfa = !warpspec.smem<64xf32, slots = 1, align = 128>
!out = !warpspec.smem<64x64xf32, slots = 1, align = 1024>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {

// CHECK-LABEL: llvm.func @interleaved
// CHECK-SAME: (%[[B0:[^:]*]]: f32, %[[B1:[^:]*]]: f32, %[[B2:[^:]*]]: f32, %[[B3:[^:]*]]: f32)
// CHECK: %[[SA0:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[SA1:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[P00:.*]] = arith.mulf %[[SA0]], %[[B0]] : f32
// CHECK-NEXT: %[[P01:.*]] = arith.mulf %[[SA0]], %[[B1]] : f32
// CHECK-NEXT: %[[P02:.*]] = arith.mulf %[[SA0]], %[[B2]] : f32
// CHECK-NEXT: %[[P03:.*]] = arith.mulf %[[SA0]], %[[B3]] : f32
// CHECK-NEXT: %[[P10:.*]] = arith.mulf %[[SA1]], %[[B0]] : f32
// CHECK-NEXT: %[[P11:.*]] = arith.mulf %[[SA1]], %[[B1]] : f32
// CHECK-NEXT: %[[P12:.*]] = arith.mulf %[[SA1]], %[[B2]] : f32
// CHECK-NEXT: %[[P13:.*]] = arith.mulf %[[SA1]], %[[B3]] : f32
// Group 0 (elements 0-3): scale 0.
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P00]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P10]], %{{.*}})
// Group 1: scale 1 (the up half of the first block).
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P01]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P11]], %{{.*}})
// Groups 2, 3: scales 0, 1 again.
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P00]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P10]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P01]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P11]], %{{.*}})
// Groups 4-7 (the second 32-column block): scales 2 3 2 3.
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P02]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P12]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P03]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P13]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P02]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P12]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P03]], %{{.*}})
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P13]], %{{.*}})
// CHECK-NOT: llvm.intr.fma
// CHECK: llvm.return
warpspec.kernel @interleaved(%b0: f32, %b1: f32, %b2: f32, %b3: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 18432 : i64, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" offset 0 : !sfa
  %out = warpspec.smem.alloc "out" offset 1024 : !out
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %b0, %b1, %b2, %b3 b_scale_map affine_map<(c) -> ((c floordiv 32) * 2 + (c floordiv 8) mod 2)> : !sfa, !acc
      warpspec.acc.store %t -> %out[%c0, %c0] : !acc, !out
    }
  }
  warpspec.return
}
}
}
