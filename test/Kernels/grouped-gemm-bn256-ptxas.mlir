// BLOCK_N 256 through the whole SM90 pipeline: per K block each math
// warpgroup issues two groups of 4 x wgmma m64n128k32 (one per column block),
// the second in the first one's scratch registers, the first block's
// promotion between them; ptxas: no spills, no stack (BLOCK_M 128 and 64,
// and the layer's f32 / gate-up-scale variant). The epilogue: 64x64 pieces,
// 4 x 4 stmatrix.x4 per piece, 4 pieces per warpgroup.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/bm64 %t/l1
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 unroll-wide=false" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/grouped_gemm.ptx
// RUN: grep -c "stmatrix.sync.aligned.m8n8.x4.shared.b16" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=STM
// RUN: %ptxas -arch=sm_90a -v %t/grouped_gemm.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True, separators=(',', ':')))" %t/grouped_gemm.json | FileCheck %s --check-prefix=JSON
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=7168 k=2048 max-m=32768 block-m=64 block-n=256" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm64" -o /dev/null
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" %t/bm64/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT64
// RUN: %ptxas -arch=sm_90a -v %t/bm64/grouped_gemm.ptx -o %t/bm64/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=4096 max-m=4096 block-m=128 block-n=256 out-type=f32 b-scale-interleave=8 device-m-blocks=true static-m=4096" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/l1" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/l1/grouped_gemm.ptx -o %t/l1/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// Two math warpgroups x two column blocks x 4 k32 steps per 128-K block.
// COUNT: 16
// COUNT64: 8
// STM: 32

// One K block of math0: block 0's wgmma group, wait, its promotion (64
// FMAs), then block 1's group into the same registers.
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: mbarrier.try_wait.parity
// PTX: wgmma.fence.sync.aligned;
// PTX: mov.b32
// PTX: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {[[ACC:%r[0-9]+, %r[0-9]+]],
// PTX-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {[[ACC]],
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX-COUNT-64: fma.rn.f32
// PTX: wgmma.fence.sync.aligned;
// PTX-NOT: mov.b32
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {[[ACC]],
// PTX: wgmma.wait_group.sync.aligned 0;

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// JSON: "dynamic_smem_bytes":231488,
// JSON-SAME: "spill_loads_bytes":0,"spill_stores_bytes":0,"stack_bytes":0
// JSON-SAME: "symbols":{"BLOCK_M":128,"BLOCK_N":256,{{.*}}"STAGES":4,
module {}
