// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: rm -rf %t && megamoe-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// An A requantized per 64 channels has two scales per row and K block of
// 128 ([2, M] a_scales tiles): on sm_90a mma.block_scaled is then two
// rounds on one scratch accumulator, each over its 64 K (2 of the 4 wgmma
// k steps, the first with scale-d = 0), waited for and promoted with its
// own group's row scales, read before its MMA (the second group's 64 floats after the first's:
// byte offset 256 into the slot), the first round's promotion fenced before
// the second round's wgmma reuses the scratch registers.

!tile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<2x64xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x64xf32>
!out = !warpspec.smem<64x64xf32, slots = 1, align = 1024>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @block_scaled_groups
// Round 1: group 0's row scales (read before its MMA): slot 1 (512 bytes per
// [2, 64] slot), rows r0, r0 + 8.
// CHECK: arith.constant 512 : i32
// CHECK-NOT: arith.constant 64 : i32
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// K steps 0 and 1 (offsets 0 and 2), the first with scale-d = 0.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: llvm.load
// CHECK-COUNT-32: llvm.intr.fma
// The promotion is fenced before the second round reuses the scratch.
// CHECK: llvm.inline_asm has_side_effects "", "=f,0"
// Round 2: group 1's row scales, 64 floats into the slot, then K steps 2
// and 3 (offsets 4 and 6), scratch discarded (scale-d 0).
// CHECK: arith.constant 512 : i32
// CHECK: %[[G1:.*]] = arith.constant 64 : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[G1]] : i32
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant 4 : i32
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK: arith.constant 6 : i32
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: llvm.load
// CHECK-COUNT-32: llvm.intr.fma
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK-NOT: warpspec.
warpspec.kernel @block_scaled_groups(%s0: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 40960 : i64, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %b = warpspec.smem.alloc "b" offset 16384 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 32768 : !sfa
  %out = warpspec.smem.alloc "out" offset 33792 : !out
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t = warpspec.mma.block_scaled %a, %b stage %c1 row %c0 a_scales %sfa b_scales %s0 into %z : !tile, !tile, !sfa, !acc
      warpspec.acc.store %t -> %out[%c0, %c0] : !acc, !out
    }
  }
  warpspec.return
}

// `a_scale_groups 1` on the same [2, 64] tile (the fused kernel's L1 on a
// ring whose slots hold L2's two groups): one round over all of K (4 k
// steps, one wait), one promotion with the slot's first row of scales (no
// 64-float offset).
// CHECK-LABEL: llvm.func @block_scaled_first_group
// CHECK: arith.constant 512 : i32
// CHECK-NOT: arith.constant 64 : i32
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: llvm.load
// CHECK-COUNT-32: llvm.intr.fma
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK-NOT: llvm.intr.fma
// CHECK: llvm.return
warpspec.kernel @block_scaled_first_group(%s0: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 40960 : i64, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %b = warpspec.smem.alloc "b" offset 16384 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 32768 : !sfa
  %out = warpspec.smem.alloc "out" offset 33792 : !out
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t = warpspec.mma.block_scaled %a, %b stage %c1 row %c0 a_scales %sfa b_scales %s0 a_scale_groups 1 into %z : !tile, !tile, !sfa, !acc
      warpspec.acc.store %t -> %out[%c0, %c0] : !acc, !out
    }
  }
  warpspec.return
}
}
}
