// REQUIRES: ptxas
// RUN: rm -rf %t && megamoe-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=PTX < %t/ws.ptx
// RUN: %ptxas -arch=sm_90a %t/ws.ptx -o %t/ws.again.cubin

// The megamoe-to-cubin pipeline on a kernel already written in NVVM + LLVM +
// arith/scf: the instructions the warpspec lowering relies on survive to PTX
// and assemble. (The warpspec-level tests are in WarpSpecToNVVM/.)
// IR: megamoe.manifests = {ws = {chip = "sm_90a", kernels = [{block = [384, 1, 1]{{.*}}max_registers = 168{{.*}}resources = {registers = {{[0-9]+}} : i64, spill_loads_bytes = 0 : i64, spill_stores_bytes = 0 : i64
// IR: gpu.binary @ws [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">, properties = {{[{].*}}, bin = "\7FELF

// PTX: .maxnreg 168
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.try_wait.parity.shared{{.*}}.b64
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTX-DAG: red.release.gpu.global.add.u32
// PTX-DAG: ld.acquire.gpu.global

!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
module attributes {gpu.container_module} {
  gpu.module @ws [#nvvm.target<chip = "sm_90a">] {
    llvm.mlir.global external @__dynamic_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    llvm.func @ws_kernel(%tmap: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant, megamoe.tma = {dtype = "e4m3", rank = 2 : i64, box = [128, 128], swizzle = "128B"}}, %counter: !llvm.ptr<1>, %out: !llvm.ptr<1>)
        attributes {nvvm.kernel, nvvm.reqntid = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c128 = arith.constant 128 : i32
      %c16384 = arith.constant 16384 : i32
      %smem = llvm.mlir.addressof @__dynamic_smem : !llvm.ptr<3>
      %mb = llvm.getelementptr %smem[32768] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %wg = arith.divui %tid, %c128 : i32
      %is0 = arith.cmpi eq, %tid, %c0 : i32
      nvvm.mbarrier.init %mb, %c1, predicate = %is0 : !llvm.ptr<3>, i32, i1
      nvvm.fence.mbarrier.init
      nvvm.barrier0
      %producer = arith.cmpi eq, %wg, %c0 : i32
      scf.if %producer {
        nvvm.setmaxregister decrease 40
        scf.if %is0 {
          nvvm.mbarrier.arrive.expect_tx %mb, %c16384 : !llvm.ptr<3>, i32
          nvvm.cp.async.bulk.tensor.shared.cluster.global %smem, %tmap, %mb, box[%c0, %c0] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
        }
      } else {
        nvvm.setmaxregister increase 232
        nvvm.mbarrier.try_wait.parity %mb, %c0, %c16384 : !llvm.ptr<3>, i32, i32
        %base = llvm.ptrtoint %smem : !llvm.ptr<3> to i64
        %c4 = llvm.mlir.constant(4 : i64) : i64
        %addr = llvm.lshr %base, %c4 : i64
        %hi = llvm.mlir.constant(4611686087146864640 : i64) : i64
        %desc = llvm.or %addr, %hi : i64
        %z = llvm.mlir.zero : !acc
        nvvm.wgmma.fence.aligned
        %d = nvvm.wgmma.mma_async %desc, %desc, %z, #nvvm.shape<m = 64, n = 128, k = 32>, D [<f32>, #nvvm.wgmma_scale_out<zero>], A [<e4m3>, #nvvm.wgmma_scale_in<one>, <row>], B [<e4m3>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        %f = llvm.extractvalue %d[0] : !acc
        %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %f, %p : f32, !llvm.ptr<1>
        nvvm.inline_ptx "red.release.gpu.global.add.u32 [$0], $1;" ro(%counter, %c1 : !llvm.ptr<1>, i32)
        %seen = llvm.load %counter atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
        %q = llvm.getelementptr %out[%seen] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
        llvm.store %f, %q : f32, !llvm.ptr<1>
      }
      llvm.return
    }
  }
}
