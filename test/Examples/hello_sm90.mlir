// The sample the README's main-job command compiles: a kernel written in
// upstream NVVM + LLVM that stores its thread index, lowered to PTX for sm_90a.
// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' | FileCheck %s
// CHECK: gpu.binary @hello
// CHECK-SAME: .target sm_90a

module attributes {gpu.container_module} {
  gpu.module @hello [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
    llvm.func @store_tid(%out: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      llvm.store %tid, %p : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
