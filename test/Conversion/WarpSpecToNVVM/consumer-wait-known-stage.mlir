// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s

// A consumer wait with `known_stage j` waits on full[j] (a constant barrier
// address) with the phase of the role's iterator; without it the stage is
// the iterator modulo the stage count. Both advance the iterator.

!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
!pipe = !warpspec.pipeline<4>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @known
warpspec.kernel @known(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 2048 : i64, threads = 256 : i32} {
  %sfa = warpspec.smem.alloc "sfa" offset 0 : !sfa
  %p = warpspec.pipeline.create "p" producer_arrivals 4 consumer_arrivals 4 offset 1024 : !pipe
  %c512 = arith.constant 512 : i32
  warpspec.roles {
    warpspec.role "load" warps [0, 4) regs 168 {
      %s = warpspec.producer.acquire %p : !pipe
      warpspec.bulk.copy %src, %c512 -> %sfa[%s], %p : !sfa, !pipe
      warpspec.producer.commit %p[%s] tx_bytes 512 : !pipe
    }
    warpspec.role "use" warps [4, 8) regs 168 {
      %s = warpspec.consumer.wait %p : !pipe
      warpspec.consumer.release %p[%s] reads_retired : !pipe
      %s2 = warpspec.consumer.wait %p known_stage 1 : !pipe
      %slot = warpspec.smem.slot %sfa[%s2] : !sfa -> !llvm.ptr<3>
      %v = llvm.load %slot : !llvm.ptr<3> -> f32
      llvm.store %v, %out : f32, !llvm.ptr<1>
      warpspec.consumer.release %p[%s2] reads_retired : !pipe
    }
  }
  warpspec.return
}
}
}
// The producer's acquire, then the plain wait: stage = n % 4.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[N:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NEXT: %[[S:.*]] = arith.constant 4 : i32
// CHECK-NEXT: arith.remui %[[N]], %[[S]] : i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive
// The known wait: the constant stage 1, no remainder; the phase from n / 4.
// CHECK: %[[N2:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NEXT: %[[S2:.*]] = arith.constant 4 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.divui %[[N2]], %[[S2]] : i32
// CHECK-NOT: arith.remui
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.return
