// The fused GEMM kernel's wave order (megamoe-plan wave-m-blocks / wave-lag,
// docs/FusedSchedule.md "Wave order"): every role walks one
// warpspec.wave_loop over the L1 pairs (phase 0) and the L2 tiles (phase 1)
// instead of two tile loops, and builds the tile of the phase it is given.
// The L2 producer still waits for its m-block's L1 arrivals.
// Layer: I = 256 (2 L1 pairs), H = 512 (4 L2 tiles per m-block).
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm wave-m-blocks=2" | FileCheck %s --check-prefix=PLAN
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm wave-m-blocks=2" --megamoe-expand="only=moe_fused_gemm" | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t/bm64 %t/bm128
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm wave-m-blocks=2" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm64" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/bm64/layer.ptx -o %t/bm64/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7510
// BLOCK_M 128 compiles without spills (its router weights read after each
// mainloop; docs/FusedSchedule.md says why the planner still keeps the
// phase order there), here and at V4-Pro's size.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=128 wave-m-blocks=1 wave-lag=0" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm128" -o /dev/null 2>&1
// RUN: %ptxas -arch=sm_90a -v %t/bm128/layer.ptx -o %t/bm128/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: mkdir -p %t/pro
// RUN: megamoe-opt --megamoe-layer="hidden=7168 intermediate=3072 experts=384 topk=6 ranks=1 max-tokens=8192 chip=sm_90a clamp=10 fast-math=true" --megamoe-plan="schedule=fused-gemm block-m=128 wave-m-blocks=4" --megamoe-expand="only=moe_fused_gemm" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/pro" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/pro/layer.ptx -o %t/pro/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// Where it does not apply, the plan says why.
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split wave-m-blocks=2" 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=fused-gemm wave-m-blocks=0 wave-lag=2" 2>&1 | FileCheck %s --check-prefix=LAG
// The planner's default (Heuristics.cpp, fusedGemmWaveOrder): waves of 4
// m-blocks, lag 1, for the BLOCK_M 64 variant; the phase order for BLOCK_M
// 128 (whose math warpgroups spill with the wave loop).
// RUN: megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=fused-gemm" | FileCheck %s --check-prefix=DEFAULT
// RUN: megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=split" | FileCheck %s --check-prefix=SPLIT-DEFAULT

// PLAN: wave_m_blocks = 2

// CHECK-LABEL: warpspec.kernel @moe_fused_gemm(
// CHECK: warpspec.role "tma"
// CHECK-NOT: warpspec.tile_loop
// CHECK: warpspec.wave_loop (%[[P:.*]], %{{.*}}, %{{.*}}) m_blocks(%[[MB:.*]]) n_blocks [2, 4] raster [2, 4] wave 2 lag 1 {
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[P]], %c0
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: } else {
// CHECK: warpspec.counter.wait %{{.*}}, %c4_i32 scope gpu name "l2_arrival"
// CHECK: warpspec.role "math0"
// CHECK-NOT: warpspec.tile_loop
// CHECK: warpspec.wave_loop (%{{.*}}, %{{.*}}, %{{.*}}) m_blocks(%[[MB]]) n_blocks [2, 4] raster [2, 4] wave 2 lag 1 {
// CHECK: scf.if
// CHECK: warpspec.mma.block_scaled {{.*}} b_scale_map
// CHECK: } else {
// CHECK: warpspec.mma.block_scaled
// CHECK: warpspec.role "math1"
// CHECK-NOT: warpspec.tile_loop
// CHECK: warpspec.wave_loop (%{{.*}}, %{{.*}}, %{{.*}}) m_blocks(%[[MB]]) n_blocks [2, 4] raster [2, 4] wave 2 lag 1 {
// CHECK-NOT: warpspec.tile_loop

// PTXAS: Compiling entry function 'moe_fused_gemm' for 'sm_90a'
// PTXAS-NEXT: Function properties for moe_fused_gemm
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// SPLIT: note: variant BLOCK_M 64 (tokens/rank 0..64): wave order: the split schedule runs L1 and L2 in separate kernels (fused-gemm only)
// LAG: note: variant BLOCK_M 64 (tokens/rank 0..64): wave order: wave-lag 2 needs wave-m-blocks > 0

// DEFAULT: block_m = 64, {{.*}}wave_m_blocks = 4>
// DEFAULT-NOT: wave_m_blocks
// DEFAULT: block_m = 128,
// SPLIT-DEFAULT-NOT: wave_m_blocks
