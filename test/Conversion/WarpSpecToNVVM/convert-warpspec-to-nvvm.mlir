// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: warpspec-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: FileCheck %s --check-prefix=PTXMSG < %t/k.ptx
// RUN: FileCheck %s --check-prefix=PTXLOCAL < %t/k.ptx
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// The kernel becomes an llvm.func with the launch attributes; TMA
// descriptors are byval grid_constant params with their manifest spec.
// Timeout reports go to the runtime's record (TimeoutRecord.h), found
// through one global of the module that the runtime sets at load; no
// device printf (its call would serialize the kernel's wgmma).
// CHECK: llvm.mlir.global external @megamoe_timeout_record(0 : i64) {addr_space = 1 : i32, alignment = 8 : i64} : i64
// CHECK-NOT: vprintf
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: arith.constant -1 : i32
// CHECK-NEXT: nvvm.bar.warp.sync
// CHECK: nvvm.mbarrier.arrive
// acc.store of the 64x128 BF16 tile: 8 x stmatrix.x4 of 4 packed pairs.
// CHECK-COUNT-8: nvvm.stmatrix {{.*}} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.inline_ptx "red.release.gpu.global.add.u32 [$0], $1;"
// CHECK: nvvm.inline_ptx "red.release.sys.global.or.b32 [$0], $1;"
// A timed wait: the poll loop carries the last value read; past the limit
// (clock64), the cold branch reads the record's address; the thread that
// claims the record (compare-and-swap 0 -> 1) writes kind 1 (counter),
// block, thread, that value, the target, the cycles (low, high word) and
// the name 'l2_arrival' as little-endian words ("l2_a" "rriv" "al\0"),
// fences, sets `complete` (word 1), fences; every thread traps.
// CHECK: %[[START:.*]] = nvvm.read.ptx.sreg.clock64 : i64
// CHECK-NEXT: scf.while : () -> i32 {
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[CTR:.*]] atomic acquire
// CHECK: arith.cmpi uge, %[[V]], %[[TARGET:[^ ]*]] : i32
// CHECK: scf.condition(%{{.*}}) %[[V]] : i32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[LAST:.*]]: i32):
// CHECK-NEXT: %[[NOW:.*]] = nvvm.read.ptx.sreg.clock64 : i64
// CHECK-NEXT: %[[ELAPSED:.*]] = arith.subi %[[NOW]], %[[START]] : i64
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 2000000000 : i64
// CHECK-NEXT: %[[LATE:.*]] = arith.cmpi ugt, %[[ELAPSED]], %[[LIMIT]] : i64
// CHECK-NEXT: scf.if %[[LATE]] {
// CHECK-NEXT: %[[SLOT:.*]] = llvm.mlir.addressof @megamoe_timeout_record : !llvm.ptr<1>
// CHECK-NEXT: %[[ADDR:.*]] = llvm.load %[[SLOT]] {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[SET:.*]] = arith.cmpi ne, %[[ADDR]], %[[ZERO]] : i64
// CHECK-NEXT: scf.if %[[SET]] {
// CHECK-NEXT: %[[REC:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr<1>
// CHECK: %[[OLD:.*]] = llvm.inline_asm has_side_effects "atom.relaxed.sys.global.cas.b32 $0, [$1], $2, $3;", "=r,l,r,r" %[[REC]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[OLD]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[KIND:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[W2:.*]] = llvm.getelementptr %[[REC]][2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.store %[[KIND]], %[[W2]]
// CHECK-NEXT: %[[BLOCK:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: %[[W3:.*]] = llvm.getelementptr %[[REC]][3]
// CHECK-NEXT: llvm.store %[[BLOCK]], %[[W3]]
// CHECK-NEXT: %[[THREAD:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[W4:.*]] = llvm.getelementptr %[[REC]][4]
// CHECK-NEXT: llvm.store %[[THREAD]], %[[W4]]
// CHECK-NEXT: %[[W5:.*]] = llvm.getelementptr %[[REC]][5]
// CHECK-NEXT: llvm.store %[[LAST]], %[[W5]]
// CHECK-NEXT: %[[W6:.*]] = llvm.getelementptr %[[REC]][6]
// CHECK-NEXT: llvm.store %[[TARGET]], %[[W6]]
// CHECK-NEXT: %[[CLO:.*]] = arith.constant 2000000000 : i32
// CHECK-NEXT: %[[W9:.*]] = llvm.getelementptr %[[REC]][9]
// CHECK-NEXT: llvm.store %[[CLO]], %[[W9]]
// CHECK-NEXT: %[[CHI:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[W10:.*]] = llvm.getelementptr %[[REC]][10]
// CHECK-NEXT: llvm.store %[[CHI]], %[[W10]]
// CHECK-NEXT: %[[N0:.*]] = arith.constant 1633628780 : i32
// CHECK-NEXT: %[[W16:.*]] = llvm.getelementptr %[[REC]][16]
// CHECK-NEXT: llvm.store %[[N0]], %[[W16]]
// CHECK-NEXT: %[[N1:.*]] = arith.constant 1986622066 : i32
// CHECK-NEXT: %[[W17:.*]] = llvm.getelementptr %[[REC]][17]
// CHECK-NEXT: llvm.store %[[N1]], %[[W17]]
// CHECK-NEXT: %[[N2:.*]] = arith.constant 27745 : i32
// CHECK-NEXT: %[[W18:.*]] = llvm.getelementptr %[[REC]][18]
// CHECK-NEXT: llvm.store %[[N2]], %[[W18]]
// CHECK-NEXT: llvm.fence seq_cst
// CHECK-NEXT: %[[DONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[W1:.*]] = llvm.getelementptr %[[REC]][1]
// CHECK-NEXT: llvm.store %[[DONE]], %[[W1]]
// CHECK-NEXT: llvm.fence seq_cst
// A thread that lost the record waits (at most 2^27 cycles) until it is
// complete: its trap would end the grid before the winner's stores.
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[T0:.*]] = nvvm.read.ptx.sreg.clock64 : i64
// CHECK-NEXT: %[[CW:.*]] = llvm.getelementptr %[[REC]][1]
// CHECK-NEXT: scf.while : () -> () {
// CHECK-NEXT: %[[C:.*]] = llvm.load volatile %[[CW]]
// CHECK: arith.cmpi ne, %[[C]]
// CHECK: arith.constant 134217728 : i64
// CHECK: scf.condition
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: llvm.intr.trap
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield
// The name is stored as written ('%' needs no escape): "50%_" "toke" "ns\0".
// CHECK: arith.constant 1596272693 : i32
// CHECK: arith.constant 1701539700 : i32
// CHECK: arith.constant 29550 : i32
// CHECK: llvm.intr.trap
// CHECK: nvvm.inline_ptx "atom.add.release.gpu.global.u32 $0, [$1], $2;"
// CHECK: llvm.load {{.*}} atomic syncscope("device") acquire
// A grid sync without a name reports 'grid.sync'.
// CHECK: arith.constant 1684632167 : i32
// CHECK: llvm.intr.trap
// Without timeout_cycles a wait is the bare poll loop: no clock, no report.
// CHECK: nvvm.inline_ptx "atom.add.release.sys.global.u32 $0, [$1], $2;"
// CHECK: nvvm.inline_ptx "red.release.sys.global.add.u32 [$0], $1;"
// CHECK: scf.while : () -> () {
// CHECK-NOT: clock64
// CHECK-NOT: megamoe_timeout_record
// CHECK: nvvm.inline_ptx "atom.add.release.sys.global.u32 $0, [$1], $2;"
// CHECK: nvvm.read.ptx.sreg.clock64
// CHECK: scf.while : () -> i32 {
// A cross-rank barrier's report: kind 2, the ranks arrived in its phase
// (value - (phase - 1) x ranks) in word 5, the rank count in 6, the rank in
// 7, the phase in 8, the name 'cross_rank.barrier'.
// CHECK: %[[BREC:.*]] = llvm.inttoptr
// CHECK: scf.if
// CHECK-NEXT: %[[BKIND:.*]] = arith.constant 2 : i32
// CHECK-NEXT: llvm.getelementptr %[[BREC]][2]
// CHECK-NEXT: llvm.store %[[BKIND]]
// CHECK: %[[BEFORE:.*]] = arith.muli
// CHECK-NEXT: %[[ARRIVED:.*]] = arith.subi %{{.*}}, %[[BEFORE]] : i32
// CHECK-NEXT: %[[B5:.*]] = llvm.getelementptr %[[BREC]][5]
// CHECK-NEXT: llvm.store %[[ARRIVED]], %[[B5]]
// CHECK-NEXT: llvm.getelementptr %[[BREC]][6]
// CHECK-NEXT: llvm.store
// CHECK-NEXT: llvm.getelementptr %[[BREC]][7]
// CHECK-NEXT: llvm.store
// CHECK-NEXT: llvm.getelementptr %[[BREC]][8]
// CHECK-NEXT: llvm.store
// CHECK: arith.constant 1936683619 : i32
// CHECK: llvm.intr.trap
// CHECK: arith.constant 1600483181 : i32
// CHECK: llvm.intr.trap
// CHECK-NOT: warpspec.

