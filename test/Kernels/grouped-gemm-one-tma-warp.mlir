// tma-warps=1 (GemmProblem::tmaWarps): one warp of warpgroup 0 issues every
// load of a stage (A, A scales, each B column block) and ONE commit that
// states their bytes; the ring expects one producer arrival per stage; warps
// 1-3 hold the "idle" role, which has no work and exists so that they run
// the warpgroup's setmaxnreg. BLOCK_N 256 with the cluster of 2: each B
// column block is a multicast half or both halves (shareB), 16384 bytes
// either way, so a stage is 16384 (A) + 512 (A scales) + 2 x 16384 = 49664.
// Without the option: four TMA warps, four commits whose bytes the ring
// derives (the default).
// REQUIRES: ptxas
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 cluster-m=2 scale-prefetch=1 tma-warps=1" | FileCheck %s
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=128 tma-warps=1" | FileCheck %s --check-prefix=PLAIN
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=128" | FileCheck %s --check-prefix=FOUR
// RUN: rm -rf %t && mkdir -p %t/c2 %t/plain
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=7168 max-m=32768 block-m=128 block-n=256 cluster-m=2 scale-prefetch=1 tma-warps=1" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/c2" -o /dev/null
// RUN: echo 'module {}' | megamoe-opt --megamoe-grouped-gemm="experts=8 n=4096 k=2048 max-m=32768 block-m=64 block-n=128 tma-warps=1" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/plain" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/c2/grouped_gemm.ptx
// RUN: %ptxas -arch=sm_90a -v %t/c2/grouped_gemm.ptx -o %t/c2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t/plain/grouped_gemm.ptx -o %t/plain.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 8 cluster 2
// CHECK-LABEL: warpspec.role "tma" warps [0, 1) regs 40
// CHECK: %[[S:.*]] = warpspec.producer.acquire
// CHECK-NEXT: warpspec.tma.load {{.*}} -> %{{.*}}[%[[S]]]
// CHECK-NEXT: warpspec.tma.load {{.*}} -> %{{.*}}[%[[S]]]
// CHECK: scf.if
// CHECK: warpspec.tma.load {{.*}} multicast 2
// CHECK: } else {
// CHECK: warpspec.tma.load
// CHECK: warpspec.tma.load {{.*}} slot_offset 8192
// CHECK: scf.if
// CHECK: warpspec.tma.load {{.*}} multicast 2
// CHECK-NOT: warpspec.producer.commit
// CHECK: warpspec.producer.commit %{{.*}}[%[[S]]] tx_bytes 49664
// CHECK-NOT: warpspec.producer.commit
// CHECK: warpspec.role "math0"
// CHECK: warpspec.role "idle" warps [1, 4) regs 40 {
// CHECK-NEXT: }

// PLAIN: warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 8 buffers
// PLAIN-LABEL: warpspec.role "tma" warps [0, 1)
// PLAIN: warpspec.producer.acquire
// PLAIN-COUNT-3: warpspec.tma.load
// PLAIN-NEXT: warpspec.producer.commit %{{.*}} tx_bytes 33280
// PLAIN: warpspec.role "idle" warps [1, 4)

// FOUR: warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 8 buffers
// FOUR: warpspec.role "tma" warps [0, 4)
// FOUR-NOT: warpspec.role "idle"

// The full barriers expect one arrival, the empty ones 16 (two CTAs x 8
// math warps); one arrive.expect_tx per stage.
// PTX: mbarrier.init.shared.b64 [%{{.*}}], 1;
// PTX: mbarrier.init.shared.b64 [%{{.*}}], 16;
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: mbarrier.arrive.expect_tx
// PTX-NOT: mbarrier.arrive.expect_tx
// PTX: setmaxnreg.inc.sync.aligned.u32

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
