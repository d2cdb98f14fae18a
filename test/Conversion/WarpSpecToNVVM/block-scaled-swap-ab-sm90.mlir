// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: rm -rf %t && megamoe-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// REQUIRES: ptxas

// mma.block_scaled swap_ab on sm_90a: the weight tile's rows [64, 128) are
// the wgmma's A and all 32 activation rows its B (m64n32k32, 4 steps);
// the promotion scales columns: per 8-column group two activation scales
// (columns 2 (lane % 4) and + 1) times the one b scale, then one fma per
// element, element q of a group using the product of column q % 2. The
// transposed acc.store writes the 64 x 32 accumulator as a 32 x 64 bf16
// tile with stmatrix.trans (two x4 for four groups).

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x32xf32>
!out = !warpspec.smem<32x64xbf16, slots = 2, align = 1024, swizzle = 128>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @swapped
// CHECK-SAME: (%[[SB:.*]]: f32)
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[C0:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[P0:.*]] = arith.mulf %[[C0]], %[[SB]] : f32
// CHECK: %[[C1:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[P1:.*]] = arith.mulf %[[C1]], %[[SB]] : f32
// CHECK: llvm.intr.fma(%{{.*}}, %[[P0]], %{{.*}})
// CHECK: llvm.intr.fma(%{{.*}}, %[[P1]], %{{.*}})
// CHECK: llvm.intr.fma(%{{.*}}, %[[P0]], %{{.*}})
// CHECK: llvm.intr.fma(%{{.*}}, %[[P1]], %{{.*}})
// CHECK-COUNT-6: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK: nvvm.stmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK: nvvm.stmatrix {{.*}} layout = #nvvm.mma_layout<col>
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: warpspec.
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3
// PTX-COUNT-2: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
warpspec.kernel @swapped(%sb: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 58368 : i64, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" offset 0 : !w
  %x = warpspec.smem.alloc "x" offset 32768 : !x
  %sfa = warpspec.smem.alloc "sfa" offset 40960 : !sfa
  %out = warpspec.smem.alloc "out" offset 41984 : !out
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t = warpspec.mma.block_scaled %x, %w stage %c1 row %c64 a_scales %sfa b_scales %sb swap_ab into %z : !x, !w, !sfa, !acc
      warpspec.acc.store %t -> %out[%c1, %c0] transpose : !acc, !out
    }
  }
  warpspec.return
}
}
}
