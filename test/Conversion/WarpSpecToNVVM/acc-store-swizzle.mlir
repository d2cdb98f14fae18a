// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: warpspec-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// acc.store of a b16 tile: one stmatrix.m8n8.x4 per two 8-column groups
// stores a warp's 16 rows x 16 columns as four 8x8 matrices (rows 0-7 /
// 8-15 of group j, then of group j+1: fragment elements 4j..4j+7 in order).
// Lane t addresses row t % 8 of matrix t / 8: warp row (lane & 15), byte
// column 16 * j + (lane & 16). f32 tiles keep 8-byte stores of pairs.

!out = !warpspec.smem<64x128xbf16, slots = 1, align = 1024, swizzle = 128>
!acc = !warpspec.acc<64x128xf32>
!out24 = !warpspec.smem<64x24xf16, slots = 1, align = 16>
!acc24 = !warpspec.acc<64x24xf32>
!out32 = !warpspec.smem<64x32xf32, slots = 1, align = 1024, swizzle = 128>
!acc32 = !warpspec.acc<64x32xf32>
!outf32 = !warpspec.smem<64x128xf32, slots = 1, align = 1024, swizzle = 128>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {

// A 128B-swizzled BF16 tile whose rows (256 B) span two swizzle widths: two
// column panels of [64 rows, 128 B], the second 64 * 128 = 8192 bytes after
// the first (the SMEM of two TMA boxes of 64 columns). Inside a panel the
// row pitch is 128 B and address bits [4, 7) are XORed with bits [7, 10).
// The per-lane base is row * 128 + ((lane & 16) ^ swizzle(row * 128)); the
// stores of groups j = 2, 4, 6 XOR in their column 32 * (j / 2) (disjoint
// from lane & 16), those of groups 8..14 (panel 1) add 8192.
// CHECK-LABEL: llvm.func @two_panels
// CHECK: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT: %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT: %[[ROW16:.*]] = arith.andi %[[LANE]], %[[C15]] : i32
// CHECK-NEXT: %[[WROW:.*]] = arith.addi %{{.*}}, %[[ROW16]] : i32
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[WROW]], %{{.*}} : i32
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : i32
// CHECK-NEXT: %[[ROWB:.*]] = arith.muli %[[ROW]], %[[C128]] : i32
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: %[[LCOL:.*]] = arith.andi %[[LANE]], %[[C16]] : i32
// CHECK-NEXT: arith.constant 7 : i32
// CHECK-NEXT: %[[HI:.*]] = arith.shrui %[[ROWB]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 7 : i32
// CHECK-NEXT: %[[ROW8:.*]] = arith.andi %[[HI]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 4 : i32
// CHECK-NEXT: %[[X:.*]] = arith.shli %[[ROW8]], %{{.*}} : i32
// CHECK-NEXT: %[[SWCOL:.*]] = arith.xori %[[LCOL]], %[[X]] : i32
// CHECK-NEXT: %[[BASE:.*]] = arith.addi %[[ROWB]], %[[SWCOL]] : i32
// Group pair (0, 1): elements 0..7 as four packed bf16 pairs.
// CHECK: llvm.extractvalue %{{.*}}[0]
// CHECK: %[[R0:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.extractvalue %{{.*}}[2]
// CHECK: %[[R1:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.extractvalue %{{.*}}[4]
// CHECK: %[[R2:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: llvm.extractvalue %{{.*}}[6]
// CHECK: %[[R3:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %{{.*}}[%[[BASE]]]
// CHECK-NEXT: nvvm.stmatrix %[[P0]], %[[R0]], %[[R1]], %[[R2]], %[[R3]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[OFF1:.*]] = arith.xori %[[BASE]], %[[C32]] : i32
// CHECK: llvm.extractvalue %{{.*}}[8]
// CHECK: %[[P1:.*]] = llvm.getelementptr %{{.*}}[%[[OFF1]]]
// CHECK-NEXT: nvvm.stmatrix %[[P1]]
// CHECK: arith.constant 64 : i32
// CHECK-NEXT: arith.xori %[[BASE]]
// CHECK: nvvm.stmatrix
// CHECK: arith.constant 96 : i32
// CHECK-NEXT: arith.xori %[[BASE]]
// CHECK: nvvm.stmatrix
// No store of panel 0 adds a panel offset; group pair (8, 9) starts panel 1.
// CHECK-NOT: arith.constant 8192
// CHECK: %[[PANEL:.*]] = arith.constant 8192 : i32
// CHECK-NEXT: %[[OFF4:.*]] = arith.addi %[[BASE]], %[[PANEL]] : i32
// CHECK: llvm.extractvalue %{{.*}}[32]
// CHECK: llvm.getelementptr %{{.*}}[%[[OFF4]]]
// CHECK-NEXT: nvvm.stmatrix
// CHECK-COUNT-3: nvvm.stmatrix {{.*}} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store
// CHECK: llvm.return
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

