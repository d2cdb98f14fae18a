// The grouped GEMM's SwiGLU + requant epilogue standalone (the split
// schedule's L1, lib/Kernels/Collectives/Epilogues), with the arrival
// counter the fused kernel's L2 loads will wait on: per tile and math
// warpgroup, after the TMA stores completed (wait_group 0, not .read), one
// release add (red.release.gpu) on arrivals[m-block] by lane 0 of the storer.
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=4096 b-scale-interleave=8 device-m-blocks=true static-m=4096 swiglu=true swiglu-arrivals=true" | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=4096 b-scale-interleave=8 device-m-blocks=true static-m=4096 swiglu=true swiglu-arrivals=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/grouped_gemm.ptx
// RUN: %ptxas -arch=sm_90a -v %t/grouped_gemm.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: warpspec.kernel @grouped_gemm_fp8(
// CHECK-SAME: megamoe.name = "row_weight"
// CHECK-SAME: !warpspec.tma_desc<64x64xf8E4M3FN, swizzle = 64> {megamoe.name = "out", megamoe.tma = {global_shape = [2048, 4096], global_strides_bytes = [2048]}}
// CHECK-SAME: megamoe.name = "out_scales"
// CHECK-SAME: %arg9: !warpspec.global<i32> {megamoe.name = "arrivals"})
// 4096 / 128 m-blocks x 16 pairs: 512 tiles.
// CHECK-SAME: megamoe.grid = [{ctas = "num_sms", max = 512 : i64}, 1, 1]
// CHECK: warpspec.role "math0"
// CHECK: warpspec.acc_rows.store
// CHECK-NEXT: warpspec.barrier.sync
// CHECK: warpspec.tma.store.wait pending 0{{$}}
// CHECK: %[[CTR:.*]] = warpspec.global.offset %arg9[%{{.*}}] : !warpspec.global<i32>, i32
// CHECK: warpspec.counter.add %[[CTR]], %{{.*}} scope gpu : !warpspec.global<i32>

// PTX-LABEL: .entry grouped_gemm_fp8
// PTX: cp.async.bulk.wait_group.read 0;
// PTX: cp.async.bulk.wait_group 0;
// PTX: red.release.gpu.global.add.u32
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
