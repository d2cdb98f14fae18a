// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: rm -rf %t && megamoe-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// A tile of two column blocks (BLOCK_N 256) is two mma.block_scaled of one
// stage and the same rows: the second reads no row scales of its own, it
// promotes with the first's (two SMEM loads per K block, not four). An MMA
// of another stage, or one after a consumer release (the stage may be
// refilled), reads its own. With per-64 A scales (two groups per K block)
// each group's pair is shared: 4 loads for two column blocks, not 8.

!tile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<64xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x64xf32>
!out = !warpspec.smem<64x64xf32, slots = 1, align = 1024>
!pipe = !warpspec.pipeline<2>
!sfa2 = !warpspec.smem<2x64xf32, slots = 2, align = 128>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @two_blocks
// CHECK: %[[SA0:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[SA1:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: arith.mulf %[[SA0]], %{{.*}} : f32
// CHECK-NOT: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: arith.mulf %[[SA0]], %{{.*}} : f32
// CHECK-NEXT: arith.mulf %[[SA1]], %{{.*}} : f32
// Stage 0: its own row scales.
// CHECK: %[[SB0:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[SB1:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: arith.mulf %[[SB0]], %{{.*}} : f32
// After the release: stage 0's again, read anew.
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
warpspec.kernel @two_blocks(%s0: f32, %s1: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 65536 : i64, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %b0 = warpspec.smem.alloc "b0" offset 16384 : !tile
  %b1 = warpspec.smem.alloc "b1" offset 32768 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 49152 : !sfa
  %out = warpspec.smem.alloc "out" offset 50176 : !out
  %ring = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 4 buffers(%a : !tile) offset 63488 : !pipe
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t0 = warpspec.mma.block_scaled %a, %b0 stage %c1 row %c0 a_scales %sfa b_scales %s0 into %z : !tile, !tile, !sfa, !acc
      %t1 = warpspec.mma.block_scaled %a, %b1 stage %c1 row %c0 a_scales %sfa b_scales %s1 into %z : !tile, !tile, !sfa, !acc
      %t2 = warpspec.mma.block_scaled %a, %b0 stage %c0 row %c0 a_scales %sfa b_scales %s0 into %t0 : !tile, !tile, !sfa, !acc
      warpspec.consumer.release %ring[%c0] reads_retired : !pipe
      %t3 = warpspec.mma.block_scaled %a, %b1 stage %c0 row %c0 a_scales %sfa b_scales %s1 into %t1 : !tile, !tile, !sfa, !acc
      warpspec.acc.store %t2 -> %out[%c0, %c0] : !acc, !out
      warpspec.acc.store %t3 -> %out[%c0, %c0] : !acc, !out
    }
  }
  warpspec.return
}

// CHECK-LABEL: llvm.func @two_blocks_two_groups
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.return
warpspec.kernel @two_blocks_two_groups(%s0: f32, %s1: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 65536 : i64, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %b0 = warpspec.smem.alloc "b0" offset 16384 : !tile
  %b1 = warpspec.smem.alloc "b1" offset 32768 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 49152 : !sfa2
  %out = warpspec.smem.alloc "out" offset 50176 : !out
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t0 = warpspec.mma.block_scaled %a, %b0 stage %c1 row %c0 a_scales %sfa b_scales %s0 into %z : !tile, !tile, !sfa2, !acc
      %t1 = warpspec.mma.block_scaled %a, %b1 stage %c1 row %c0 a_scales %sfa b_scales %s1 into %z : !tile, !tile, !sfa2, !acc
      warpspec.acc.store %t0 -> %out[%c0, %c0] : !acc, !out
      warpspec.acc.store %t1 -> %out[%c0, %c0] : !acc, !out
    }
  }
  warpspec.return
}
}
}
