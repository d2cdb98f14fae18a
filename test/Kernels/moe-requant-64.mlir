// Per-64 requantization (requant-block=64, docs/UnfusedSchedule.md): the
// unfused, split and fused-gemm schedules build it on sm_90a; the
// activation's scales are [I / 64, P] and the L2 GEMM promotes two A scales
// per K block.
// Layer: I = 256 (4 scale groups per row), P = 640 pool rows.
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 requant-block=64 chip=sm_90a" --megamoe-plan="schedule=unfused" --megamoe-expand="only=moe_activation,moe_l2_gemm" | FileCheck %s --check-prefix=UNF
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 requant-block=64 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=SPLIT
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 requant-block=64 chip=sm_90a fast-math=true" --megamoe-plan="schedule=split block-m=128" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=PAIR
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 requant-block=64 chip=sm_90a" --megamoe-plan="schedule=fused-gemm" --megamoe-expand="only=moe_fused_gemm" | FileCheck %s --check-prefix=FUSED
// RUN: rm -rf %t && mkdir -p %t/unf %t/split %t/flash %t/fused %t/flash_fused
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 requant-block=64 chip=sm_90a" --megamoe-plan="schedule=unfused" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/unf" -o /dev/null
// RUN: %python -c "import json,sys; r={x['name']: x for x in json.load(open(sys.argv[1]))['buffer_layout']['regions']}; print('l2_pool_sf', r['l2_pool_sf']['shape'])" %t/unf/layer.json | FileCheck %s --check-prefix=LAYOUT
// RUN: %ptxas -arch=sm_90a -v %t/unf/layer.ptx -o %t/unf/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 requant-block=64 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/split" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/split/layer.ptx -o %t/split/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 requant-block=64 chip=sm_90a" --megamoe-plan="schedule=fused-gemm" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t/fused" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/fused/layer.ptx -o %t/fused/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// V4-Flash's fused GEMM kernels (both variants): no spills.
// RUN: megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 clamp=10 fast-math=true requant-block=64 chip=sm_90a" --megamoe-plan="schedule=fused-gemm" --megamoe-expand="only=moe_fused_gemm" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/flash_fused" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/flash_fused/layer.ptx -o %t/flash_fused/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-2
// V4-Flash's L2 GEMMs (BLOCK_N 256, both variants): no spills (KernelPlan::unrollEligible).
// RUN: megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=1 max-tokens=8192 clamp=10 fast-math=true requant-block=64 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_l2_gemm" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/flash" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/flash/layer.ptx -o %t/flash/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// moe_activation: each half warp reduces its 64 columns (no offset-16
// shuffle), and lane 0 of each half stores its group's scale at
// l2_pool_sf[2 g + lane / 16][row].
// UNF-LABEL: warpspec.kernel @moe_activation(
// UNF-NOT: gpu.shuffle  xor %{{.*}}, %c16
// UNF: gpu.shuffle  xor %{{.*}}, %c8_i32
// UNF: gpu.shuffle  xor %{{.*}}, %c4_i32
// UNF: gpu.shuffle  xor %{{.*}}, %c2_i32
// UNF: gpu.shuffle  xor %{{.*}}, %c1_i32
// UNF: arith.remui %{{.*}}, %c16_i32
// UNF: arith.divui %{{.*}}, %c16_i32
// The L2 GEMM: A scales [K / 64 = 4, P], one box of 2 x BLOCK_M per K block
// of 128 into a [2, 64] ring slot, at scale row 2 k.
// UNF-LABEL: warpspec.kernel @moe_l2_gemm(
// UNF-SAME: !warpspec.tma_desc<2x64xf32, swizzle = 0> {megamoe.bind = "region:l2_pool_sf", megamoe.name = "a_scales", megamoe.tma = {global_shape = [640, 4], global_strides_bytes = [2560]}}
// UNF: warpspec.smem.alloc "a_scales" : !warpspec.smem<2x64xf32
// UNF: %[[K2:.*]] = arith.muli %{{.*}}, %c2_i32
// UNF: warpspec.tma.load %{{.*}}[%{{.*}}, %[[K2]]] -> %{{.*}}[%{{.*}}], %{{.*}} : !warpspec.tma_desc<2x64xf32, swizzle = 0>, !warpspec.smem<2x64xf32
// UNF: warpspec.mma.block_scaled {{.*}} : {{.*}}, !warpspec.smem<2x64xf32, {{.*}}>, !warpspec.acc<64x128xf32>

