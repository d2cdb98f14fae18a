// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// warpspec.tile_loop k_split 4 tiles 99: with T = m_blocks * 16 tiles and
// G = nctaid.x CTAs, the r = T mod G tiles of the last wave are split when
// 0 < r, r * 4 <= 3 * G and r <= 99; the loop then runs the T - r whole
// tiles and r * 4 units after them. Iteration i: a unit when i >= T - r,
// u = i - (T - r), tile T - r + u / 4, unit argument u (else tile i, -1).

module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @split
// CHECK: %[[GRID:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.index_cast %[[GRID]] : i32 to index
// CHECK: %[[TILES:.*]] = arith.muli %{{.*}}, %c16{{.*}} : index
// CHECK: %[[T:.*]] = arith.maxsi %[[TILES]], %{{.*}} : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[T]], %[[STEP]] : index
// CHECK: %[[G3:.*]] = arith.muli %[[STEP]], %c3 : index
// CHECK: %[[R4:.*]] = arith.muli %[[R]], %c4 : index
// CHECK-NEXT: %[[FITS:.*]] = arith.cmpi ule, %[[R4]], %[[G3]] : index
// CHECK-NEXT: %[[C99:.*]] = arith.constant 99 : index
// CHECK-NEXT: %[[HELD:.*]] = arith.cmpi ule, %[[R]], %[[C99]] : index
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[FITS]], %[[HELD]] : i1
// CHECK: %[[ANY:.*]] = arith.cmpi ugt, %[[R]], %{{.*}} : index
// CHECK-NEXT: %[[SPLIT:.*]] = arith.andi %[[ANY]], %[[BOTH]] : i1
// CHECK-NEXT: %[[TR:.*]] = arith.subi %[[T]], %[[R]] : index
// CHECK-NEXT: %[[WHOLE:.*]] = arith.select %[[SPLIT]], %[[TR]], %[[T]] : index
// CHECK: %[[UNITS:.*]] = arith.muli %[[R]], %{{.*}} : index
// CHECK-NEXT: %[[END:.*]] = arith.addi %[[WHOLE]], %[[UNITS]] : index
// CHECK-NEXT: %[[ITERS:.*]] = arith.select %[[SPLIT]], %[[END]], %[[T]] : index
// CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %[[ITERS]] step %[[STEP]] {
// CHECK-NEXT: %[[ISUNIT:.*]] = arith.cmpi uge, %[[I]], %[[WHOLE]] : index
// CHECK-NEXT: %[[MAX:.*]] = arith.maxsi %[[I]], %[[WHOLE]] : index
// CHECK-NEXT: %[[U:.*]] = arith.subi %[[MAX]], %[[WHOLE]] : index
// CHECK: %[[UT:.*]] = arith.divui %[[U]], %{{.*}} : index
// CHECK-NEXT: %[[TU:.*]] = arith.addi %[[WHOLE]], %[[UT]] : index
// CHECK-NEXT: %[[TILE:.*]] = arith.select %[[ISUNIT]], %[[TU]], %[[I]] : index
// CHECK: %[[U32:.*]] = arith.index_cast %[[U]] : index to i32
// CHECK-NEXT: %[[UNIT:.*]] = arith.select %[[ISUNIT]], %[[U32]], %{{.*}} : i32
// The raster mapping of the tile, then the body with the unit.
// CHECK: arith.divui %[[TILE]], %{{.*}} : index
// CHECK: llvm.store %[[UNIT]]
// CHECK-NOT: warpspec.tile_loop
warpspec.kernel @split(%mb: i32, %out: !llvm.ptr<1>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 0 : i64, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      warpspec.tile_loop (%m, %n, %u) m_blocks(%mb) n_blocks 16 raster 16 k_split 4 tiles 99 {
        llvm.store %u, %out : i32, !llvm.ptr<1>
      }
    }
  }
  warpspec.return
}
}
}
