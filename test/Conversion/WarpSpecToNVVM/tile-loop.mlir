// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// warpspec.tile_loop lowers to the persistent loop over this CTA's tiles:
// t = ctaid.x, ctaid.x + nctaid.x, ... < m_blocks * n_blocks; raster g =
// t / (m_blocks * R), i = t % (m_blocks * R), m-block i / R, n-block
// g * R + i % R (R = raster = 8). The body is inlined with the block
// arguments replaced.

module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @tiles
// CHECK-SAME: (%[[MB:.*]]: i32, %[[OUT:.*]]: !llvm.ptr<1>)
// CHECK: %[[CTA:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: %[[FIRST:.*]] = arith.index_cast %[[CTA]] : i32 to index
// CHECK-NEXT: %[[GRID:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.index_cast %[[GRID]] : i32 to index
// CHECK-NEXT: %[[M:.*]] = arith.index_cast %[[MB]] : i32 to index
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[TILES:.*]] = arith.muli %[[M]], %[[C32]] : index
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[PER:.*]] = arith.muli %[[M]], %[[C8]] : index
// CHECK-NEXT: scf.for %[[T:.*]] = %[[FIRST]] to %[[TILES]] step %[[STEP]] {
// CHECK-NEXT: %[[R:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[G:.*]] = arith.divui %[[T]], %[[PER]] : index
// CHECK-NEXT: %[[I:.*]] = arith.remui %[[T]], %[[PER]] : index
// CHECK-NEXT: %[[MBLK:.*]] = arith.divui %[[I]], %[[R]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[I]], %[[R]] : index
// CHECK-NEXT: %[[G8:.*]] = arith.muli %[[G]], %[[R]] : index
// CHECK-NEXT: %[[NBLK:.*]] = arith.addi %[[G8]], %[[IN]] : index
// CHECK-NEXT: arith.index_cast %[[MBLK]] : index to i32
// CHECK-NEXT: arith.index_cast %[[NBLK]] : index to i32
// CHECK: llvm.store
// CHECK-NEXT: }
// CHECK-NOT: warpspec.tile_loop
warpspec.kernel @tiles(%mb: i32, %out: !llvm.ptr<1>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 0 : i64, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 {
        %mi = arith.index_cast %m : index to i32
        %ni = arith.index_cast %n : index to i32
        %x = arith.addi %mi, %ni : i32
        llvm.store %x, %out : i32, !llvm.ptr<1>
      }
    }
  }
  warpspec.return
}

// A raster that does not divide n_blocks: 22 n-blocks in rasters of 8 are
// two full rasters and a last one of W = 6 n-blocks. Its tiles start at
// m_blocks * 8 * 2; there tile i = t - that is m-block i / 6, n-block
// 16 + i % 6.
// CHECK-LABEL: llvm.func @tail
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: arith.divui %[[T]], %[[PER:.*]] : index
// CHECK-NEXT: %[[I0:.*]] = arith.remui %[[T]], %[[PER]] : index
// CHECK-NEXT: %[[MBLK:.*]] = arith.divui %[[I0]], %{{.*}} : index
// CHECK-NEXT: arith.remui %[[I0]]
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %[[NBLK:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[FULL:.*]] = arith.muli %[[PER]], %[[C2]] : index
// CHECK-NEXT: %[[IN_TAIL:.*]] = arith.cmpi uge, %[[T]], %[[FULL]] : index
// CHECK-NEXT: %[[I:.*]] = arith.subi %[[T]], %[[FULL]] : index
// CHECK-NEXT: %[[W:.*]] = arith.constant 6 : index
// CHECK-NEXT: %[[TM:.*]] = arith.divui %[[I]], %[[W]] : index
// CHECK-NEXT: %[[TI:.*]] = arith.remui %[[I]], %[[W]] : index
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[TN:.*]] = arith.addi %[[C16]], %[[TI]] : index
// CHECK-NEXT: %[[M:.*]] = arith.select %[[IN_TAIL]], %[[TM]], %[[MBLK]] : index
// CHECK-NEXT: %[[N:.*]] = arith.select %[[IN_TAIL]], %[[TN]], %[[NBLK]] : index
// CHECK-NEXT: arith.index_cast %[[M]] : index to i32
// CHECK-NEXT: arith.index_cast %[[N]] : index to i32
warpspec.kernel @tail(%mb: i32, %out: !llvm.ptr<1>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 0 : i64, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 22 raster 8 {
        %mi = arith.index_cast %m : index to i32
        %ni = arith.index_cast %n : index to i32
        %x = arith.addi %mi, %ni : i32
        llvm.store %x, %out : i32, !llvm.ptr<1>
      }
    }
  }
  warpspec.return
}
}
}