// The split L1 kernel at BLOCK_M 64 (split columns): each warpgroup's block
// is a group of its own: one amax per block, no amax exchange through SMEM.
// SPLIT-LABEL: warpspec.kernel @moe_l1_swiglu(
// SPLIT-NOT: acc_rows.store_shared
// SPLIT: warpspec.acc.row_reduce absmax %{{[0-9a-z_]+}} : !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
// SPLIT: warpspec.acc_rows.store
// SPLIT-NOT: acc_rows.store_shared
// SPLIT: warpspec.acc.row_reduce absmax %{{[0-9a-z_]+}} : !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
// SPLIT-NOT: acc_rows.store_shared

// At BLOCK_M 128 a warpgroup holds both blocks of the pair: two amaxes and
// two scale stores per tile instead of one reduction over both.
// PAIR-LABEL: warpspec.kernel @moe_l1_swiglu(
// PAIR-COUNT-2: warpspec.acc.row_reduce absmax %{{[0-9a-z_]+}} : !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
// PAIR-NOT: warpspec.acc.row_reduce absmax %{{.*}}, %{{.*}} :
// PAIR-COUNT-2: warpspec.acc_rows.store %

// The fused GEMM kernel: one ring for L1 (A scaled per 128 K) and L2 (per
// 64 K). Its A-scale slots are [2, BLOCK_M]; an L1 tile's box of 1 x BLOCK_M
// at scale row k fills the first row and its MMA reads only that one
// (a_scale_groups 1); an L2 tile's box of 2 x BLOCK_M at scale row 2 k fills
// both and its MMA promotes per 64 K.
// FUSED-LABEL: warpspec.kernel @moe_fused_gemm(
// FUSED-SAME: !warpspec.tma_desc<1x64xf32, swizzle = 0> {megamoe.bind = "region:l1_pool_sf", megamoe.name = "a_scales"
// FUSED-SAME: !warpspec.tma_desc<2x64xf32, swizzle = 0> {megamoe.bind = "region:l2_pool_sf", megamoe.name = "l2_a_scales", megamoe.tma = {global_shape = [640, 4]
// FUSED: %[[SFA:.*]] = warpspec.smem.alloc "a_scales" : !warpspec.smem<2x64xf32, slots = [[S:[0-9]+]], align = 128>
// FUSED: warpspec.tma.load %{{.*}} -> %[[SFA]][%{{.*}}], %{{.*}} : !warpspec.tma_desc<1x64xf32, swizzle = 0>, !warpspec.smem<2x64xf32
// FUSED: %[[K2:.*]] = arith.muli %{{.*}}, %c2_i32
// FUSED: warpspec.tma.load %{{.*}}[%{{.*}}, %[[K2]]] -> %[[SFA]][%{{.*}}], %{{.*}} : !warpspec.tma_desc<2x64xf32, swizzle = 0>, !warpspec.smem<2x64xf32
// FUSED: warpspec.mma.block_scaled {{.*}} a_scales %[[SFA]] {{.*}} a_scale_groups 1 into
// FUSED-NOT: a_scale_groups
// FUSED: warpspec.mma.block_scaled {{.*}} a_scales %[[SFA]] b_scales %{{[0-9a-z_]+}} into

// LAYOUT: l2_pool_sf [4, 640]
// PTXAS-NOT: {{ [1-9][0-9]* bytes spill}}
// PTXAS: 0 bytes spill stores
// PTXAS-NOT: {{ [1-9][0-9]* bytes spill}}
// PTXAS-2: moe_fused_gemm_bm{{64|128}}
// PTXAS-2-NOT: {{ [1-9][0-9]* bytes spill}}
// PTXAS-2: 0 bytes spill stores
// PTXAS-2-NOT: {{ [1-9][0-9]* bytes spill}}
// PTXAS-2: 0 bytes spill stores
// PTXAS-2-NOT: {{ [1-9][0-9]* bytes spill}}
