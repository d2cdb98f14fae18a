// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm),reconcile-unrealized-casts)' | FileCheck %s
// RUN: warpspec-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// Each element op is its one PTX instruction: approx ex2/rcp with
// flush-to-zero, cvt.e4m3x2 with lo in the low byte (the NVVM op takes the
// high byte's value first).
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @element_math
// CHECK-SAME: (%[[OUT:.*]]: !llvm.ptr<1>, %[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[X]]) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"(%[[Y]]) : (f32) -> f32
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[Y]], %[[X]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// PTX-LABEL: .entry element_math(
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: rcp.approx.ftz.f32
// PTX-DAG: cvt.rn.satfinite.e4m3x2.f32
warpspec.kernel @element_math(%out: !warpspec.global<f32>, %x: f32, %y: f32)
    attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %e = warpspec.approx ex2 %x
  %r = warpspec.approx rcp %y
  %p = warpspec.cvt.e4m3x2 %x, %y
  warpspec.global.store %e, %out : !warpspec.global<f32>
  %c1 = arith.constant 1 : i32
  %o1 = warpspec.global.offset %out[%c1] : !warpspec.global<f32>, i32
  warpspec.global.store %r, %o1 : !warpspec.global<f32>
  %bytes = warpspec.global.cast %out : !warpspec.global<f32> to !warpspec.global<i16>
  %c4 = arith.constant 4 : i32
  %o2 = warpspec.global.offset %bytes[%c4] : !warpspec.global<i16>, i32
  warpspec.global.store %p, %o2 : !warpspec.global<i16>
  warpspec.return
}
}
}
