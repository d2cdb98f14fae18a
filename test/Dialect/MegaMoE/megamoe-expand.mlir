// megamoe-expand builds the whole unfused schedule into one gpu.module named
// after the layer, in launch order, every parameter bound; the manifest it
// leads to carries the schedule, the binds, the layer and the buffer layout.
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-plan="schedule=unfused" --megamoe-expand | FileCheck %s
// RUN: rm -rf %t && megamoe-opt %s --megamoe-plan="schedule=unfused" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: %python %S/Inputs/check_layer_manifest.py %t/small.json | FileCheck %s --check-prefix=MANIFEST
// Up to 64 x 8 / (2 x 2) = 128 tokens/rank an expert expects <= 64 rows: a
// layer for 256 tokens gets a 64-row and a 128-row variant; the stages that
// depend on BLOCK_M are built per variant, the others once.
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=256" --megamoe-plan="schedule=unfused" --megamoe-expand | FileCheck %s --check-prefix=VARIANTS

megamoe.layer @small config = #megamoe.config<hidden = 512, intermediate = 256, experts = 8, topk = 2, ranks = 2, max_tokens = 64, clamp = 10.0>

// The layer op is consumed: its gpu.module takes the symbol.
// CHECK-NOT: megamoe.layer
// CHECK: gpu.module @small [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">]
// CHECK-SAME: megamoe.layer = {activation = "swiglu", clamp = 1.000000e+01 : f64, fast_math = false, requant_block = 128 : i64, schedule = "unfused"}
// CHECK-SAME: megamoe.schedule = ["moe_route", "moe_layout", "moe_pull", "moe_l1_gemm", "moe_activation", "moe_l2_gemm", "moe_combine_barrier", "moe_combine_reduce"]
// 32 expected rows per expert: BLOCK_M 64. L = 4, P = 2 x 64 x 2 + 4 x 63 -> 512.
// CHECK-SAME: megamoe.symbols = {BM = 64 : i64, E = 8 : i64, H = 512 : i64, I = 256 : i64, K = 2 : i64, L = 4 : i64, P = 512 : i64, R = 2 : i64, T = 64 : i64}
// CHECK: warpspec.kernel @moe_route(
// CHECK: warpspec.kernel @moe_layout(
// CHECK: warpspec.kernel @moe_pull(
// CHECK: warpspec.kernel @moe_l1_gemm(%{{.*}}: !warpspec.tma_desc<64x128xf8E4M3FN, swizzle = 128> {megamoe.bind = "region:l1_pool", megamoe.name = "a"
// CHECK-SAME: {megamoe.bind = "input:l1_weight"
// CHECK: warpspec.kernel @moe_activation(
// The L2 GEMM has no D: its epilogue scatters the rows to the source ranks'
// combine buffers (combine [K = 2, T = 64, H = 512] on R = 2 ranks).
// CHECK: warpspec.kernel @moe_l2_gemm(%{{.*}} {megamoe.bind = "region:l2_pool"
// CHECK-NOT: megamoe.name = "d"
// CHECK-SAME: {megamoe.bind = "region:pool_info", megamoe.name = "num_m_blocks"}
// CHECK-SAME: {megamoe.bind = "region:pool_source", megamoe.name = "pool_source"}
// CHECK-SAME: {megamoe.bind = "region:combine", megamoe.name = "combine"}
// CHECK-SAME: {megamoe.bind = "peer_offsets", megamoe.name = "peer_offsets"}
// CHECK: warpspec.peer.ptr
// CHECK: warpspec.acc.store
// CHECK: warpspec.global.store %{{.*}}, %{{.*}} align 16 : !warpspec.global<vector<4xi32>>
// CHECK: warpspec.fence scope sys
// moe_combine_push is no longer built (only= still builds it).
// CHECK-NOT: warpspec.kernel @moe_combine_push(
// CHECK: warpspec.kernel @moe_combine_barrier(
// CHECK: warpspec.kernel @moe_combine_reduce(

// MANIFEST: schedule moe_route moe_layout moe_pull moe_l1_gemm moe_activation moe_l2_gemm moe_combine_barrier moe_combine_reduce
// MANIFEST: layer {'activation': 'swiglu', 'clamp': 10, 'fast_math': False, 'requant_block': 128, 'schedule': 'unfused'}
// 20 regions: no l2_out (512 x 512 bf16 = 524288 bytes less).
// MANIFEST: regions 20 total_bytes 1633664 workspace_bytes 384
// MANIFEST: config 512 256 8 2 2 64 clamp 10
// MANIFEST: plan unfused pool_tokens 512 variants [(0, 64, 64)]
// MANIFEST: unbound params: none
// MANIFEST: binds outside the layout: none
// MANIFEST: spills: none
// MANIFEST: moe_l1_gemm d region:l1_out f32 [512, 512] box [32, 64]

// VARIANTS: megamoe.variants = [{block_m = 64 : i64, max_tokens = 128 : i64, min_tokens = 0 : i64, schedule = ["moe_route", "moe_layout_bm64", "moe_pull_bm64", "moe_l1_gemm_bm64", "moe_activation", "moe_l2_gemm_bm64", "moe_combine_barrier", "moe_combine_reduce"]}, {block_m = 128 : i64, max_tokens = 256 : i64, min_tokens = 129 : i64, schedule = ["moe_route", "moe_layout_bm128", "moe_pull_bm128", "moe_l1_gemm_bm128", "moe_activation", "moe_l2_gemm_bm128", "moe_combine_barrier", "moe_combine_reduce"]}]
// VARIANTS-NOT: megamoe.schedule
// VARIANTS-COUNT-1: warpspec.kernel @moe_route(
// VARIANTS: warpspec.kernel @moe_layout_bm64(
// VARIANTS: warpspec.kernel @moe_pull_bm64(
// VARIANTS: warpspec.kernel @moe_l1_gemm_bm64(%{{.*}}: !warpspec.tma_desc<64x128xf8E4M3FN
// VARIANTS: warpspec.kernel @moe_activation(
// VARIANTS: warpspec.kernel @moe_l2_gemm_bm64(
// VARIANTS-NOT: warpspec.kernel @moe_combine_push(
// VARIANTS: warpspec.kernel @moe_combine_barrier(
// VARIANTS: warpspec.kernel @moe_combine_reduce(
// VARIANTS: warpspec.kernel @moe_layout_bm128(
// VARIANTS: warpspec.kernel @moe_pull_bm128(
// VARIANTS: warpspec.kernel @moe_l1_gemm_bm128(%{{.*}}: !warpspec.tma_desc<128x128xf8E4M3FN
// VARIANTS: warpspec.kernel @moe_l2_gemm_bm128(
