// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// A consumer release fences the async proxy before its arrive (the next
// writer of the slot is TMA; the warp's generic reads of it must be ordered
// first); `reads_retired` releases do not.

!sfa = !warpspec.smem<128xf32, slots = 2, align = 128>
!pipe = !warpspec.pipeline<2>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @release_kinds
warpspec.kernel @release_kinds(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 1024 : i64, threads = 256 : i32} {
  %sfa = warpspec.smem.alloc "sfa" offset 0 : !sfa
  %p = warpspec.pipeline.create "p" producer_arrivals 4 consumer_arrivals 4 offset 512 : !pipe
  %c512 = arith.constant 512 : i32
  warpspec.roles {
    warpspec.role "load" warps [0, 4) regs 168 {
      %s = warpspec.producer.acquire %p : !pipe
      warpspec.bulk.copy %src, %c512 -> %sfa[%s], %p : !sfa, !pipe
      warpspec.producer.commit %p[%s] tx_bytes 512 : !pipe
    }
    warpspec.role "use" warps [4, 8) regs 168 {
      %s = warpspec.consumer.wait %p : !pipe
      %slot = warpspec.smem.slot %sfa[%s] : !sfa -> !llvm.ptr<3>
      %v = llvm.load %slot : !llvm.ptr<3> -> f32
      llvm.store %v, %out : f32, !llvm.ptr<1>
      warpspec.consumer.release %p[%s] : !pipe
      %s2 = warpspec.consumer.wait %p : !pipe
      warpspec.consumer.release %p[%s2] reads_retired : !pipe
    }
  }
  warpspec.return
}
}
}
// The first release: fence, __syncwarp, then lane 0's arrive.
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: arith.constant -1 : i32
// CHECK-NEXT: nvvm.bar.warp.sync
// CHECK: nvvm.mbarrier.arrive
// The reads_retired release: __syncwarp and the arrive, no fence.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.bar.warp.sync
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.return
