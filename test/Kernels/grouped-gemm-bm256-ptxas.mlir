// BLOCK_M 256 through the whole SM90 pipeline: per K block each math
// warpgroup issues two groups of 4 x wgmma m64n128k32 (one per 64-row
// block), the second in the first one's scratch registers; ptxas: no
// spills, no stack, with and without a cluster of 2 and the scale prefetch.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/c2
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=256 block-n=128 cluster-m=1 scale-prefetch=0" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/grouped_gemm.ptx
// RUN: %ptxas -arch=sm_90a -v %t/grouped_gemm.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True, separators=(',', ':')))" %t/grouped_gemm.json | FileCheck %s --check-prefix=JSON
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=7168 k=2048 max-m=32768 block-m=256 block-n=128 cluster-m=2 scale-prefetch=1" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/c2" -o /dev/null
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" %t/c2/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT
// RUN: %ptxas -arch=sm_90a -v %t/c2/grouped_gemm.ptx -o %t/c2/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// Two math warpgroups x two row blocks x 4 k32 steps per 128-K block, over
// the 4 unrolled stages.
// COUNT: 64

// One K block of math0: row block 0's wgmma group, wait, its promotion (64
// FMAs), then row block 1's group into the same registers.
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: mbarrier.try_wait.parity
// PTX: wgmma.fence.sync.aligned;
// PTX: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {[[ACC:%r[0-9]+, %r[0-9]+]],
// PTX-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {[[ACC]],
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX-COUNT-64: fma.rn.f32
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {[[ACC]],
// PTX: wgmma.wait_group.sync.aligned 0;

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// JSON: "block":[384,1,1]
// JSON-SAME: "dynamic_smem_bytes":217152,
// JSON-SAME: "spill_loads_bytes":0,"spill_stores_bytes":0,"stack_bytes":0
// JSON-SAME: "symbols":{"BLOCK_M":256,"BLOCK_N":128,{{.*}}"STAGES":4,
module {}