// PTX: .maxnreg 168
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// PTX-DAG: mbarrier.try_wait.parity.shared.b64
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTX-DAG: red.release.gpu.global.add.u32
// PTX-DAG: red.release.sys.global.or.b32
// PTX-DAG: ld.acquire.sys.global
// PTX-DAG: ld.acquire.gpu.global
// PTX-DAG: bar.sync 1, 256;
// PTX-DAG: fence.proxy.async.shared::cta;
// PTX-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// The pipeline iterators are registers, not local memory; the timeout
// reports are stores to the record, so nothing is local at all.
// PTXLOCAL-NOT: __local_depot
// PTXLOCAL-NOT: ld.local
// PTXLOCAL-NOT: st.local

// The first timed wait in the assembly: the poll, then the cold path that
// fills the record and traps; no call anywhere.
// PTXMSG: .visible .global .align 8 .u64 megamoe_timeout_record;
// PTXMSG-NOT: vprintf
// PTXMSG: ld.acquire.sys.global.b32 [[V:%r[0-9]+]], [[[CTR:%rd[0-9]+]]];
// PTXMSG: %clock64;
// PTXMSG: ld.global.b64 [[REC:%rd[0-9]+]], [megamoe_timeout_record];
// PTXMSG: atom.relaxed.sys.global.cas.b32 {{%r[0-9]+}}, [[[REC]]]
// PTXMSG: st.global.b32 [[[REC]]+20], [[V]];
// PTXMSG: st.global.b32 [[[REC]]+64], 1633628780;
// PTXMSG: fence.sc.sys;
// PTXMSG-NEXT: st.global.b32 [[[REC]]+4], 1;
// PTXMSG-NEXT: fence.sc.sys;
// PTXMSG: trap;
// A thread that lost the record polls its `complete` word (volatile).
// PTXMSG: ld.volatile.global.b32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+4];
// PTXMSG-NOT: call

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
!out = !warpspec.smem<128x128xbf16, slots = 1, align = 1024>
!desc = !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
!odesc = !warpspec.tma_desc<64x128xbf16, swizzle = 0>
!pipe = !warpspec.pipeline<4>
!acc = !warpspec.acc<64x128xf32>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
warpspec.kernel @all_sm90(%da: !desc, %dout: !odesc,
                          %ctr: !llvm.ptr<1>, %offsets: !llvm.ptr<1>,
                          %n: i32, %sb: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 200000 : i64, threads = 384 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %b = warpspec.smem.alloc "b" offset 65536 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 131072 : !sfa
  %out = warpspec.smem.alloc "out" offset 133120 : !out
  %ab = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 8 offset 199936 : !pipe
  %epi = warpspec.named_barrier 1 roles ["math"]
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 40 {
      warpspec.tma.prefetch %da : !desc
      %s = warpspec.producer.acquire %ab : !pipe
      warpspec.tma.load %da[%c0i, %c0i] -> %a[%s], %ab : !desc, !tile, !pipe
      warpspec.tma.load %da[%c0i, %c0i] -> %b[%s], %ab : !desc, !tile, !pipe
      warpspec.bulk.copy %ctr, %c512 -> %sfa[%s], %ab : !sfa, !pipe
      warpspec.producer.commit %ab[%s] tx_bytes 33280 : !pipe
    }
    warpspec.role "idle" warps [1, 4) regs 40 {
    }
    warpspec.role "math" warps [4, 12) regs 232 mma {
      %w = warpspec.role.warp_id
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %wg = arith.divui %w, %c4 : index
      %row = arith.muli %wg, %c64 : index
      %zero = warpspec.acc.zero : !acc
      %cs = warpspec.consumer.wait %ab : !pipe
      %p = warpspec.mma.sm90 %a[%cs, %row], %b[%cs], %zero : !tile, !tile, !acc
      %r = warpspec.mma.wait 0, %p : !acc
      %t = warpspec.acc.promote %r into %zero a_scales %sfa[%cs, %row] b_scales %sb : !sfa, !acc
      warpspec.consumer.release %ab[%cs] : !pipe
      warpspec.acc.store %t -> %out[%c0, %row] : !acc, !out
      warpspec.fence.async_shared
      warpspec.barrier.sync %epi
      %src = warpspec.smem.slot %out[%c0] : !out -> !llvm.ptr<3>
      warpspec.tma.store %src -> %dout[%c0i, %c0i] : !odesc
      warpspec.tma.store.wait pending 0 read
      warpspec.counter.add %ctr, %n scope gpu
      warpspec.counter.or %ctr, %n scope sys
      warpspec.counter.wait %ctr, %n scope sys name "l2_arrival" timeout_cycles 2000000000
      warpspec.counter.wait %ctr, %n scope gpu name "50%_tokens" timeout_cycles 7
      warpspec.grid.sync %ctr, %n timeout_cycles 1000
      warpspec.grid.sync %ctr, %n name "moe_dispatch: barriers[2]" timeout_cycles 1001
      %peer = warpspec.peer.ptr %ctr, %n, %offsets
      warpspec.cross_rank.barrier %peer, %n, %n, %offsets scope sys
      warpspec.cross_rank.barrier %peer, %n, %n, %offsets scope sys timeout_cycles 5000
      warpspec.cross_rank.barrier %peer, %n, %n, %offsets scope sys name "moe_layout: 100% of counts" timeout_cycles 6000
    }
  }
  warpspec.return
}
}
}
