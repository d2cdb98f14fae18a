// The grouped GEMM through the whole SM90 pipeline: cubin + PTX + manifest,
// the instructions that matter, and ptxas resources (no spills, no stack).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=7168 max-m=32768 block-m=128 unroll-stages=false" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/grouped_gemm.ptx
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT
// RUN: grep -c "stmatrix.sync.aligned.m8n8.x4.shared.b16" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=STM
// RUN: %python -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True, separators=(',', ':')))" %t/grouped_gemm.json | FileCheck %s --check-prefix=JSON
// RUN: %ptxas -arch=sm_90a -v %t/grouped_gemm.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: rm -rf %t/bm64 && mkdir -p %t/bm64
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=7168 k=2048 max-m=32768 block-m=64 unroll-stages=false" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm64" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/bm64/grouped_gemm.ptx -o %t/bm64/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX64 --input-file=%t/bm64/grouped_gemm.ptx
// RUN: grep -c "stmatrix.sync.aligned.m8n8.x4.shared.b16" %t/bm64/grouped_gemm.ptx | FileCheck %s --check-prefix=STM64

// PTX: .entry grouped_gemm_fp8(
// PTX: .reqntid 384, 1, 1
// PTX: .maxnreg 168
// PTX: mbarrier.init.shared.b64
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.arrive.expect_tx.shared.b64
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX-DAG: mbarrier.try_wait.parity
// PTX-DAG: wgmma.fence.sync.aligned;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTX-DAG: wgmma.commit_group.sync.aligned;
// PTX-DAG: wgmma.wait_group.sync.aligned 0;
// PTX-DAG: ld.shared.b32
// PTX-DAG: fma.rn.f32
// PTX-DAG: mbarrier.arrive.shared.b64
// PTX-DAG: cp.async.bulk.wait_group.read 1;
// PTX-DAG: bar.sync 1, 128;
// PTX-DAG: cvt.rn.bf16x2.f32
// PTX-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: fence.proxy.async.shared::cta;
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-DAG: cp.async.bulk.commit_group;
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: bar.sync 2, 128;

// Each math warpgroup: 4 x m64n128k32 per 128-K block (BLOCK_M 128: 8 in all).
// COUNT: 8
// The epilogue: each math warpgroup stores its 64x128 BF16 tile with 8
// stmatrix.x4 (two 8-column groups each): 16 for BLOCK_M 128, 8 for 64.
// STM: 16
// STM64: 8
// The manifest's launch shapes (docs/Manifest.md, "Launch shapes"): one CTA
// per SM, constants for everything compiled in, and M (the one runtime
// symbol) with its factor for the row extents.
// JSON: "dynamic_smem_bytes":199248,"grid":[{"ctas":"num_sms"},1,1],"max_registers":168,"name":"grouped_gemm_fp8"
// JSON-SAME: "spill_loads_bytes":0,"spill_stores_bytes":0,"stack_bytes":0
// JSON-SAME: "tma_descriptors":[{{.*}}"global_shape":[7168,{"symbol":"M"}],"global_strides_bytes":[7168]{{.*}}"name":"a"
// JSON-SAME: "global_shape":[7168,32768],"global_strides_bytes":[7168]{{.*}}"name":"b"
// JSON-SAME: "global_shape":[{"symbol":"M"},56],"global_strides_bytes":[{"symbol":"M","times":4}]{{.*}}"name":"a_scales"
// JSON-SAME: "global_shape":[4096,{"symbol":"M"}],"global_strides_bytes":[8192]{{.*}}"name":"d"
// JSON-SAME: "runtime_symbols":["M"]
// JSON-SAME: "symbols":{"BLOCK_M":128,"BLOCK_N":128,"B_SCALE_INTERLEAVE":0,"DEVICE_M_BLOCKS":0,"E":8,"K":7168,"MAX_M":32768,"N":4096,"OUT_BYTES":2,"STAGES":5,"STATIC_M":0},"version":2}

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// PTX64: .reqntid 256, 1, 1
// PTX64-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTX64-NOT: wgmma.mma_async
module {}
