// The layer's grouped GEMMs with BLOCK_N 256 (the unfused defaults on sm_90a,
// config::stageL1BlockN / stageL2BlockN; here given as overrides): the unfused
// L1 GEMM (f32 out, gate/up scales) and the L2 GEMM, whose combine scatter
// goes through a 64-column SMEM tile in four pieces per warpgroup (two
// column blocks, each in two halves: measured faster than two pieces of a
// 128-column tile, KernelPlan.cpp).
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=unfused block-m=128 l1-block-n=256 l2-block-n=256" --megamoe-expand="only=moe_l2_gemm" | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=unfused block-m=128 l1-block-n=256 l2-block-n=256" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/layer.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split l1-block-n=256" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm l2-block-n=256" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED

// CHECK: warpspec.kernel @moe_l2_gemm
// CHECK: warpspec.smem.alloc "b_tiles1"
// CHECK: warpspec.smem.alloc "d_tiles" : !warpspec.smem<128x64xbf16
// CHECK: warpspec.role "math0"
// CHECK: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 2 raster 2
// CHECK-COUNT-2: warpspec.mma.block_scaled
// CHECK: warpspec.peer.ptr
// CHECK-COUNT-4: warpspec.acc.store
// CHECK: warpspec.role "math1"

// PTXAS: Compiling entry function 'moe_l2_gemm' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'moe_l1_gemm' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// SPLIT: the split schedule's grouped GEMMs use BLOCK_N 128, or 256 on sm_90a for the unfused L1 GEMM and the unfused / split L2 GEMM (N a multiple of 256); got L1 BLOCK_N 256, L2 BLOCK_N 256
// FUSED: the fused-gemm schedule's grouped GEMMs use BLOCK_N 128, or 256 on sm_90a for the unfused L1 GEMM and the unfused / split L2 GEMM (N a multiple of 256); got L1 BLOCK_N 128, L2 BLOCK_N 256
