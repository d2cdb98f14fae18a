// moe_activation (docs/UnfusedSchedule.md, kernel 5): the builder's IR, then
// the SM90 pipeline to PTX, the manifest's bindings and ptxas resources.
// Layer: I = 384 (3 groups of 128 columns), clamp 7, P = 768.
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=384 experts=8 topk=2 ranks=2 max-tokens=64 clamp=7 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_activation" | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && mkdir -p %t/fast
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=384 experts=8 topk=2 ranks=2 max-tokens=64 clamp=7 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_activation" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/layer.ptx
// Precise math: every division is div.rn.f32 (IEEE), no approximate one.
// RUN: not grep -E "div\.(approx|full)|rcp\.approx" %t/layer.ptx
// RUN: %python -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; print(k['name'], k['block'], k['grid'], [(p['name'], p['kind'], p['bind']) for p in k['params']])" %t/layer.json | FileCheck %s --check-prefix=JSON
// RUN: %ptxas -arch=sm_90a -v %t/layer.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// Fast math: ex2.approx and rcp.approx instead of libdevice expf and div.rn.
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64 fast-math=true chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_activation" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/fast" -o /dev/null
// RUN: FileCheck %s --check-prefix=FAST --input-file=%t/fast/layer.ptx
// RUN: %ptxas -arch=sm_90a -v %t/fast/layer.ptx -o %t/fast/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// IR-LABEL: warpspec.kernel @moe_activation(
// IR-SAME: %[[INFO:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:pool_info", megamoe.name = "pool_info"}
// IR-SAME: %[[H:[a-z0-9]+]]: !warpspec.global<f32> {megamoe.bind = "region:l1_out", megamoe.name = "l1_out"}
// IR-SAME: %[[W:[a-z0-9]+]]: !warpspec.global<f32> {megamoe.bind = "region:l1_pool_weight", megamoe.name = "l1_pool_weight"}
// IR-SAME: %[[Q:[a-z0-9]+]]: !warpspec.global<i8> {megamoe.bind = "region:l2_pool", megamoe.name = "l2_pool"}
// IR-SAME: %[[SF:[a-z0-9]+]]: !warpspec.global<f32> {megamoe.bind = "region:l2_pool_sf", megamoe.name = "l2_pool_sf"}
// IR-SAME: megamoe.grid = [{ctas = "num_sms"}, 1, 1], programmatic_launch, threads = 1024 : i32
// Work items: used rows (pool_info[1], bounded by P) x 3 column groups, one
// warp each, grid-stride.
// IR: warpspec.global.offset %[[INFO]]
// IR: %[[USED:.*]] = warpspec.global.load
// IR: %[[LO:.*]] = arith.maxsi %[[USED]], %c0_i32
// IR: %[[ROWS:.*]] = arith.minsi %[[LO]], %c768_i32
// IR: %[[ITEMS:.*]] = arith.muli %[[ROWS]], %c3_i32
// IR: scf.for %[[ITEM:.*]] = %{{.*}} to %[[ITEMS]] step %{{.*}} : i32 {
// IR: %[[ROW:.*]] = arith.divui %[[ITEM]], %c3_i32
// IR: %[[GROUP:.*]] = arith.remui %[[ITEM]], %c3_i32
// Lane's 4 columns j; gate at 16 (j / 8) + j % 8, up 8 further (32 bytes).
// IR: %[[J:.*]] = arith.addi
// IR: %[[JM8:.*]] = arith.remui %[[J]], %c8_i32
// IR: %[[JD8:.*]] = arith.divui %[[J]], %c8_i32
// IR: %[[JD8X16:.*]] = arith.muli %[[JD8]], %c16_i32
// IR: %[[GCOL:.*]] = arith.addi %[[JD8X16]], %[[JM8]]
// IR: %[[HB:.*]] = warpspec.global.cast %[[H]] : !warpspec.global<f32> to !warpspec.global<i8>
// IR: %[[GPTR:.*]] = warpspec.global.offset %[[HB]]
// IR: %[[UPTR:.*]] = warpspec.global.offset %[[GPTR]][%c32_i64]
// IR: warpspec.global.cast %[[W]]
// IR: %[[WEIGHT:.*]] = warpspec.global.load %{{.*}} : !warpspec.global<f32>
// A zero router weight (every padding row) gives q = 0, sf = 0 without reading h.
// IR: %[[ZW:.*]] = arith.cmpf oeq, %[[WEIGHT]], %{{.*}} : f32
// IR: %[[QS:.*]]:2 = scf.if %[[ZW]] -> (i32, f32) {
// IR-NEXT: %[[Z0:.*]] = arith.constant 0 : i32
// IR-NEXT: %[[Z1:.*]] = arith.constant 0.000000e+00 : f32
// IR-NEXT: scf.yield %[[Z0]], %[[Z1]] : i32, f32
// IR-NEXT: } else {
// IR: %[[GV:.*]] = warpspec.global.cast %[[GPTR]] : !warpspec.global<i8> to !warpspec.global<vector<4xf32>>
// IR-NEXT: %[[G:.*]] = warpspec.global.load %[[GV]] align 16 : !warpspec.global<vector<4xf32>>
// IR: %[[UV:.*]] = warpspec.global.cast %[[UPTR]] : !warpspec.global<i8> to !warpspec.global<vector<4xf32>>
// IR-NEXT: %[[U:.*]] = warpspec.global.load %[[UV]] align 16 : !warpspec.global<vector<4xf32>>
// SwiGLU of one element (MoeMath): clamp, silu via libdevice expf, * up * w.
// IR: %[[G0:.*]] = vector.extract %[[G]][0]
// IR: %[[U0:.*]] = vector.extract %[[U]][0]
// IR: %[[GC:.*]] = arith.minimumf %[[G0]], %[[C:.*]] : f32
// IR: %[[UC1:.*]] = arith.maximumf %[[U0]], %[[NC:.*]] : f32
// IR: %[[UC:.*]] = arith.minimumf %[[UC1]], %[[C]] : f32
// IR: %[[NEG:.*]] = arith.negf %[[GC]] : f32
// IR: %[[E:.*]] = math.exp %[[NEG]] : f32
// IR: %[[D:.*]] = arith.addf %{{.*}}, %[[E]] : f32
// IR: %[[SILU:.*]] = arith.divf %[[GC]], %[[D]] : f32
// IR: %[[SU:.*]] = arith.mulf %[[SILU]], %[[UC]] : f32
// IR: %[[A0:.*]] = arith.mulf %[[SU]], %[[WEIGHT]] : f32
// IR: math.absf %[[A0]]
// IR-COUNT-3: math.exp
// amax over the warp, sf = amax / 448, q = e4m3(a / sf) or 0.
// IR-COUNT-5: gpu.shuffle  xor
// IR: %[[AMAX:.*]] = arith.maxnumf
// IR: %[[S:.*]] = arith.divf %[[AMAX]], %{{.*}} : f32
// IR: %[[Q0:.*]] = arith.divf %[[A0]], %[[S]] : f32
// IR: %[[Q1:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// IR: warpspec.cvt.e4m3x2 %[[Q0]], %[[Q1]]
// IR: warpspec.cvt.e4m3x2
// IR: %[[POS:.*]] = arith.cmpf ogt, %[[S]], %{{.*}} : f32
// IR: %[[PACKED:.*]] = arith.select %[[POS]], %{{.*}}, %{{.*}} : i32
// IR: scf.yield %[[PACKED]], %[[S]] : i32, f32
// l2_pool[row][j .. j + 4): one 4-byte store per lane.
// IR: arith.muli %{{.*}}, %c384_i64
// IR: %[[QB:.*]] = warpspec.global.offset %[[Q]]
// IR: %[[QPTR:.*]] = warpspec.global.cast %[[QB]] : !warpspec.global<i8> to !warpspec.global<i32>
// IR: warpspec.global.store %[[QS]]#0, %[[QPTR]] align 4 : !warpspec.global<i32>
// l2_pool_sf[group][row] (MN-major), lane 0.
// IR: scf.if
// IR: arith.muli %{{.*}}, %c768_i64
// IR: warpspec.global.cast %[[SF]]
// IR: %[[SFB:.*]] = warpspec.global.offset
// IR: %[[SFPTR:.*]] = warpspec.global.cast %[[SFB]] : !warpspec.global<i8> to !warpspec.global<f32>
// IR: warpspec.global.store %[[QS]]#1, %[[SFPTR]] align 4 : !warpspec.global<f32>
// IR: warpspec.return

