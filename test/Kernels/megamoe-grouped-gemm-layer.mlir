// The grouped GEMM options of the layer schedules: FP32 output (32-column
// 128B-swizzled panels, one TMA store each), gate/up-interleaved weight scales
// (one 8-byte load of the pair per tile and K block, acc.promote
// b_interleave 8), the block count read from global memory at kernel start
// (clamped), and a static M (manifest shapes constants, the grid the SM
// count capped at the tile count).
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=4096 out-type=f32 b-scale-interleave=8 device-m-blocks=true static-m=4096" | FileCheck %s --check-prefix=L1
// RUN: rm -rf %t && mkdir -p %t/l1 %t/l2
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=4096 out-type=f32 b-scale-interleave=8 device-m-blocks=true static-m=4096" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/l1" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX1 --input-file=%t/l1/grouped_gemm.ptx
// RUN: grep -c "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" %t/l1/grouped_gemm.ptx | FileCheck %s --check-prefix=STORES1
// RUN: grep -c "st.shared.v2.b32" %t/l1/grouped_gemm.ptx | FileCheck %s --check-prefix=PAIRS1
// RUN: %ptxas -arch=sm_90a -v %t/l1/grouped_gemm.ptx -o %t/l1/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True, separators=(',', ':')))" %t/l1/grouped_gemm.json | FileCheck %s --check-prefix=JSON1
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=2048 device-m-blocks=true static-m=4096" | FileCheck %s --check-prefix=L2
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=2048 device-m-blocks=true static-m=4096" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/l2" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/l2/grouped_gemm.ptx -o %t/l2/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: grep -c "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" %t/l2/grouped_gemm.ptx | FileCheck %s --check-prefix=STORES2
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=2048 device-m-blocks=true" | FileCheck %s --check-prefix=DEVSYM
// RUN: megamoe-opt %s --megamoe-grouped-gemm="block-n=128 experts=8 n=4096 k=2048 static-m=1024" | FileCheck %s --check-prefix=STATICVAL

// The L1 GEMM has no runtime symbol; every TMA shape/stride is a literal
// (M = 4096, E * N = 32768, D f32 rows of 4096 * 4 bytes, box 32 x 64).
// L1: #map = affine_map<(d0) -> ((d0 floordiv 8) mod 2)>
// L1: megamoe.runtime_symbols = []
// L1-SAME: B_SCALE_INTERLEAVE = 8 : i64, DEVICE_M_BLOCKS = 1 : i64, {{.*}} MAX_M = 4096 : i64, {{.*}} OUT_BYTES = 4 : i64, STAGES = 4 : i64, STATIC_M = 4096 : i64
// L1: warpspec.kernel @grouped_gemm_fp8(%arg0: {{.*}}megamoe.name = "a"{{.*}}global_shape = [4096, 4096], global_strides_bytes = [4096]
// L1-SAME: megamoe.name = "b"{{.*}}global_shape = [4096, 32768], global_strides_bytes = [4096]
// L1-SAME: megamoe.name = "a_scales"{{.*}}global_shape = [4096, 32], global_strides_bytes = [16384]
// L1-SAME: %arg3: !warpspec.tma_desc<64x32xf32, swizzle = 128> {megamoe.name = "d", megamoe.tma = {global_shape = [4096, 4096], global_strides_bytes = [16384]}
// L1-SAME: %arg6: !warpspec.global<i32> {megamoe.name = "num_m_blocks"})
// L1-SAME: megamoe.grid = [{ctas = "num_sms", max = 1024 : i64}, 1, 1]
// The block count: loaded once before the roles, clamped to [0, 4096 / 128].
// L1-NEXT: %[[RAW:.*]] = warpspec.global.load %arg6 align 4 : !warpspec.global<i32>
// L1-NEXT: %[[C32:.*]] = arith.constant 32 : i32
// L1-NEXT: %[[LO:.*]] = arith.minsi %[[RAW]], %[[C32]] : i32
// L1-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// L1-NEXT: %[[COUNT:.*]] = arith.maxsi %[[LO]], %[[C0]] : i32
// L1: %[[D:.*]] = warpspec.smem.alloc "d_tiles" : !warpspec.smem<128x32xf32, slots = 4, align = 1024, swizzle = 128>
// L1: warpspec.role "tma"
// L1: warpspec.tile_loop ({{.*}}) m_blocks(%[[COUNT]]) n_blocks 32
// L1: warpspec.role "math0"
// L1: warpspec.tile_loop ({{.*}}) m_blocks(%[[COUNT]]) n_blocks 32
// One 8-byte load of the (gate, up) scale pair: entry (tile row * 32 + k block).
// The tile's row of pairs is addressed once, its K block in the loop.
// L1: %[[PAIRS:.*]] = warpspec.global.cast %arg4 : !warpspec.global<f32> to !warpspec.global<vector<2xf32>>
// L1-NEXT: %[[ROW:.*]] = warpspec.global.offset %[[PAIRS]][%{{.*}}] : !warpspec.global<vector<2xf32>>, i32
// L1: scf.for %[[KB:[^ ]*]] = 
// L1-NEXT: %[[KB64:.*]] = arith.index_castui %[[KB]] : index to i64
// L1-NEXT: %[[AT:.*]] = warpspec.global.offset %[[ROW]][%[[KB64]]] : !warpspec.global<vector<2xf32>>, i64
// L1-NEXT: %[[PAIR:.*]] = warpspec.global.load %[[AT]] align 8 : !warpspec.global<vector<2xf32>>
// L1-NEXT: %[[GATE:.*]] = vector.extract %[[PAIR]][0] : f32 from vector<2xf32>
// L1-NEXT: %[[UP:.*]] = vector.extract %[[PAIR]][1] : f32 from vector<2xf32>
// Gate/up rows interleaved by 8: column c uses scale (c / 8) % 2.
// L1: warpspec.mma.block_scaled {{.*}} b_scales %[[GATE]], %[[UP]] b_scale_map #map into
// Four pieces of one 32-column f32 panel, each through its own slot
// (STORES1 below counts their TMA stores).
// L1-COUNT-4: warpspec.tile.store %[[D]][{{.*}}] rows 64 -> %arg3
// L1: warpspec.role "math1"

