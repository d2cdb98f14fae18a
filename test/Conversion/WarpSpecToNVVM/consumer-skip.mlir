// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// A consumer role that takes no part in some stages (a half block's second
// math warpgroup) skips them: its iterator advances without a barrier
// operation, and the other consumer role releases each such stage for both
// (`count`: one arrive of that many per warp).

!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
!pipe = !warpspec.pipeline<4>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @skip
warpspec.kernel @skip(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>, %half: i1)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 2048 : i64, threads = 384 : i32} {
  %sfa = warpspec.smem.alloc "sfa" offset 0 : !sfa
  %p = warpspec.pipeline.create "p" producer_arrivals 4 consumer_arrivals 8 offset 1024 : !pipe
  %c512 = arith.constant 512 : i32
  warpspec.roles {
    warpspec.role "load" warps [0, 4) regs 168 {
      %s = warpspec.producer.acquire %p : !pipe
      warpspec.bulk.copy %src, %c512 -> %sfa[%s], %p : !sfa, !pipe
      warpspec.producer.commit %p[%s] tx_bytes 512 : !pipe
    }
    warpspec.role "both" warps [4, 8) regs 168 {
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %n = arith.select %half, %two, %one : i32
      %s = warpspec.consumer.wait %p : !pipe
      warpspec.consumer.release %p[%s] count %n reads_retired : !pipe
    }
    warpspec.role "skipper" warps [8, 12) regs 168 {
      scf.if %half {
        warpspec.consumer.skip %p, 1 : !pipe
      } else {
        %s = warpspec.consumer.wait %p : !pipe
        warpspec.consumer.release %p[%s] reads_retired : !pipe
      }
    }
  }
  warpspec.return
}
}
}
// The releasing role: one arrive of %n per warp.
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive %{{.*}}, %[[N]] : !llvm.ptr<3>
// The skipping role: the counter advances by 1, nothing waits or arrives.
// CHECK: scf.if %arg2 {
// CHECK-NEXT: %[[C:.*]] = llvm.load %[[SLOT:.*]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[C]], %[[ONE]] : i32
// CHECK-NEXT: llvm.store %[[NEXT]], %[[SLOT]] : i32, !llvm.ptr
// CHECK-NEXT: } else {
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
