// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// warpspec.wave_loop lowers to the persistent loop over this CTA's tiles,
// t = ctaid.x, ctaid.x + nctaid.x, ... < max(m_blocks, 0) * (16 + 32),
// carrying (segment, the segment's first tile) from tile to tile: a while
// loop moves to the segment that holds t (t >= start + the segment's
// tiles), whose tiles are its wave's m-blocks (min(max(M - 8 w, 0), 8)) x
// its phase's n-blocks. Segment k <= lag (1) is phase 0 of wave k; after
// them j = k - 2 alternates phase 1 of wave j / 2 (even j) and phase 0 of
// wave 2 + j / 2. The phase is the segment's (index_castui of an i1), the
// m-block 8 w + the segment's raster m-block.

module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @waves
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[M:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK: %[[C48:.*]] = arith.constant 48 : index
// CHECK: %[[TILES:.*]] = arith.muli %[[M]], %[[C48]] : index
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[TILES]] step %{{.*}} iter_args(%[[K0:.*]] = %[[ZERO]], %[[S0:.*]] = %{{.*}}) -> (index, index) {
// CHECK: %[[WALK:.*]]:2 = scf.while (%[[K:.*]] = %[[K0]], %[[S:.*]] = %[[S0]]) : (index, index) -> (index, index) {
// CHECK: arith.cmpi ule, %[[K]], %{{.*}} : index
// CHECK: arith.minsi
// CHECK: %[[END:.*]] = arith.addi %[[S]], %{{.*}} : index
// CHECK: %[[PAST:.*]] = arith.cmpi uge, %[[T]], %[[END]] : index
// CHECK: scf.condition(%[[PAST]]) %[[K]], %[[S]] : index, index
// CHECK: } do {
// CHECK: ^bb0(%[[K1:.*]]: index, %[[S1:.*]]: index):
// CHECK: arith.addi %[[K1]], %{{.*}} : index
// CHECK: scf.yield
// CHECK: }
// CHECK: arith.subi %[[T]], %[[WALK]]#1 : index
// CHECK: %[[PHASE:.*]] = arith.index_castui %{{.*}} : i1 to index
// CHECK: arith.index_cast %[[PHASE]] : index to i32
// CHECK: llvm.store
// CHECK: scf.yield %[[WALK]]#0, %[[WALK]]#1 : index, index
// CHECK-NOT: warpspec.wave_loop
warpspec.kernel @waves(%mb: i32, %out: !llvm.ptr<1>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 0 : i64, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32] raster [16, 8] wave 8 lag 1 {
        %pi = arith.index_cast %p : index to i32
        %mi = arith.index_cast %m : index to i32
        %ni = arith.index_cast %n : index to i32
        %x = arith.addi %mi, %ni : i32
        %y = arith.addi %x, %pi : i32
        llvm.store %y, %out : i32, !llvm.ptr<1>
      }
    }
  }
  warpspec.return
}
}
}
