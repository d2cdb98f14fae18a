// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// warpspec.acc.slice on the SM90 fragment (element 4j + q of a thread is in
// 8-column group j): columns [16, 32) of a 64 x 32 accumulator are elements
// 8-15 of each thread, renumbered 0-7; no data moves. The slice's row maxima
// then read only those elements.
// CHECK-LABEL: llvm.func @slice
// CHECK: %[[A:.*]] = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK: %[[E8:.*]] = llvm.extractvalue %[[ACC:.*]][8] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK-NEXT: llvm.insertvalue %[[E8]], %[[A]][0]
// CHECK: llvm.extractvalue %[[ACC]][15]
// CHECK-NEXT: llvm.insertvalue %{{.*}}, %{{.*}}[7]
// CHECK-NOT: llvm.extractvalue %[[ACC]][{{[0-7]}}]
// CHECK: nvvm.shfl.sync bfly

!acc = !warpspec.acc<64x32xf32>
!piece = !warpspec.acc<64x16xf32>
!rows = !warpspec.acc_rows<64xf32>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
warpspec.kernel @slice(%out: !warpspec.global<f32>) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %h = warpspec.acc.zero : !acc
      %p = warpspec.acc.slice %h offset 16 : !acc -> !piece
      %m = warpspec.acc.row_reduce max %p : !piece -> !rows
      warpspec.acc_rows.store %m, %out : !rows, !warpspec.global<f32>
    }
  }
  warpspec.return
}
}
}
