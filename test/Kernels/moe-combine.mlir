// moe_combine_barrier, moe_combine_reduce (docs/UnfusedSchedule.md, the last
// two kernels; the L2 grouped GEMM's epilogue pushes the rows): the builders'
// IR, then the SM90 pipeline to PTX, the manifest's bindings and ptxas
// resources. Layer: H = 512 (64 vectors of 16 B per row), K = 2, R = 2,
// T = 64, E = 8.
// REQUIRES: ptxas
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_combine_barrier,moe_combine_reduce" | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && mkdir -p %t/h7168
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_combine_barrier,moe_combine_reduce" --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/layer.ptx
// RUN: %python -c "import json,sys; [print(k['name'], k['block'], k['grid'], [(p['name'], p['kind'], p['bind']) for p in k['params']]) for k in json.load(open(sys.argv[1]))['kernels']]" %t/layer.json | FileCheck %s --check-prefix=JSON
// RUN: %ptxas -arch=sm_90a -v %t/layer.ptx -o %t/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// DeepSeek-V3 at EP8: the reduce reads K = 8 slots.
// RUN: megamoe-opt %s --megamoe-layer="hidden=7168 intermediate=2048 experts=256 topk=8 ranks=8 max-tokens=8192 chip=sm_90a" --megamoe-plan="schedule=unfused block-m=128" --megamoe-expand="only=moe_combine_reduce" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/h7168" -o /dev/null
// RUN: FileCheck %s --check-prefix=H7168 --input-file=%t/h7168/layer.ptx
// RUN: %ptxas -arch=sm_90a -v %t/h7168/layer.ptx -o %t/h7168/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// IR-LABEL: warpspec.kernel @moe_combine_barrier(
// IR-SAME: %[[BARRIERS:[a-z0-9]+]]: !warpspec.global<i32> {megamoe.bind = "region:barriers", megamoe.name = "barriers"}
// IR-SAME: %[[BPEERS:[a-z0-9]+]]: !warpspec.global<i64> {megamoe.bind = "peer_offsets", megamoe.name = "peer_offsets"}
// IR-SAME: %[[RANK:[a-z0-9]+]]: i32 {megamoe.bind = "value:rank", megamoe.name = "rank"}
// IR-SAME: megamoe.grid = [1, 1, 1], programmatic_launch, threads = 32 : i32
// IR: scf.if
// IR: %[[CTR:.*]] = warpspec.global.offset %[[BARRIERS]]
// IR: warpspec.cross_rank.barrier %[[CTR]], %[[RANK]], %c2_i32, %[[BPEERS]] scope sys name "moe_combine_barrier: barriers[1], before the combine reduce" timeout_cycles 20000000000 : !warpspec.global<i32>, !warpspec.global<i64>

// IR-LABEL: warpspec.kernel @moe_combine_reduce(
// IR-SAME: %[[IDX:[a-z0-9]+]]: !warpspec.global<i64> {megamoe.bind = "region:topk_idx", megamoe.name = "topk_idx"}
// IR-SAME: %[[CMB:[a-z0-9]+]]: !warpspec.global<bf16> {megamoe.bind = "region:combine", megamoe.name = "combine"}
// IR-SAME: %[[Y:[a-z0-9]+]]: !warpspec.global<bf16> {megamoe.bind = "input:y", megamoe.name = "y"}
// IR-SAME: %[[NT:[a-z0-9]+]]: i32 {megamoe.bind = "value:num_tokens", megamoe.name = "num_tokens"}
// IR-SAME: megamoe.grid = [{ctas = "num_sms"}, 1, 1], programmatic_launch, threads = 512 : i32
// Tokens bounded by T; one thread per 8 channels of a token.
// IR: %[[NT0:.*]] = arith.maxsi %[[NT]], %c0_i32
// IR: %[[NTB:.*]] = arith.minsi %[[NT0]], %c64_i32
// IR: %[[ITEMS:.*]] = arith.muli %[[NTB]], %c64_i32
// IR: scf.for %{{.*}} = %{{.*}} to %[[ITEMS]] step
// Slots in order, f32 sums starting at 0; slots with ids outside [0, E) skipped.
// IR: scf.for %[[K:.*]] = %c0_i32{{.*}} to %c2_i32 step %c1_i32 iter_args(%[[ACC0:[a-z0-9]+]] = %cst, {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// IR: %[[IDXB:.*]] = warpspec.global.cast %[[IDX]] : !warpspec.global<i64> to !warpspec.global<i8>
// IR: %[[EB:.*]] = warpspec.global.offset %[[IDXB]]
// IR: %[[EPTR:.*]] = warpspec.global.cast %[[EB]] : !warpspec.global<i8> to !warpspec.global<i64>
// IR: %[[E:.*]] = warpspec.global.load %[[EPTR]] align 8 : !warpspec.global<i64>
// IR: arith.cmpi sge, %[[E]], %c0_i64
// IR: arith.cmpi slt, %[[E]], %c8_i64
// IR: scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// IR: warpspec.global.cast %[[CMB]]
// IR: %[[V:.*]] = warpspec.global.load %{{.*}} align 16 : !warpspec.global<vector<4xi32>>
// IR: %[[W0:.*]] = vector.extract %[[V]][0]
// IR: %[[LOBITS:.*]] = arith.shli %[[W0]], %c16_i32
// IR: %[[LOF:.*]] = arith.bitcast %[[LOBITS]] : i32 to f32
// IR: arith.addf %[[ACC0]], %[[LOF]] : f32
// IR: } else {
// IR: scf.yield %[[ACC0]],
// bf16 round to nearest even, 16-byte store into y[t].
// IR: arith.truncf %{{.*}} : f32 to bf16
// IR: %[[YB:.*]] = warpspec.global.cast %[[Y]] : !warpspec.global<bf16> to !warpspec.global<i8>
// IR: %[[YROW:.*]] = warpspec.global.offset %[[YB]]
// IR: warpspec.global.store %{{.*}} align 16 : !warpspec.global<vector<4xi32>>

// PTX-LABEL: .entry moe_combine_barrier(
// PTX: .reqntid 32, 1, 1
// PTX: red.release.sys.global.add.u32
// PTX: ld.acquire.sys.global.b32
// PTX: trap;
// PTX-LABEL: .entry moe_combine_reduce(
// PTX: min.s32 {{.*}}, 64;
// PTX-DAG: ld.global.b64
// PTX-DAG: add.rn.f32 {{.*}}, 0f00000000;
// PTX-DAG: ld.global.b64 {{.*}}+8];
// PTX-DAG: ld.global.v4.b32 {{.*}}+65536];
// PTX-DAG: cvt.rn.bf16.f32
// PTX-DAG: st.global.v4.b32

// JSON: moe_combine_barrier [32, 1, 1] [1, 1, 1] [('barriers', 'pointer', 'region:barriers'), ('peer_offsets', 'pointer', 'peer_offsets'), ('rank', 'i32', 'value:rank')]
// JSON: moe_combine_reduce [512, 1, 1] [{'ctas': 'num_sms'}, 1, 1] [('topk_idx', 'pointer', 'region:topk_idx'), ('combine', 'pointer', 'region:combine'), ('y', 'pointer', 'input:y'), ('num_tokens', 'i32', 'value:num_tokens')]

// PTXAS: Compiling entry function 'moe_combine_reduce' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// H7168-LABEL: .entry moe_combine_reduce(
// H7168-COUNT-8: ld.global.v4.b32