// An unswizzled F16 tile of 3 column groups (48-byte rows): base =
// row * 48 + (lane & 16); groups (0, 1) by one x4, the odd group 2 by an
// x2 at byte column 32 (lanes 0-15 address its two 8x8 matrices).
// CHECK-LABEL: llvm.func @odd_groups
// CHECK: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK: %[[C48:.*]] = arith.constant 48 : i32
// CHECK-NEXT: %[[ROWB:.*]] = arith.muli %{{.*}}, %[[C48]] : i32
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: %[[LCOL:.*]] = arith.andi %[[LANE]], %[[C16]] : i32
// CHECK-NEXT: %[[BASE:.*]] = arith.addi %[[ROWB]], %[[LCOL]] : i32
// CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK: llvm.getelementptr %{{.*}}[%[[BASE]]]
// CHECK-NEXT: nvvm.stmatrix {{.*}} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[OFF:.*]] = arith.addi %[[BASE]], %[[C32]] : i32
// CHECK: llvm.extractvalue %{{.*}}[8]
// CHECK: llvm.extractvalue %{{.*}}[11]
// CHECK: llvm.getelementptr %{{.*}}[%[[OFF]]]
// CHECK-NEXT: nvvm.stmatrix {{.*}} : !llvm.ptr<3>, i32, i32
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.return
warpspec.kernel @odd_groups()
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 6144 : i64, threads = 128 : i32} {
  %out = warpspec.smem.alloc "out" offset 0 : !out24
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc24
      warpspec.acc.store %z -> %out[%c0, %c0] : !acc24, !out24
    }
  }
  warpspec.return
}

// F32 keeps one 8-byte store per fragment pair: 4 groups x 2 row halves,
// each at row * 128 + col0 * 4 + 32 * j, swizzled.
// CHECK-LABEL: llvm.func @f32_pairs
// CHECK-NOT: nvvm.stmatrix
// CHECK: arith.xori
// CHECK-COUNT-8: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK-NOT: nvvm.stmatrix
// CHECK: llvm.return
warpspec.kernel @f32_pairs()
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 9216 : i64, threads = 128 : i32} {
  %out = warpspec.smem.alloc "out" offset 0 : !out32
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc32
      warpspec.acc.store %z -> %out[%c0, %c0] : !acc32, !out32
    }
  }
  warpspec.return
}

// An F32 tile of 128 columns (512-byte rows) under the 128B swizzle: four
// panels of 32 columns ([64 rows, 128 B] = 8192 B each, the SMEM of four TMA
// boxes of 32 x 64). Column group j (32 bytes) lies in panel j / 4 at byte
// column 32 * (j % 4); each pair store is 8 bytes, swizzled inside its panel,
// then moved by the panel's 8192 * (j / 4).
// CHECK-LABEL: llvm.func @f32_panels
// CHECK-NOT: nvvm.stmatrix
// CHECK-COUNT-8: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: %[[P1:.*]] = arith.constant 8192 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[P1]] : i32
// CHECK-COUNT-8: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: %[[P2:.*]] = arith.constant 16384 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[P2]] : i32
// CHECK-COUNT-8: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: %[[P3:.*]] = arith.constant 24576 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[P3]] : i32
// CHECK-COUNT-8: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: llvm.return
warpspec.kernel @f32_panels()
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 33792 : i64, threads = 128 : i32} {
  %out = warpspec.smem.alloc "out" offset 0 : !outf32
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      warpspec.acc.store %z -> %out[%c0, %c0] : !acc, !outf32
    }
  }
  warpspec.return
}
}
}

// PTX-LABEL: .entry two_panels(
// PTX-COUNT-8: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-NOT: stmatrix
// PTX-NOT: st.shared
// PTX-LABEL: .entry odd_groups(
// PTX: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: stmatrix.sync.aligned.m8n8.x2.shared.b16
// PTX-NOT: stmatrix
// PTX-LABEL: .entry f32_pairs(
// PTX-NOT: stmatrix
// PTX-COUNT-8: st.shared.v2.b32
// PTX-LABEL: .entry f32_panels(
// PTX-NOT: stmatrix
// PTX-COUNT-32: st.shared.v2.b32
// PTX-NOT: st.shared
