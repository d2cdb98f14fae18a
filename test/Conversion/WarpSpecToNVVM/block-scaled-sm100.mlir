// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(warpspec-plan-smem, convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: rm -rf %t && megamoe-opt %s --megamoe-to-cubin="chip=sm_100a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: %ptxas -arch=sm_100a -v %t/k.ptx -o %t/k.again.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// REQUIRES: ptxas

// On sm_100a one K block of mma.block_scaled (recipe (b), docs/SM100.md):
// warp 0 allocates the TMEM columns of the kernel's MMA warpgroups (here one
// warpgroup of 64 columns, allocated as 64) before the roles and frees them
// after; per K block the warpgroup syncs on its named barrier (1: the
// lowest id the kernel does not declare), thread 0 of the warpgroup issues
// K / 32 = 4 tcgen05.mma kind::f8f6f4 (M = 64, N = 64: idesc = 1 << 4 |
// 8 << 17 | 4 << 24 = 68157456; only the first overwrites the partial) and
// commits them to the warpgroup's mbarrier; everyone waits on it, loads the
// partial with tcgen05.ld.16x256b.x8 (32 registers: the wgmma fragment of
// 64x64) and promotes it exactly as on sm_90a.

!tile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<64xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x64xf32>
!out = !warpspec.smem<64x64xf32, slots = 1, align = 1024>
!b192 = !warpspec.smem<192x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!acc192 = !warpspec.acc<64x192xf32>
!out192 = !warpspec.smem<64x192xf32, slots = 1, align = 1024>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx88", O = 3>] {
// CHECK-LABEL: llvm.func @block_scaled
// CHECK-SAME: (%[[S0:.*]]: f32, %[[S1:.*]]: f32)
// CHECK: scf.if
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[ID:.*]] = arith.addi %{{.*}}, %[[C1]] : i32
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : i32
// CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %[[C128]]
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: %[[IDESC:.*]] = arith.constant 68157456 : i32
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]], %false {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f8f6f4>}
// CHECK-COUNT-3: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]], %true
// CHECK-NEXT: nvvm.tcgen05.commit
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<32xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <load>
// CHECK: %[[SA0:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: %[[SA1:.*]] = llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[P00:.*]] = arith.mulf %[[SA0]], %[[S0]] : f32
// CHECK-COUNT-2: llvm.intr.fma(%{{.*}}, %[[P00]], %{{.*}})
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %{{.*}} : !llvm.ptr<6>, i32
// CHECK-NOT: warpspec.

// PTX: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [__dynamic_smem+{{[0-9]+}}], %r{{[0-9]+}};
// PTX: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// PTX: bar.sync 1, 128;
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::f8f6f4
// PTX: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX: tcgen05.ld.sync.aligned.16x256b.x8.b32
// PTX: tcgen05.wait::ld.sync.aligned;
// PTX: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: used 2 barriers

// A width that is not a power of two of 8-column groups (192 = 16 + 8
// groups) is loaded by one x16 and one x8 tcgen05.ld (.num must be a power
// of two); 192 columns are allocated as 256.
// PTX-LABEL: .entry block_scaled_192(
// PTX: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// PTX: tcgen05.mma.cta_group::1.kind::f8f6f4
// PTX: tcgen05.ld.sync.aligned.16x256b.x16.b32
// PTX: tcgen05.ld.sync.aligned.16x256b.x8.b32
// PTX: tcgen05.wait::ld.sync.aligned;
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// CHECK-LABEL: llvm.func @block_scaled_192
// CHECK: %[[C256:.*]] = arith.constant 256 : i32
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %[[C256]]
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<32xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <load>
warpspec.kernel @block_scaled(%s0: f32, %s1: f32)
    attributes {chip = "sm_100a", maxnreg = 168 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %b = warpspec.smem.alloc "b" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %out = warpspec.smem.alloc "out" : !out
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t = warpspec.mma.block_scaled %a, %b stage %c1 row %c0 a_scales %sfa b_scales %s0, %s1 b_scale_map affine_map<(c) -> ((c floordiv 8) mod 2)> into %z : !tile, !tile, !sfa, !acc
      warpspec.acc.store %t -> %out[%c0, %c0] : !acc, !out
    }
  }
  warpspec.return
}
warpspec.kernel @block_scaled_192(%s0: f32)
    attributes {chip = "sm_100a", maxnreg = 248 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %b = warpspec.smem.alloc "b" : !b192
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %out = warpspec.smem.alloc "out" : !out192
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 248 mma {
      %z = warpspec.acc.zero : !acc192
      %t = warpspec.mma.block_scaled %a, %b stage %c0 row %c0 a_scales %sfa b_scales %s0 into %z : !tile, !b192, !sfa, !acc192
      warpspec.acc.store %t -> %out[%c0, %c0] : !acc192, !out192
    }
  }
  warpspec.return
}
}
}
