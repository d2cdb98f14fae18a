// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// mma.block_scaled with an issue turn (turn %mine pass %next) on sm_90a: the
// warpgroup waits for its turn (the non-aligned barrier.sync of a barrier
// two roles share), issues its wgmma group, passes the turn (bar.arrive on
// the other's barrier) and only then waits for the group and promotes it.

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!btile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x64xf32>
!out = !warpspec.smem<128x64xf32, slots = 1, align = 1024>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @turns
// CHECK: %[[ID1:.*]] = arith.constant 1 : i32
// CHECK: %[[ID2:.*]] = arith.constant 2 : i32
// math0: its turn (barrier 1), the group, the turn passed (barrier 2), the
// wait, the promotion; then the extra turn after its last MMA.
// CHECK: nvvm.inline_ptx "barrier.sync $0, $1;" ro(%[[ID1]], %{{.*}} : i32, i32)
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %[[ID2]]
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.intr.fma
// CHECK: nvvm.inline_ptx "barrier.sync $0, $1;" ro(%[[ID1]], %{{.*}} : i32, i32)
// math1: hands over the first turn, then waits on barrier 2 and passes to 1.
// CHECK: nvvm.barrier.arrive id = %[[ID1]]
// CHECK: nvvm.inline_ptx "barrier.sync $0, $1;" ro(%[[ID2]], %{{.*}} : i32, i32)
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %[[ID1]]
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
warpspec.kernel @turns(%s0: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 82944 : i64, threads = 256 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %b = warpspec.smem.alloc "b" offset 32768 : !btile
  %sfa = warpspec.smem.alloc "sfa" offset 49152 : !sfa
  %out = warpspec.smem.alloc "out" offset 50176 : !out
  %t0 = warpspec.named_barrier 1 roles ["math0", "math1"]
  %t1 = warpspec.named_barrier 2 roles ["math0", "math1"]
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  warpspec.roles {
    warpspec.role "math0" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t = warpspec.mma.block_scaled %a, %b stage %c1 row %c0 a_scales %sfa b_scales %s0 turn %t0 pass %t1 into %z : !tile, !btile, !sfa, !acc
      warpspec.acc.store %t -> %out[%c0, %c0] : !acc, !out
      warpspec.barrier.sync %t0
    }
    warpspec.role "math1" warps [4, 8) regs 168 mma {
      warpspec.barrier.arrive %t0
      %z = warpspec.acc.zero : !acc
      %t = warpspec.mma.block_scaled %a, %b stage %c1 row %c64 a_scales %sfa b_scales %s0 turn %t1 pass %t0 into %z : !tile, !btile, !sfa, !acc
      warpspec.acc.store %t -> %out[%c0, %c64] : !acc, !out
    }
  }
  warpspec.return
}
}
}
