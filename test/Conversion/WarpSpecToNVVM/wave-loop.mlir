// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// warpspec.wave_loop lowers to the persistent loop over this CTA's tiles,
// t = ctaid.x, ctaid.x + nctaid.x, ... < max(m_blocks, 0) * (16 + 32), each
// tile's (phase, m-block, n-block) computed in closed form from t and M in
// i32 (megamoe/Conversion/WarpSpecToNVVM/TileOrder.h, whose arithmetic the
// unit test TileOrder.* checks against the op's stated order). Here W = 8,
// lag 1: G - 1 = (M - 1) / 8, P = (G - 1) * 128 + (max(G - 1, 1) - 1) * 256,
// the head is the first (lag + 1) * 128 = 256 tiles. M is read through an
// opaque move inside the loop (nothing derived from it is hoisted), and so
// are the three coordinates.

module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @waves
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[M:.*]] = arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK: %[[C48:.*]] = arith.constant 48 : i32
// CHECK: %[[TILES:.*]] = arith.muli %[[M]], %[[C48]] : i32
// CHECK: %[[UB:.*]] = arith.index_cast %[[TILES]] : i32 to index
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[UB]] step %{{.*}} {
// CHECK: %[[T32:.*]] = arith.index_castui %[[T]] : index to i32
// CHECK: %[[MO:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r" %[[M]] : (i32) -> i32
// CHECK: %[[GM1:.*]] = arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: arith.maxui %[[GM1]]
// CHECK: %[[P:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: %[[BEFORE:.*]] = arith.cmpi ult, %[[T32]], %[[P]] : i32
// CHECK: scf.if %[[BEFORE]] -> (i32, i32, i32) {
// CHECK: %[[C256:.*]] = arith.constant 256 : i32
// CHECK: arith.cmpi ult, %[[T32]], %[[C256]] : i32
// CHECK: } else {
// CHECK: scf.yield
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (i32, i32, i32) {
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// CHECK: %[[PHASE:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// CHECK: arith.index_cast %[[PHASE]] : index to i32
// CHECK: llvm.store
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
