// REQUIRES: ptxas
// RUN: megamoe-opt %s --pass-pipeline='builtin.module(megamoe-collect-manifest,gpu-module-to-binary{format=isa},megamoe-assemble-ptx)' 2>&1 | FileCheck %s

// ptxas -v turns the PTX object into a cubin (the PTX is kept as a
// property) and its resource report lands in the manifest. A kernel that
// spills is a warning naming the kernel and the ptxas line.
// CHECK: warning: kernel 'spills' spills registers: {{[1-9][0-9]*}} bytes spill stores, {{[1-9][0-9]*}} bytes spill loads (ptxas: Used {{[0-9]+}} registers
// CHECK: megamoe.manifests = {kmod = {{.*}}name = "fine"{{.*}}resources = {registers = {{[1-9][0-9]*}} : i64, spill_loads_bytes = 0 : i64, spill_stores_bytes = 0 : i64, stack_bytes = 0 : i64, static_smem_bytes = 0 : i64}
// CHECK-SAME: name = "spills"{{.*}}resources = {registers = 32 : i64, spill_loads_bytes = {{[1-9]}}
// CHECK: gpu.binary @kmod [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">, properties = {{{.*}}ptx = "{{.*}}.entry fine{{.*}}"}, bin = "\7FELF

module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
    llvm.func @fine(%out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      llvm.store %tid, %p : i32, !llvm.ptr<1>
      llvm.return
    }
    // 64 live values loaded before any is used, under a 32-register cap.
    llvm.func @spills(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>, nvvm.maxnreg = 32 : i32} {
      %v = llvm.load volatile %in : !llvm.ptr<1> -> vector<64xf32>
      %w = llvm.load volatile %in : !llvm.ptr<1> -> vector<64xf32>
      %s = llvm.fmul %v, %w : vector<64xf32>
      %t = llvm.fadd %s, %v : vector<64xf32>
      llvm.store volatile %t, %out : vector<64xf32>, !llvm.ptr<1>
      llvm.store volatile %w, %out : vector<64xf32>, !llvm.ptr<1>
      llvm.return
    }
  }
}
