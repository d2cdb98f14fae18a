// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// acc.store into a 128B-swizzled BF16 tile whose rows (256 B) span two
// swizzle widths: the tile is two column panels of [64 rows, 128 B], the
// second 64 * 128 = 8192 bytes after the first (the SMEM of two TMA boxes of
// 64 columns). Inside a panel the row pitch is 128 B and address bits [4, 7)
// are XORed with bits [7, 10). Each thread stores 16 column groups x 2 row
// halves: groups 0..7 (16 stores) in panel 0, groups 8..15 in panel 1.

!out = !warpspec.smem<64x128xbf16, slots = 1, align = 1024, swizzle = 128>
!acc = !warpspec.acc<64x128xf32>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @two_panels
warpspec.kernel @two_panels()
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 17408 : i64, threads = 128 : i32} {
  %out = warpspec.smem.alloc "out" offset 0 : !out
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      warpspec.acc.store %z -> %out[%c0, %c0] : !acc, !out
    }
  }
  warpspec.return
}
}
}
// Panel 0, group 0, rows r0: off = r0 * 128 + col0 * 2 + 0, swizzled.
// CHECK: %[[ROWB:.*]] = arith.muli %{{.*}}, %c128_i32{{[_0-9]*}} : i32
// CHECK-NEXT: %[[OFF:.*]] = arith.addi %[[ROWB]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 7 : i32
// CHECK-NEXT: %[[HI:.*]] = arith.shrui %[[OFF]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 7 : i32
// CHECK-NEXT: %[[ROW8:.*]] = arith.andi %[[HI]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 4 : i32
// CHECK-NEXT: %[[X:.*]] = arith.shli %[[ROW8]], %{{.*}} : i32
// CHECK-NEXT: arith.xori %[[OFF]], %[[X]] : i32
// CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// No store of panel 0 adds a panel offset; the first of panel 1 (group 8)
// adds its 8192 bytes after the swizzle.
// CHECK-NOT: arith.constant 8192
// CHECK-COUNT-15: llvm.store %{{.*}} : vector<2xbf16>, !llvm.ptr<3>
// CHECK: arith.xori
// CHECK-NEXT: %[[PANEL:.*]] = arith.constant 8192 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[PANEL]] : i32
// CHECK-COUNT-16: llvm.store %{{.*}} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
