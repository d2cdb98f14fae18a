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
// CHECK-SAME: %arg5: !warpspec.global<i32> {megamoe.name = "num_m_blocks"}, %[[SOURCE:arg6]]: !warpspec.global<i32> {megamoe.name = "pool_source"}, %[[COMBINE:arg7]]: !warpspec.global<bf16> {megamoe.name = "combine"}, %[[PEERS:arg8]]: !warpspec.global<i64> {megamoe.name = "peer_offsets"})
// CHECK: warpspec.role "tma"
// CHECK-COUNT-3: warpspec.tma.prefetch
// CHECK-NOT: warpspec.tma.prefetch
// CHECK: warpspec.role "math0"
// Pass 0 of this thread: pool row = m-block row + tile row; (rank, token,
// slot) = pool_source[row] (12 bytes), each checked against R, T, K.
// CHECK: warpspec.mma.block_scaled
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c0_i32{{.*}} : i32
// CHECK-NEXT: %c3_i32 = arith.constant 3 : i32
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[ROW]], %c3_i32 : i32
// CHECK-NEXT: %[[SRC:.*]] = warpspec.global.offset %[[SOURCE]][%[[OFF]]] : !warpspec.global<i32>, i32
// CHECK-NEXT: %c0_i32{{.*}} = arith.constant 0 : i32
// CHECK-NEXT: %[[RANKP:.*]] = warpspec.global.offset %[[SRC]][%c0_i32{{.*}}]
// CHECK-NEXT: %[[RANK:.*]] = warpspec.global.load %[[RANKP]] align 4 : !warpspec.global<i32>
// CHECK: %[[TOKEN:.*]] = warpspec.global.load
// CHECK: %[[SLOT:.*]] = warpspec.global.load
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
// CHECK-NEXT: %[[RBYTES:.*]] = warpspec.global.cast %[[REMOTE]] : !warpspec.global<bf16> to !warpspec.global<i8>
// CHECK-NEXT: %[[DSTROW:.*]] = warpspec.global.offset %[[RBYTES]][%[[CBYTES]]] : !warpspec.global<i8>, i64
// CHECK-NEXT: %[[DST0:.*]] = warpspec.global.offset %[[DSTROW]][%{{.*}}]
// Passes 1..7: 8 rows further each.
// CHECK: arith.constant 8 : i32
// CHECK-COUNT-7: warpspec.peer.ptr %[[COMBINE]]
// CHECK-NOT: warpspec.peer.ptr
// CHECK: warpspec.barrier.sync %[[BAR:.*]]
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: warpspec.acc.store %{{.*}} -> %[[TILE:.*]][%{{.*}}, %{{.*}}] : !warpspec.acc<64x128xf32>, !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>
// CHECK-NEXT: warpspec.barrier.sync %[[BAR]]
// The tile is read back through tile.load (the swizzle and panels are the
// lowering's: test/Conversion/WarpSpecToNVVM/tile-store-load.mlir): chunk
// `chunk` of tile rows row, row + 8, ..., row + 56.
// CHECK-NEXT: %[[V0:.*]] = warpspec.tile.load %[[TILE]][%{{.*}}, %[[TROW:.*]], %[[CHUNK:.*]]] : !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128> -> vector<4xi32>
// CHECK-NEXT: %c8_i32{{.*}} = arith.constant 8 : i32
// CHECK-NEXT: %[[R1:.*]] = arith.addi %[[TROW]], %c8_i32{{.*}} : i32
// CHECK-NEXT: warpspec.tile.load %[[TILE]][%{{.*}}, %[[R1]], %[[CHUNK]]]
// CHECK-COUNT-6: warpspec.tile.load %[[TILE]]
// All reads before the stores; each store only for a valid row.
// CHECK-NEXT: scf.if %[[VALID]] {
// CHECK-NEXT: %[[DSTV:.*]] = warpspec.global.cast %[[DST0]] : !warpspec.global<i8> to !warpspec.global<vector<4xi32>>
// CHECK-NEXT: warpspec.global.store %[[V0]], %[[DSTV]] align 16 : !warpspec.global<vector<4xi32>>
// CHECK-NEXT: }
// CHECK-COUNT-7: warpspec.global.store %{{.*}} align 16 : !warpspec.global<vector<4xi32>>
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