// PTX1: ld.global.b32
// PTX1: ld.global.v2.b32
// PTX1: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// Each math warpgroup: 4 TMA stores of 64 x 32 f32, 32 pair stores.
// STORES1: 8
// PAIRS1: 64
// STORES2: 4
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// JSON1: "grid":[{"ctas":"num_sms","max":1024},1,1]
// JSON1-SAME: {"kind":"pointer","name":"num_m_blocks"}
// JSON1-SAME: "tma_descriptors":[{"box":[128,128],"dtype":"e4m3","element_strides":[1,1],"global_shape":[4096,4096],"global_strides_bytes":[4096]
// JSON1-SAME: {"box":[32,64],"dtype":"f32","element_strides":[1,1],"global_shape":[4096,4096],"global_strides_bytes":[16384],"interleave":"none","l2_promotion":"256B","name":"d"
// JSON1-SAME: "runtime_symbols":[]

// The L2 GEMM: BF16 output, one scale per 128x128 block, the same device count.
// L2: megamoe.runtime_symbols = []
// L2: megamoe.name = "d", megamoe.tma = {global_shape = [4096, 4096], global_strides_bytes = [8192]}
// L2-SAME: %arg6: !warpspec.global<i32> {megamoe.name = "num_m_blocks"})
// L2: warpspec.global.load %arg6
// L2: %[[SB:.*]] = warpspec.global.load %{{.*}} : !warpspec.global<f32>
// L2: warpspec.mma.block_scaled {{.*}} b_scales %[[SB]] into
// L2-NOT: b_scale_map

// A device count with a launch-time M: M is still a runtime symbol, the grid
// is every SM (the host does not know the count).
// DEVSYM: megamoe.runtime_symbols = ["M"]
// DEVSYM: global_shape = [4096, {symbol = "M"}]
// DEVSYM-SAME: megamoe.grid = [{ctas = "num_sms"}, 1, 1]
// A static M with the count as a value: the grid is the SM count capped at
// the tile count (1024 / 128 x 4096 / 128 = 256).
// STATICVAL: megamoe.runtime_symbols = []
// STATICVAL: %arg6: i32 {megamoe.name = "num_m_blocks"}
// STATICVAL-SAME: megamoe.grid = [{ctas = "num_sms", max = 256 : i64}, 1, 1]
// STATICVAL: arith.minsi %arg6, %c8_i32
module {}
