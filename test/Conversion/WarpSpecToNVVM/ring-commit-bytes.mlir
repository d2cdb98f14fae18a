// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// A ring's commits expect the bytes of the copies into their stage in their
// own block: warp 0 commits its A tile (128 x 128 fp8 = 16384 B), warp 1 the
// A scales (128 f32 = 512 B), warp 2 a bulk copy of a constant 2048 B, warp 3
// has no copy and arrives without bytes (after a warp sync, as every plain
// arrive). An explicit tx_bytes is kept as written.

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 2, align = 128>
!raw = !warpspec.smem<2048xi8, slots = 2, align = 128>
!desc = !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
!sfdesc = !warpspec.tma_desc<1x128xf32, swizzle = 0>
!pipe = !warpspec.pipeline<2>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @ring
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c512_i32
// CHECK: nvvm.cp.async.bulk.shared.cluster.global
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c2048_i32
// CHECK: nvvm.bar.warp.sync
// CHECK: nvvm.mbarrier.arrive %{{.*}} :
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c4096_i32
warpspec.kernel @ring(%da: !desc, %dsf: !sfdesc, %src: !llvm.ptr<1>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 73728 : i64, threads = 256 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 32768 : !sfa
  %raw = warpspec.smem.alloc "raw" offset 33792 : !raw
  %ring = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 4 buffers(%a, %sfa, %raw : !tile, !sfa, !raw) offset 40960 : !pipe
  %spare = warpspec.pipeline.create "spare" producer_arrivals 1 consumer_arrivals 1 offset 41024 : !pipe
  %c0i = arith.constant 0 : i32
  %c2048 = arith.constant 2048 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  warpspec.roles {
    warpspec.role "tma" warps [0, 4) regs 40 {
      %w = warpspec.role.warp_id
      %s = warpspec.producer.acquire %ring : !pipe
      %is0 = arith.cmpi eq, %w, %c0 : index
      %is1 = arith.cmpi eq, %w, %c1 : index
      %is2 = arith.cmpi eq, %w, %c2 : index
      scf.if %is0 {
        warpspec.tma.load %da[%c0i, %c0i] -> %a[%s], %ring : !desc, !tile, !pipe
        warpspec.producer.commit %ring[%s] : !pipe
      } else {
        scf.if %is1 {
          warpspec.tma.load %dsf[%c0i, %c0i] -> %sfa[%s], %ring : !sfdesc, !sfa, !pipe
          warpspec.producer.commit %ring[%s] : !pipe
        } else {
          scf.if %is2 {
            warpspec.bulk.copy %src, %c2048 -> %raw[%s], %ring : !raw, !pipe
            warpspec.producer.commit %ring[%s] : !pipe
          } else {
            warpspec.producer.commit %ring[%s] : !pipe
          }
        }
      }
    }
    warpspec.role "spare" warps [4, 5) regs 168 {
      %s = warpspec.producer.acquire %spare : !pipe
      warpspec.producer.commit %spare[%s] tx_bytes 4096 : !pipe
    }
    warpspec.role "math" warps [5, 8) regs 168 {
    }
  }
  warpspec.return
}
}
}
