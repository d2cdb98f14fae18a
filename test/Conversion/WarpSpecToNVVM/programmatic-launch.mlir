// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: rm -rf %t && megamoe-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/k.ptx
// RUN: %python -c "import json,sys; print({k['name']: k.get('programmatic_launch', False) for k in json.load(open(sys.argv[1]))['kernels']})" %t/k.json | FileCheck %s --check-prefix=JSON
// REQUIRES: ptxas

// A kernel with programmatic_launch begins with griddepcontrol.wait (every
// thread: nothing of the body may touch memory the previous grid writes
// before it completed), then launch_dependents; the manifest marks it so the
// runtime launches it with programmatic stream serialization. A kernel
// without it is unchanged.

module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @early(
// CHECK-SAME: megamoe.programmatic_launch
// CHECK-NOT: llvm.store
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK: llvm.store
warpspec.kernel @early(%out: !warpspec.global<i32>)
    attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, programmatic_launch, trigger_dependents_at_entry} {
  %c = arith.constant 7 : i32
  %i = arith.constant 0 : i32
  %p = warpspec.global.offset %out[%i] : !warpspec.global<i32>, i32
  warpspec.global.store %c, %p align 4 : !warpspec.global<i32>
  warpspec.return
}
// Without the entry trigger: the wait only (the next grid is scheduled as
// this one's CTAs exit).
// CHECK-LABEL: llvm.func @waits(
// CHECK: nvvm.griddepcontrol wait
// CHECK-NOT: launch_dependents
// CHECK: llvm.return
warpspec.kernel @waits(%out: !warpspec.global<i32>)
    attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, programmatic_launch} {
  %c = arith.constant 7 : i32
  %i = arith.constant 0 : i32
  %p = warpspec.global.offset %out[%i] : !warpspec.global<i32>, i32
  warpspec.global.store %c, %p align 4 : !warpspec.global<i32>
  warpspec.return
}
// CHECK-LABEL: llvm.func @plain(
// CHECK-NOT: megamoe.programmatic_launch
// CHECK-NOT: griddepcontrol
// CHECK: llvm.return
warpspec.kernel @plain(%out: !warpspec.global<i32>)
    attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %c = arith.constant 7 : i32
  %i = arith.constant 0 : i32
  %p = warpspec.global.offset %out[%i] : !warpspec.global<i32>, i32
  warpspec.global.store %c, %p align 4 : !warpspec.global<i32>
  warpspec.return
}
}
}

// PTX-LABEL: .entry early(
// PTX: griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
// PTX-LABEL: .entry waits(
// PTX: griddepcontrol.wait;
// PTX-NOT: griddepcontrol.launch_dependents
// PTX-LABEL: .entry plain(
// PTX-NOT: griddepcontrol

// JSON: {'early': True, 'waits': True, 'plain': False}
