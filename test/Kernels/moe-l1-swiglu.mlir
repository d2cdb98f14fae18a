// The split schedule's L1 kernel (docs/SplitSchedule.md): the grouped GEMM
// with the SwiGLU + requantization epilogue, built from the collectives and
// the accumulator ops (no fragment index arithmetic in the builder).
// REQUIRES: ptxas
// BLOCK_M 128 fuses the activation only with fast-math (splitFusesActivation).
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 l1-cluster=false" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=HALF
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128 expert-align=128" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=WHOLE
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_l1_swiglu" | FileCheck %s --check-prefix=SPLITN
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_l1_swiglu" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm64" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/bm64/layer.ptx -o %t/bm64/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7 fast-math=true" --megamoe-plan="schedule=split block-m=128" --megamoe-expand="only=moe_l1_swiglu" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/layer.ptx
// RUN: grep -c "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" %t/layer.ptx | FileCheck %s --check-prefix=STORES
// RUN: %ptxas -arch=sm_90a -v %t/layer.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// Parameters: the L1 GEMM's, then the row weights, the e4m3 activation
// (TMA, [P, I = 256], 64 x 64 boxes, 64B swizzle) and its scales.
// CHECK: warpspec.kernel @moe_l1_swiglu(%arg0: {{.*}}megamoe.bind = "region:l1_pool", megamoe.name = "a"
// Half blocks (the split schedule's BLOCK_M 128 default): each m-block's
// first row and size.
// CHECK-SAME: megamoe.bind = "region:pool_block_row", megamoe.name = "block_row"
// CHECK-SAME: megamoe.bind = "region:l1_pool_weight", megamoe.name = "row_weight"
// CHECK-SAME: %arg8: !warpspec.tma_desc<64x64xf8E4M3FN, swizzle = 64> {megamoe.bind = "region:l2_pool", megamoe.name = "out", megamoe.tma = {global_shape = [256, {{[0-9]+}}], global_strides_bytes = [256]}}
// CHECK-SAME: megamoe.bind = "region:l2_pool_sf", megamoe.name = "out_scales"
// CHECK: warpspec.smem.alloc "act_tiles" : !warpspec.smem<128x64xf8E4M3FN, slots = 2, align = 1024, swizzle = 64>
// A tile is a pair of 128-column blocks: 2I / 256 = 2 pairs.
// CHECK: warpspec.role "tma"
// CHECK: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 2 raster 2
// CHECK: warpspec.role "math0"
// CHECK: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 2 raster 2
// The router weights are read before the mainloop; each column block's
// SwiGLU follows its mainloop (the ring fills for the next meanwhile).
// CHECK: %[[W:.*]] = warpspec.acc_rows.load
// CHECK: warpspec.mma.block_scaled
// CHECK: %[[G0:.*]], %[[U0:.*]] = warpspec.acc.deinterleave %{{.*}} period 8
// The activation of each block: buildSwiGLU with the clamp (min, then
// max/min), fast-math: ex2.approx and rcp.approx.
// CHECK: %[[A0:.*]] = warpspec.acc.map %[[G0]], %[[U0]] rows(%[[W]])
// CHECK: arith.minimumf
// CHECK: warpspec.approx ex2
// CHECK: warpspec.approx rcp
// CHECK: warpspec.acc.yield
// CHECK: warpspec.mma.block_scaled
// CHECK: %[[G1:.*]], %[[U1:.*]] = warpspec.acc.deinterleave %{{.*}} period 8
// CHECK: %[[A1:.*]] = warpspec.acc.map %[[G1]], %[[U1]] rows(%[[W]])
// One scale per row over both blocks (128 activation columns).
// CHECK: %[[AMAX:.*]] = warpspec.acc.row_reduce absmax %[[A0]], %[[A1]]
// CHECK: %[[SF:.*]] = warpspec.acc_rows.map %[[AMAX]]
// CHECK: arith.constant 4.480000e+02 : f32
// The requantization: products by 1 / sf (once per row), the elements
// whose byte they might not give flagged, and where a warp holds one, the
// quotients (MoeMath buildRequant*).
// CHECK: %[[RCP:.*]] = warpspec.acc_rows.map %[[SF]]
// CHECK: arith.divf
// CHECK: %[[P0:.*]] = warpspec.acc.map %[[A0]] rows(%[[RCP]], %[[SF]])
// CHECK: arith.mulf
// CHECK: %[[F0:.*]] = warpspec.acc.map %[[P0]] rows(%[[RCP]], %[[SF]])
// CHECK: warpspec.cvt.e4m3x2
// CHECK: %[[P1:.*]] = warpspec.acc.map %[[A1]] rows(%[[RCP]], %[[SF]])
// CHECK: %[[F1:.*]] = warpspec.acc.map %[[P1]] rows(%[[RCP]], %[[SF]])
// CHECK: %[[SLOW:.*]] = warpspec.acc.any %[[F0]], %[[F1]]
// CHECK: %[[Q:.*]]:2 = scf.if %[[SLOW]]
// CHECK: warpspec.acc.map %[[A0]] rows(%[[SF]])
// CHECK: arith.divf
// CHECK: arith.select
// CHECK: warpspec.acc.map %[[A1]] rows(%[[SF]])
// CHECK: } else {
// CHECK: scf.yield %[[P0]], %[[P1]]
// CHECK: warpspec.tma.store.wait pending 0 read
// CHECK: warpspec.acc.store %[[Q]]#0 -> %{{.*}}[%c0
// CHECK: warpspec.acc.store %[[Q]]#1 -> %{{.*}}[%c1
// CHECK: warpspec.fence.async_shared
// CHECK-COUNT-2: warpspec.tile.store
// CHECK: warpspec.acc_rows.store %[[SF]]

