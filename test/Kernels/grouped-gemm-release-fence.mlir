// release-fence (with release-lag 0): each stage goes back right after its
// MMA. By default that release fences the async proxy first (its next
// writer is TMA); with release-fence=false (sm_90a) it does not, as
// DeepGEMM's and CUTLASS's SM90 mainloops: the row scales, the slot's only
// generic reads, are read before the MMA, and the release's arrive orders
// them.
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=2048 max-m=32768 block-m=128 block-n=128 release-lag=0" | FileCheck %s --check-prefix=FENCED
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=2048 max-m=32768 block-m=128 block-n=128 release-lag=0 release-fence=false" | FileCheck %s --check-prefix=NOFENCE
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=2048 max-m=32768 block-m=128 block-n=128 release-lag=0 release-fence=false" | megamoe-opt --pass-pipeline='builtin.module(gpu.module(warpspec-plan-smem,convert-warpspec-to-nvvm))' | FileCheck %s --check-prefix=LOWER
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 release-fence=false" 2>&1 | FileCheck %s --check-prefix=LAG1
// RUN: not megamoe-opt %s --megamoe-grouped-gemm="block-n=128 release-lag=0 release-fence=false chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=CHIP

// FENCED: warpspec.role "math0"
// FENCED: %[[S:.*]] = warpspec.consumer.wait
// FENCED-NEXT: warpspec.mma.block_scaled {{.*}} stage %[[S]]
// FENCED-NEXT: warpspec.consumer.release %{{.*}}[%[[S]]] : !warpspec.pipeline

// NOFENCE: warpspec.role "math0"
// NOFENCE: %[[S:.*]] = warpspec.consumer.wait
// NOFENCE-NEXT: warpspec.mma.block_scaled {{.*}} stage %[[S]]
// NOFENCE-NEXT: warpspec.consumer.release %{{.*}}[%[[S]]] reads_retired : !warpspec.pipeline

// The math roles' releases: no proxy fence between the promotion and the
// empty-barrier arrive.
// LOWER-LABEL: llvm.func @grouped_gemm_fp8
// LOWER: nvvm.wgmma.wait.group.sync.aligned 0
// LOWER-NOT: nvvm.fence.proxy
// LOWER: nvvm.mbarrier.arrive

// LAG1: release-fence=false needs release-lag 0 on sm_90a (a lag-1 release never fences; on sm_90a the row scales are read before the MMA), got release-lag 1 on sm_90a
// CHIP: release-fence=false needs release-lag 0 on sm_90a {{.*}}, got release-lag 0 on sm_100a
module {}
