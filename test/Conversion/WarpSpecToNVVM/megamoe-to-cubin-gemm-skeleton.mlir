// REQUIRES: ptxas
// RUN: rm -rf %t && warpspec-opt %megamoe_src_root/test/Dialect/WarpSpec/gemm_skeleton.mlir --megamoe-to-cubin="chip=sm_90a emit-dir=%t" 2>&1 | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=JSON < %t/gemm_kernels.json
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_kernels.ptx
// RUN: %ptxas -v -arch=sm_90a %t/gemm_kernels.ptx -o %t/again.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// The warp-specialized FP8 GEMM skeleton of the warpspec dialect goes all
// the way to a cubin, without spills and without local memory.
// IR-NOT: warning
// IR: gpu.binary @gemm_kernels
// JSON: "dynamic_smem_bytes": 165952,
// JSON: "max_registers": 168,
// JSON: "name": "fp8_gemm_bf16",
// JSON: "spill_loads_bytes": 0,
// JSON-NEXT: "spill_stores_bytes": 0,
// JSON-NEXT: "stack_bytes": 0,
// PTX: .maxnreg 168
// PTX-NOT: .local
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used {{[0-9]+}} registers
