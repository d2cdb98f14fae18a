// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf,megamoe-convert-to-llvm))' | FileCheck %s

// arith and cf (from scf) inside a gpu.module become LLVM; NVVM stays.
// CHECK-LABEL: llvm.func @k
// CHECK-NOT: arith.
// CHECK-NOT: cf.
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.cond_br
// CHECK: llvm.add
// CHECK: llvm.br
module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    llvm.func @k(%out: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %tid) -> i32 {
        %x = arith.addi %acc, %n : i32
        %ii = arith.index_cast %i : index to i32
        %y = arith.addi %x, %ii : i32
        scf.yield %y : i32
      }
      llvm.store %r, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
