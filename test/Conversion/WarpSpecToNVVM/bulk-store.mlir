// warpspec.bulk.store: lane 0 copies an SMEM slot to global memory in its
// bulk group (cp.async.bulk.global.shared::cta.bulk_group, then
// commit_group); tma.store.wait waits for it (without `read`: the global
// writes are performed).
// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(warpspec-plan-smem,convert-warpspec-to-nvvm),reconcile-unrealized-casts)' | FileCheck %s
// RUN: warpspec-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/m.ptx

gpu.module @m {
  warpspec.kernel @k(%x: !llvm.ptr<1>, %pool: !warpspec.global<i8>) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
    %row = warpspec.smem.alloc "row" : !warpspec.smem<512xi8, slots = 1, align = 128>
    %pipe = warpspec.pipeline.create "pull" producer_arrivals 1 consumer_arrivals 1 buffers(%row : !warpspec.smem<512xi8, slots = 1, align = 128>) : !warpspec.pipeline<1>
    warpspec.roles {
      warpspec.role "dispatch" warps [0, 1) regs 128 {
        %n = arith.constant 512 : i32
        %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<1>
        warpspec.bulk.copy %x, %n -> %row[%s], %pipe : !warpspec.smem<512xi8, slots = 1, align = 128>, !warpspec.pipeline<1>
        warpspec.producer.commit %pipe[%s] : !warpspec.pipeline<1>
        %f = warpspec.consumer.wait %pipe : !warpspec.pipeline<1>
        %src = warpspec.smem.slot %row[%f] : !warpspec.smem<512xi8, slots = 1, align = 128> -> !llvm.ptr<3>
        warpspec.bulk.store %src, %n -> %pool : !warpspec.global<i8>
        warpspec.tma.store.wait pending 0
        warpspec.consumer.release %pipe[%f] reads_retired : !warpspec.pipeline<1>
      }
      warpspec.role "rest" warps [1, 4) regs 128 {
      }
    }
    warpspec.return
  }
}

// CHECK: nvvm.cp.async.bulk.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.global.shared.cta %arg1, %{{.*}}, %c512_i32 : <1>, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK: nvvm.mbarrier.arrive

// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.global.shared::cta.bulk_group
// PTX-NEXT: cp.async.bulk.commit_group
// PTX: cp.async.bulk.wait_group {{[[:space:]]*}}0;
