// The cubin extraction the GPU tests rely on, checked without a GPU: the
// object of a format=bin gpu.binary becomes an ELF file naming the kernel.
// REQUIRES: ptxas
// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-nvvm-to-llvm,reconcile-unrealized-casts),gpu-module-to-binary{format=bin})' > %t.mlir
// RUN: rm -rf %t.d && %python %megamoe_src_root/runtime/tools/extract_gpu_binary.py %t.mlir %t.d | FileCheck %s --check-prefix=EXTRACT
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); print(d[:4] == b'\x7fELF', b'store_one' in d)" %t.d/one.cubin | FileCheck %s --check-prefix=ELF
// EXTRACT: one.cubin: {{[0-9]+}} bytes
// ELF: True True

module attributes {gpu.container_module} {
  gpu.module @one [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
    llvm.func @store_one(%out: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %c1 = llvm.mlir.constant(1 : i32) : i32
      llvm.store %c1, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
