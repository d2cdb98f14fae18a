// A kernel compiled by megamoe-opt to a cubin, loaded and launched by the
// runtime (megamoe-run-cubin, through the C API), its output checked.
// The manifest is hand-written until megamoe-opt emits one.
// REQUIRES: cuda-sm90
// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=bin})' > %t.mlir
// RUN: rm -rf %t.d && %python %megamoe_src_root/runtime/tools/extract_gpu_binary.py %t.mlir %t.d
// RUN: cp %megamoe_src_root/runtime/tests/data/hello.manifest.json %t.d/
// RUN: %megamoe_obj_root/bin/megamoe-run-cubin %t.d/hello.manifest.json store_tid --out out=64 | FileCheck %s
// CHECK: out: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63{{$}}

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