// The constants: clamp 7, amax / 448.
// PTX-LABEL: .entry moe_activation(
// PTX: .reqntid 1024, 1, 1
// PTX: min.s32 {{.*}}, 768;
// PTX: ld.global.v4.b32
// PTX: ld.global.v4.b32 {{.*}}+32];
// PTX: min.NaN.f32 {{.*}}, 0f40E00000;
// PTX: max.NaN.f32 {{.*}}, 0fC0E00000;
// libdevice expf (range reduction + ex2 on the reduced argument), IEEE division.
// PTX: fma.rm.f32
// PTX: ex2.approx.ftz.f32
// PTX: div.rn.f32
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX: div.rn.f32 [[SF:%r[0-9]+]], %r{{[0-9]+}}, 0f43E00000;
// PTX: div.rn.f32 [[A:%r[0-9]+]], %r{{[0-9]+}}, [[SF]];
// PTX: div.rn.f32 [[B:%r[0-9]+]], %r{{[0-9]+}}, [[SF]];
// PTX: cvt.rn.satfinite.e4m3x2.f32 %rs{{[0-9]+}}, [[B]], [[A]];
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: setp.gt.f32 [[POS:%p[0-9]+]], [[SF]], 0f00000000;
// PTX: selp.b32 {{.*}}, [[POS]];
// PTX: st.global.b32
// PTX: st.global.b32 {{.*}}, [[SF]];

// JSON: moe_activation [1024, 1, 1] [{'ctas': 'num_sms'}, 1, 1] [('pool_info', 'pointer', 'region:pool_info'), ('l1_out', 'pointer', 'region:l1_out'), ('l1_pool_weight', 'pointer', 'region:l1_pool_weight'), ('l2_pool', 'pointer', 'region:l2_pool'), ('l2_pool_sf', 'pointer', 'region:l2_pool_sf')]

// PTXAS: Compiling entry function 'moe_activation' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// FAST-LABEL: .entry moe_activation(
// FAST: mul.rn.f32 [[X:%r[0-9]+]], %r{{[0-9]+}}, 0fBFB8AA3B;
// FAST: ex2.approx.ftz.f32 [[E:%r[0-9]+]], [[X]];
// FAST: add.rn.f32 [[D:%r[0-9]+]], [[E]], 0f3F800000;
// FAST: rcp.approx.ftz.f32 %r{{[0-9]+}}, [[D]];
// FAST-NOT: fma.rm.f32
// FAST: div.rn.f32 {{.*}}, 0f43E00000;