// Half blocks: an m-block's entry of block_row is its first row, bit 31 set
// on a 64-row half block, and its expert that of its first 64-row unit.
// The L1 kernels compute a half block with both math warpgroups (warpgroup
// 0 alone measured slower, Heuristics.cpp / GroupedGemm.cpp); warpgroup 1's
// rows [64, 128) are the next block's or zero-filled, so it stores nothing:
// the row and the flag are read again after the mainloop.
// HALF-NOT: named_barrier 4
// HALF: warpspec.role "tma"
// HALF: %[[PE:.*]] = warpspec.global.load
// HALF: arith.andi %[[PE]], %c2147483647_i32
// HALF: warpspec.role "math0"
// HALF-NOT: consumer.skip
// HALF-NOT: count
// HALF: warpspec.role "math1"
// HALF: %[[ENTRY:.*]] = warpspec.global.load
// HALF-NEXT: %[[MASK:.*]] = arith.constant 2147483647 : i32
// HALF-NEXT: %[[ROW:.*]] = arith.andi %[[ENTRY]], %[[MASK]] : i32
// HALF: arith.divui %[[ROW]], %c64_i32
// HALF-NOT: consumer.skip
// HALF: warpspec.mma.block_scaled
// HALF: warpspec.mma.block_scaled
// HALF: %[[AGAIN:.*]] = warpspec.global.load
// HALF: %[[ISHALF:.*]] = arith.cmpi slt, %[[AGAIN]], %{{.*}} : i32
// HALF: %[[STORE:.*]] = arith.xori %[[ISHALF]], %true : i1
// HALF-NEXT: scf.if %[[STORE]] {
// HALF: warpspec.acc.row_reduce absmax
// HALF: warpspec.tile.store
// With expert-align 128 m-block m is rows [128 m, 128 m + 128): no table.
// WHOLE-NOT: block_row
// WHOLE: warpspec.role "math1"
// WHOLE-NOT: arith.cmpi slt
// WHOLE-NOT: consumer.skip
// WHOLE: warpspec.mma.block_scaled

// BLOCK_M 64 (the planner's variant for T = 64): two math warpgroups split
// the pair's columns (KernelPlan::splitN), each with its own B tile of the
// stage, and exchange their per-row amax through SMEM between two barriers
// of both warpgroups; only the first writes the scales.
// SPLITN: warpspec.kernel @moe_l1_swiglu({{.*}}threads = 384
// SPLITN: warpspec.smem.alloc "b_tiles" : !warpspec.smem<128x128xf8E4M3FN
// SPLITN: warpspec.smem.alloc "b_tiles1" : !warpspec.smem<128x128xf8E4M3FN
// SPLITN: %[[X:.*]] = warpspec.smem.alloc "row_exchange" : !warpspec.smem<64xf32, slots = 2, align = 16>
// SPLITN: %[[PAIR:.*]] = warpspec.named_barrier 3 roles ["math0", "math1"]
// SPLITN: warpspec.role "math0"
// SPLITN-COUNT-1: warpspec.mma.block_scaled
// SPLITN: %[[A:.*]] = warpspec.acc.row_reduce absmax %{{.*}} : !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
// SPLITN: warpspec.acc_rows.store_shared %[[A]], %[[X]][%c0
// SPLITN: warpspec.barrier.sync %[[PAIR]]
// SPLITN: %[[O:.*]] = warpspec.acc_rows.load_shared %[[X]][%c1
// SPLITN: warpspec.barrier.sync %[[PAIR]]
// SPLITN: warpspec.acc_rows.map %[[A]], %[[O]]
// SPLITN: arith.maxnumf
// SPLITN: warpspec.acc_rows.store
// SPLITN: warpspec.role "math1"
// SPLITN: warpspec.acc_rows.store_shared %{{.*}}, %[[X]][%c1
// SPLITN: warpspec.acc_rows.load_shared %[[X]][%c0
// SPLITN-NOT: warpspec.acc_rows.store {{.*}}!warpspec.global
// SPLITN: warpspec.return

// PTX-LABEL: .entry moe_l1_swiglu
// PTX: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTX: shfl.sync.bfly.b32
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// Two 64-column TMA stores per tile and math warpgroup (two warpgroups).
// STORES: 4
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
