// The grouped GEMM's combine scatter (the L2 GEMM of the unfused schedule):
// no D descriptor; after acc.store into the 128B-swizzled SMEM tile and the
// warpgroup's named barrier, the warpgroup's 128 threads read its 64 rows
// back (16 threads per row, one 16-byte chunk each, 8 passes of 8 rows) and
// store each row with a valid (rank, token, slot) in pool_source to that
// rank's combine[slot][token][n0 ...] through warpspec.peer.ptr. Every math
// thread ends with fence.sc.sys.
// Shapes: N = 4096 (8192 B per combine row), T = 8192, K = 6, R = 2,
// BLOCK_M 128 (two math warpgroups) and 64 (one).
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=2048 device-m-blocks=true static-m=4096 combine-scatter=true combine-tokens=8192 combine-topk=6 combine-ranks=2" | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t/bm128 %t/bm64
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=2048 device-m-blocks=true static-m=4096 combine-scatter=true combine-tokens=8192 combine-topk=6 combine-ranks=2" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm128" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/bm128/grouped_gemm.ptx
// RUN: grep -c "st.global.v4.b32" %t/bm128/grouped_gemm.ptx | FileCheck %s --check-prefix=STORES128
// RUN: grep -c "ld.shared.v4.b32" %t/bm128/grouped_gemm.ptx | FileCheck %s --check-prefix=STORES128
// RUN: grep -c "fence.sc.sys" %t/bm128/grouped_gemm.ptx | FileCheck %s --check-prefix=FENCES128
// RUN: %ptxas -arch=sm_90a -v %t/bm128/grouped_gemm.ptx -o %t/bm128/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; print([p['name'] for p in k['params']], [t['name'] for t in k['tma_descriptors']], k['resources'])" %t/bm128/grouped_gemm.json | FileCheck %s --check-prefix=JSON
// RUN: megamoe-opt %s --megamoe-grouped-gemm="experts=8 n=4096 k=2048 block-m=64 device-m-blocks=true static-m=4096 combine-scatter=true combine-tokens=8192 combine-topk=6 combine-ranks=2" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/bm64" -o /dev/null
// RUN: grep -c "st.global.v4.b32" %t/bm64/grouped_gemm.ptx | FileCheck %s --check-prefix=STORES64
// RUN: %ptxas -arch=sm_90a -v %t/bm64/grouped_gemm.ptx -o %t/bm64/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK: gpu.module @grouped_gemm
// CHECK-SAME: COMBINE_RANKS = 2 : i64, COMBINE_TOKENS = 8192 : i64, COMBINE_TOPK = 6 : i64
// No D descriptor: pool_source, combine, peer_offsets follow num_m_blocks.
// CHECK: warpspec.kernel @grouped_gemm_fp8(
// CHECK-NOT: megamoe.name = "d"
// CHECK-SAME: %arg5: !llvm.ptr<1> {megamoe.name = "num_m_blocks"}, %[[SOURCE:arg6]]: !llvm.ptr<1> {megamoe.name = "pool_source"}, %[[COMBINE:arg7]]: !llvm.ptr<1> {megamoe.name = "combine"}, %[[PEERS:arg8]]: !llvm.ptr<1> {megamoe.name = "peer_offsets"})
// CHECK: warpspec.role "tma"
// CHECK-COUNT-3: warpspec.tma.prefetch
// CHECK-NOT: warpspec.tma.prefetch
// CHECK: warpspec.role "math0"
// Pass 0 of this thread: pool row = m-block row + tile row; (rank, token,
// slot) = pool_source[row] (12 bytes), each checked against R, T, K.
// CHECK: warpspec.acc.promote
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c0_i32{{.*}} : i32
// CHECK-NEXT: %[[ROW64:.*]] = arith.extui %[[ROW]] : i32 to i64
// CHECK-NEXT: %c12_i64 = arith.constant 12 : i64
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[ROW64]], %c12_i64 : i64
// CHECK-NEXT: %[[SRC:.*]] = llvm.getelementptr %[[SOURCE]][%[[OFF]]]
// CHECK-NEXT: %[[RANK:.*]] = llvm.load %[[SRC]] {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: %[[TOKEN:.*]] = llvm.load
// CHECK: %[[SLOT:.*]] = llvm.load
// CHECK: arith.constant 6 : i32
// CHECK: arith.cmpi slt, %[[SLOT]]
// CHECK: arith.constant 8192 : i32
// CHECK: arith.cmpi slt, %[[TOKEN]]
// CHECK: arith.constant 2 : i32
// CHECK: arith.cmpi slt, %[[RANK]]
// CHECK-NEXT: %[[RANKOK:.*]] = arith.andi
// CHECK-NEXT: %[[RT:.*]] = arith.andi %[[RANKOK]], %{{.*}} : i1
// CHECK-NEXT: %[[VALID:.*]] = arith.andi %[[RT]], %{{.*}} : i1
// Padding rows (rank -1) read the peer table at rank 0 and store nothing.
// CHECK-NEXT: %[[SAFE:.*]] = arith.select %[[VALID]], %[[RANK]], %c0_i32{{.*}} : i32
// CHECK-NEXT: %[[REMOTE:.*]] = warpspec.peer.ptr %[[COMBINE]], %[[SAFE]], %[[PEERS]]
// combine row = slot * T + token, 8192 bytes each, + n0 * 2 + chunk * 16.
// CHECK: %c8192_i64 = arith.constant 8192 : i64
// CHECK: %[[CROW0:.*]] = arith.muli %{{.*}}, %c8192_i64 : i64
// CHECK-NEXT: %[[CROW:.*]] = arith.addi %[[CROW0]], %{{.*}} : i64
// CHECK: %[[CBYTES:.*]] = arith.muli %[[CROW]], %{{.*}} : i64
// CHECK-NEXT: %[[DSTROW:.*]] = llvm.getelementptr %[[REMOTE]][%[[CBYTES]]]
// CHECK-NEXT: %[[DST0:.*]] = llvm.getelementptr %[[DSTROW]][%{{.*}}]
// Passes 1..7: 8 rows further each.
// CHECK: arith.constant 8 : i32
// CHECK-COUNT-7: warpspec.peer.ptr %[[COMBINE]]
// CHECK-NOT: warpspec.peer.ptr
// CHECK: warpspec.barrier.sync %[[BAR:.*]]
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: warpspec.acc.store %{{.*}} -> %[[TILE:.*]][%{{.*}}, %{{.*}}] : !warpspec.acc<64x128xf32>, !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>
// CHECK-NEXT: warpspec.barrier.sync %[[BAR]]
// SMEM: panel (chunk / 8) * 128 rows * 128 B + row * 128 B + ((chunk % 8) ^
// (row % 8)) * 16 B, then + 1024 B (8 rows) per pass.
// CHECK-NEXT: %c8_i32{{.*}} = arith.constant 8 : i32
// CHECK-NEXT: %[[INPANEL:.*]] = arith.remui %[[CHUNK:.*]], %c8_i32{{.*}} : i32
// CHECK-NEXT: %c7_i32 = arith.constant 7 : i32
// CHECK-NEXT: %[[PHASE:.*]] = arith.andi %[[TROW:.*]], %c7_i32 : i32
// CHECK-NEXT: %[[SW:.*]] = arith.xori %[[INPANEL]], %[[PHASE]] : i32
// CHECK-NEXT: %c8_i32{{.*}} = arith.constant 8 : i32
// CHECK-NEXT: %[[PANEL:.*]] = arith.divui %[[CHUNK]], %c8_i32{{.*}} : i32
// CHECK-NEXT: %c16_i32{{.*}} = arith.constant 16 : i32
// CHECK-NEXT: %[[SWB:.*]] = arith.muli %[[SW]], %c16_i32{{.*}} : i32
// CHECK-NEXT: %c128_i32 = arith.constant 128 : i32
// CHECK-NEXT: %[[ROWB:.*]] = arith.muli %[[TROW]], %c128_i32 : i32
// CHECK-NEXT: %c16384_i32 = arith.constant 16384 : i32
// CHECK-NEXT: %[[PANELB:.*]] = arith.muli %[[PANEL]], %c16384_i32 : i32
// CHECK-NEXT: %[[A:.*]] = arith.addi %[[PANELB]], %[[ROWB]] : i32
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[A]], %[[SWB]] : i32
// CHECK-NEXT: %[[SLOTP:.*]] = warpspec.smem.slot %[[TILE]]
// CHECK-NEXT: %[[BASE:.*]] = llvm.getelementptr %[[SLOTP]][%[[B]]]
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %[[BASE]][0]
// CHECK-NEXT: %[[V0:.*]] = llvm.load %[[P0]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[BASE]][1024]
// CHECK: llvm.getelementptr %[[BASE]][7168]
// CHECK-NEXT: llvm.load
// All reads before the stores; each store only for a valid row.
// CHECK-NEXT: scf.if %[[VALID]] {
// CHECK-NEXT: llvm.store %[[V0]], %[[DST0]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NEXT: }
// CHECK-COUNT-7: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NOT: warpspec.tma.store
// After the tile loop: the system-scope fence, no TMA store drain.
// CHECK: warpspec.fence scope sys
// CHECK-NOT: warpspec.tma.store_wait
// CHECK: warpspec.role "math1"
// math1: its rows start at tile row 64.
// CHECK: arith.constant 64 : i32

// PTX: .entry grouped_gemm_fp8(
// PTX-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// PTX: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: bar.sync 1, 128;
// PTX: ld.shared.v4.b32
// PTX: st.global.v4.b32
// PTX: fence.sc.sys;
// PTX-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// Eight 16-byte reads and stores per thread and tile: 8 per math warpgroup.
// STORES128: 16
// The two math roles end in one shared fence block (LLVM merges the tails).
// FENCES128: 1
// STORES64: 8
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// JSON: ['a', 'b', 'a_scales', 'b_scales', 'block_expert', 'num_m_blocks', 'pool_source', 'combine', 'peer_offsets'] ['a', 'b', 'a_scales'] {{.*}}'spill_loads_bytes': 0, 'spill_stores_bytes': 0, 'stack_bytes': 0
module {}
