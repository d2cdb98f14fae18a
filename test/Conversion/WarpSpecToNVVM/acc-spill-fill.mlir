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
// With rows %n: a thread whose first row r0 = 16 (t / 32) + lane / 4 is not
// below %n stores nothing. Filling, it reads thread t mod 4's vectors (row
// 0's lines: no extra bytes, no branch) and yields zeros; a real thread
// zeroes its row r0 + 8 elements (4j + 2, 4j + 3) unless r0 < %n - 8.
// CHECK-LABEL: llvm.func @spill_fill_rows
// CHECK: %[[HOLDS:.*]] = arith.cmpi slt, %{{.*}}, %[[N:.*]] : i32
// CHECK: scf.if %[[HOLDS]] {
// CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: }
// CHECK: %[[T:.*]] = arith.remui %{{.*}}, %c128_i32
// CHECK: %[[REAL:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : i32
// CHECK: %[[LESS8:.*]] = arith.subi %[[N]], %c8_i32
// CHECK: %[[SECOND:.*]] = arith.cmpi slt, %{{.*}}, %[[LESS8]] : i32
// CHECK: %[[QUAD:.*]] = arith.remui %[[T]], %c4_i32
// CHECK: arith.select %[[REAL]], %[[T]], %[[QUAD]] : i32
// CHECK-NOT: scf.if
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-2: llvm.select %[[REAL]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-COUNT-2: llvm.select %[[SECOND]], %{{.*}}, %{{.*}} : i1, f32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-2: llvm.select %[[REAL]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-COUNT-2: llvm.select %[[SECOND]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NOT: llvm.load
warpspec.kernel @spill_fill_rows(%p: !warpspec.global<f32>, %q: !warpspec.global<f32>, %n: i32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 0 : i64, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x16xf32>
      warpspec.acc.spill %z, %p rows %n : !warpspec.acc<64x16xf32>, !warpspec.global<f32>
      %a = warpspec.acc.fill %p rows %n : !warpspec.global<f32> -> !warpspec.acc<64x16xf32>
      %r = warpspec.acc.row_reduce max %a : !warpspec.acc<64x16xf32> -> !warpspec.acc_rows<64xf32>
      warpspec.acc_rows.store %r, %q : !warpspec.acc_rows<64xf32>, !warpspec.global<f32>
    }
  }
  warpspec.return
}
}
}
