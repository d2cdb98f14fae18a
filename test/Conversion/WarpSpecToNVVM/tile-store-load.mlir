// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: rm -rf %t && megamoe-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// The epilogue tile ops and SMEM views. A 128B-swizzled [128, 128] bf16 tile
// is two column panels of [128 rows, 128 B] (16384 B each):
// - tile.store of rows [64, 128): one TMA store per panel, from slot + 64 *
//   128 + p * 16384, to column n0 + 64 p, each by lane 0 with its commit;
// - tile.load of chunk c of row r (through an fp8 view of the same bytes):
//   panel c / 8, offset r * 128 + 16 (c % 8), XORed with the 128B swizzle
//   ((offset >> 7) & 7) << 4, plus 16384 per panel;
// - a row r + 8 keeps the swizzle pattern: the address of r plus 1024 B.
// - the view is the allocation's own address (offset 1024).

!dtile = !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>
!f8 = !warpspec.smem<128x256xf8E4M3FN, slots = 1, align = 1024, swizzle = 128>
!panel = !warpspec.tma_desc<64x64xbf16, swizzle = 128>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @tiles
// CHECK-SAME: (%{{[^:]*}}: !llvm.ptr {{.*}}, %[[N0:[^:]*]]: i32, %[[M0:[^:]*]]: i32, %[[ROW:[^:]*]]: i32, %[[CHUNK:[^:]*]]: i32
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @__dynamic_smem
// CHECK-NEXT: %[[TILE:.*]] = llvm.getelementptr %[[BASE]][1024]
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[TILE]][%{{.*}}]
// CHECK: %[[ROWB:.*]] = arith.muli %{{.*}}, %c128_i32 : i32
// CHECK: %[[P0:.*]] = arith.addi %[[ROWB]], %c0_i32{{.*}} : i32
// CHECK-NEXT: %[[SRC0:.*]] = llvm.getelementptr %[[SLOT]][%[[P0]]]
// CHECK: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %[[SRC0]], box[%[[N0]], %[[M0]]]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: %[[P1:.*]] = arith.addi %[[ROWB]], %c16384_i32 : i32
// CHECK-NEXT: %[[SRC1:.*]] = llvm.getelementptr %[[SLOT]][%[[P1]]]
// CHECK-NEXT: %c64_i32 = arith.constant 64 : i32
// CHECK-NEXT: %[[N1:.*]] = arith.addi %[[N0]], %c64_i32 : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %[[SRC1]], box[%[[N1]], %[[M0]]]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: %[[IN:.*]] = arith.remui %[[CHUNK]], %c8_i32{{.*}} : i32
// CHECK-NEXT: %c8_i32{{.*}} = arith.constant 8 : i32
// CHECK-NEXT: %[[PANEL:.*]] = arith.divui %[[CHUNK]], %c8_i32{{.*}} : i32
// CHECK-NEXT: %c16_i32 = arith.constant 16 : i32
// CHECK-NEXT: %[[INB:.*]] = arith.muli %[[IN]], %c16_i32 : i32
// CHECK-NEXT: %c128_i32{{.*}} = arith.constant 128 : i32
// CHECK-NEXT: %[[RB:.*]] = arith.muli %[[ROW]], %c128_i32{{.*}} : i32
// CHECK-NEXT: %[[OFF:.*]] = arith.addi %[[RB]], %[[INB]] : i32
// CHECK-NEXT: %c7_i32 = arith.constant 7 : i32
// CHECK-NEXT: %[[HI:.*]] = arith.shrui %[[OFF]], %c7_i32 : i32
// CHECK-NEXT: %c7_i32{{.*}} = arith.constant 7 : i32
// CHECK-NEXT: %[[PH:.*]] = arith.andi %[[HI]], %c7_i32{{.*}} : i32
// CHECK-NEXT: %c4_i32{{.*}} = arith.constant 4 : i32
// CHECK-NEXT: %[[SWZ:.*]] = arith.shli %[[PH]], %c4_i32{{.*}} : i32
// CHECK-NEXT: %[[X:.*]] = arith.xori %[[OFF]], %[[SWZ]] : i32
// CHECK-NEXT: %c16384_i32{{.*}} = arith.constant 16384 : i32
// CHECK-NEXT: %[[PB:.*]] = arith.muli %[[PANEL]], %c16384_i32{{.*}} : i32
// CHECK-NEXT: %[[FINAL:.*]] = arith.addi %[[X]], %[[PB]] : i32
// CHECK: %[[VSLOT:.*]] = llvm.getelementptr %[[TILE]][%{{.*}}]
// CHECK-NEXT: %[[A0:.*]] = llvm.getelementptr %[[VSLOT]][%[[FINAL]]]
// CHECK-NEXT: llvm.load %[[A0]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// The row + 8 load: the same swizzled offset of %row, then 8 rows later.
// CHECK: arith.muli %[[ROW]], %c128_i32{{.*}} : i32
// CHECK: llvm.getelementptr %[[TILE]][%{{.*}}]
// CHECK-NEXT: %[[A1:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}]
// CHECK-NEXT: %[[A1B:.*]] = llvm.getelementptr %[[A1]][1024]
// CHECK-NEXT: llvm.load %[[A1B]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
warpspec.kernel @tiles(%dd: !panel, %n0: i32, %m0: i32, %row: i32, %chunk: i32, %out: !llvm.ptr<1>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 33792 : i64, threads = 128 : i32} {
  %d = warpspec.smem.alloc "d" offset 1024 : !dtile
  %v = warpspec.smem.view %d : !dtile -> !f8
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c8 = arith.constant 8 : i32
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      warpspec.tile.store %d[%c0, %c64] rows 64 -> %dd[%n0, %m0] : !dtile, !panel
      %x = warpspec.tile.load %v[%c0, %row, %chunk] : !f8 -> vector<4xi32>
      %r8 = arith.addi %row, %c8 : i32
      %y = warpspec.tile.load %v[%c0, %r8, %chunk] : !f8 -> vector<4xi32>
      %s = arith.addi %x, %y : vector<4xi32>
      llvm.store %s, %out : vector<4xi32>, !llvm.ptr<1>
    }
  }
  warpspec.return
}
}
}
