// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: warpspec-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: FileCheck %s --check-prefix=PTXMSG < %t/k.ptx
// RUN: FileCheck %s --check-prefix=PTXLOCAL < %t/k.ptx
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// The kernel becomes an llvm.func with the launch attributes; TMA
// descriptors are byval grid_constant params with their manifest spec.
// Timeout reports: one format string per timed wait, naming its counter
// ('%' escaped), and upstream's vprintf declaration.
// CHECK-DAG: llvm.mlir.global internal constant @[[L2FMT:printfFormat_[0-9]+]]("megamoe: timeout waiting for counter 'l2_arrival' (block %u, thread %u): value %u, expected >= %u after 2000000000 cycles\0A\00") {addr_space = 0 : i32}
// CHECK-DAG: llvm.mlir.global internal constant @[[PCTFMT:printfFormat_[0-9]+]]("megamoe: timeout waiting for counter '50%%_tokens' (block %u, thread %u): value %u, expected >= %u after 7 cycles\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[GSFMT:printfFormat_[0-9]+]]("megamoe: timeout waiting for counter 'grid.sync' (block %u, thread %u): value %u, expected >= %u after 1000 cycles\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[GSNFMT:printfFormat_[0-9]+]]("megamoe: timeout waiting for counter 'moe_dispatch: barriers[2]' (block %u, thread %u): value %u, expected >= %u after 1001 cycles\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[XRFMT:printfFormat_[0-9]+]]("megamoe: timeout in cross-rank barrier 'cross_rank.barrier' on rank %u (block %u, thread %u): phase %u, %u of %u ranks arrived after 5000 cycles\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[XRNFMT:printfFormat_[0-9]+]]("megamoe: timeout in cross-rank barrier 'moe_layout: 100%% of counts' on rank %u (block %u, thread %u): phase %u, %u of %u ranks arrived after 6000 cycles\0A\00")
// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK: llvm.mlir.global external @__dynamic_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @all_sm90(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, megamoe.tma = {box = [128, 128], dtype = "e4m3", {{.*}}swizzle = "128B"}, nvvm.grid_constant}
// CHECK-SAME: megamoe.dynamic_smem_bytes = 200000 : i64, nvvm.kernel, nvvm.maxnreg = 168 : i32, nvvm.reqntid = array<i32: 384, 1, 1>
// Pipeline iterators: one i32 alloca per (pipeline, side, role).
// CHECK-COUNT-2: llvm.alloca
// Pipeline init: thread 0, 4 x (full, empty), fence, block barrier.
// CHECK-COUNT-8: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0
// Roles: uniform warp id, one branch per warpgroup range with setmaxnreg.
// CHECK: nvvm.shfl.sync idx
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: scf.if
// CHECK: nvvm.prefetch tensormap
// Producer acquire: stage = n % 4, parity = ((n / 4) & 1) ^ 1 on empty[stage].
// CHECK: llvm.load
// CHECK: arith.remui
// CHECK: arith.divui
// CHECK: arith.andi
// CHECK: arith.xori
// CHECK: llvm.store
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {isCTAOnly = true
// CHECK: nvvm.cp.async.bulk.shared.cluster.global
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: } else {
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.try_wait.parity
// SMEM descriptors: low word (addr & 0x3FFFF) >> 4 | LBO 1 << 16 in 32 bits
// (each K step of 32 bytes adds 2 to it), joined with the constant high word
// SBO (1024 >> 4) | 128B swizzle (1) << 30 by mov.b64 {lo, hi}.
// CHECK: llvm.ptrtoint {{.*}} : !llvm.ptr<3> to i32
// CHECK-NEXT: arith.constant 262143 : i32
// CHECK: arith.constant 65536 : i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm "mov.b64 $0, {$1, $2};", "=l,r,n" {{.*}} : (i32, i32) -> i64
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-64: llvm.intr.fma
// Consumer release: the async proxy (TMA refilling the slot) is fenced after
// the warp's generic-proxy reads of it, then lane 0 arrives on empty[stage].
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
// (clock64), the cold branch prints block, thread, that value and the
// target through vprintf, then traps.
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
// CHECK-NEXT: %[[BLOCK:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: %[[THREAD:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[FMT:.*]] = llvm.mlir.addressof @[[L2FMT]] : !llvm.ptr
// CHECK-NEXT: %[[FMT0:.*]] = llvm.getelementptr %[[FMT]][0, 0]
// CHECK: %[[ARGS:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.store %[[BLOCK]]
// CHECK: llvm.store %[[THREAD]]
// CHECK: llvm.store %[[LAST]]
// CHECK: llvm.store %[[TARGET]]
// CHECK-NEXT: llvm.call @vprintf(%[[FMT0]], %[[ARGS]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT: llvm.intr.trap
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield
// CHECK: llvm.mlir.addressof @[[PCTFMT]]
// CHECK: llvm.call @vprintf
// CHECK-NEXT: llvm.intr.trap
// CHECK: nvvm.inline_ptx "atom.add.release.gpu.global.u32 $0, [$1], $2;"
// CHECK: llvm.load {{.*}} atomic syncscope("device") acquire
// CHECK: llvm.mlir.addressof @[[GSFMT]]
// CHECK: llvm.call @vprintf
// CHECK-NEXT: llvm.intr.trap
// Without timeout_cycles a wait is the bare poll loop: no clock, no report.
// CHECK: nvvm.inline_ptx "atom.add.release.sys.global.u32 $0, [$1], $2;"
// CHECK: nvvm.inline_ptx "red.release.sys.global.add.u32 [$0], $1;"
// CHECK: scf.while : () -> () {
// CHECK-NOT: clock64
// CHECK-NOT: vprintf
// CHECK: nvvm.inline_ptx "atom.add.release.sys.global.u32 $0, [$1], $2;"
// CHECK: nvvm.read.ptx.sreg.clock64
// CHECK: scf.while : () -> i32 {
// CHECK: llvm.mlir.addressof @[[XRFMT]]
// CHECK: llvm.call @vprintf
// CHECK-NEXT: llvm.intr.trap
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
// The pipeline iterators are registers, not local memory: local memory
// holds only the 6 timeout reports' printf arguments (2 counter waits and 2
// grid syncs x 16 bytes, 2 cross-rank barriers x 24), stored, never loaded.
// PTXLOCAL: .local .align 8 .b8 __local_depot0[112];
// PTXLOCAL-NOT: ld.local

// The first timed wait in the assembly: the poll, then the cold path that calls
// vprintf with the 'l2_arrival' format and traps.
// PTXMSG: .extern .func {{ *}}(.param .b32 func_retval0) vprintf
// PTXMSG: .global .align 1 .b8 [[L2FMT:printfFormat_[0-9]+]][123] = {109, 101, 103, 97, 109, 111, 101, 58,
// PTXMSG: ld.acquire.sys.global.b32 [[V:%r[0-9]+]], [[[CTR:%rd[0-9]+]]];
// PTXMSG: %clock64;
// PTXMSG: st.local.v2.b32 [{{%rd[0-9]+}}+8], {[[V]], {{%r[0-9]+}}};
// PTXMSG: mov.b64 {{%rd[0-9]+}}, [[L2FMT]];
// PTXMSG: call.uni (retval0), vprintf, (param0, param1);
// PTXMSG-NEXT: } // callseq
// PTXMSG-NEXT: trap;

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
