// The grouped GEMM with a cluster of 2 (cluster-m=2, docs/Collectives.md
// "Cluster of 2") through the whole SM90 pipeline: the cluster launch shape,
// the multicast B halves, the cluster-wide release, the cluster barriers, and
// ptxas resources (no spills, no stack).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=128 cluster-m=2 unroll-stages=false" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/grouped_gemm.ptx
// RUN: grep -c "multicast::cluster" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=MC
// RUN: grep -c "cp.async.bulk.tensor.2d.shared::cta.global" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=LOCAL
// RUN: grep -c "mbarrier.arrive.shared::cluster.b64" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=REMOTE
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" %t/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT
// RUN: %python -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True, separators=(',', ':')))" %t/grouped_gemm.json | FileCheck %s --check-prefix=JSON
// RUN: %ptxas -arch=sm_90a -v %t/grouped_gemm.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: rm -rf %t/bm64 && mkdir -p %t/bm64
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=7168 k=2048 max-m=32768 block-m=64 block-n=128 cluster-m=2" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm64" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/bm64/grouped_gemm.ptx -o %t/bm64/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// BLOCK_N 256: each of the two 128-row B column blocks in 64-row halves, one
// multicast per block (warps 2 and 3), 16 wgmma.
// RUN: rm -rf %t/bn256 && mkdir -p %t/bn256
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 cluster-m=2" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bn256" -o /dev/null
// RUN: grep -c "multicast::cluster" %t/bn256/grouped_gemm.ptx | FileCheck %s --check-prefix=MC256
// RUN: grep -c "cp.async.bulk.tensor.2d.shared::cta.global" %t/bn256/grouped_gemm.ptx | FileCheck %s --check-prefix=LOCAL256
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" %t/bn256/grouped_gemm.ptx | FileCheck %s --check-prefix=COUNT256
// RUN: %python -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True, separators=(',', ':')))" %t/bn256/grouped_gemm.json | FileCheck %s --check-prefix=JSON256
// RUN: %ptxas -arch=sm_90a -v %t/bn256/grouped_gemm.ptx -o %t/bn256/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// PTX: .entry grouped_gemm_fp8(
// PTX: .explicitcluster
// PTX-NEXT: .reqnctapercluster 2, 1, 1
// The ring: empty[s] expects the 8 consumer warps of both CTAs; a cluster
// barrier after the initialisation.
// PTX: mbarrier.init.shared.b64 [{{.*}}], 16;
// PTX: fence.mbarrier_init.release.cluster;
// PTX-NEXT: barrier.cluster.arrive;
// PTX-NEXT: barrier.cluster.wait;
// PTX-DAG: mov.u32 {{.*}}, %cluster_ctarank;
// PTX-DAG: mov.u32 {{.*}}, %clusterid.x;
// PTX-DAG: mov.u32 {{.*}}, %nclusterid.x;
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX-DAG: mapa.shared::cluster.u64
// PTX-DAG: mbarrier.arrive.shared::cluster.b64
// PTX-NOT: mbarrier.arrive.release.cluster
// The exit: a cluster barrier, then ret.
// PTX: barrier.cluster.arrive;
// PTX-NEXT: barrier.cluster.wait;
// PTX-NEXT: ret;

// One multicast B half per K block; local loads of A, the A scales and
// (tiles whose m-blocks belong to two experts) both B halves; each math
// warpgroup releases in the K loop and after it (2 x 2 remote arrives).
// MC: 1
// LOCAL: 4
// REMOTE: 4
// COUNT: 8
// JSON: "cluster":[2,1,1]
// JSON-SAME: "box":[128,64]{{.*}}"name":"b"
// JSON-SAME: "CLUSTER_M":2

// MC256: 2
// LOCAL256: 6
// The K loop unrolled over the 4 stages (unroll-wide): 4 x 16.
// COUNT256: 64
// JSON256: "cluster":[2,1,1]
// JSON256-SAME: "box":[128,64]{{.*}}"name":"b"
// JSON256-SAME: "BLOCK_N":256

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
module {}
