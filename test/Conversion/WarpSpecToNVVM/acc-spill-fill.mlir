// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// acc.spill / acc.fill of a 64 x 64 accumulator (32 f32 per thread): vector
// j of thread t (t = tid.x mod 128) at ptr + 16 (128 j + t) bytes, eight
// 16-byte stores, then eight 16-byte loads back into the same elements.

module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @spill_fill
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
warpspec.kernel @spill_fill(%p: !warpspec.global<f32>, %q: !warpspec.global<f32>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 0 : i64, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x64xf32>
      warpspec.acc.spill %z, %p : !warpspec.acc<64x64xf32>, !warpspec.global<f32>
      %a = warpspec.acc.fill %p : !warpspec.global<f32> -> !warpspec.acc<64x64xf32>
      %r = warpspec.acc.row_reduce max %a : !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
      warpspec.acc_rows.store %r, %q : !warpspec.acc_rows<64xf32>, !warpspec.global<f32>
    }
  }
  warpspec.return
}
}
}
