// The phase profile (megamoe-expand profile=true, docs/Profile.md): the
// kernels get a last `profile` parameter bound to "profile" and stamp
// %globaltimer at their phase boundaries; without the option neither the
// parameter nor a stamp exists. Stamps per kernel (one warpspec.timestamp per
// begin or end, each in its elected lane's branch):
//   moe_l1_swiglu (BLOCK_M 64, split columns): tma 2 (L1 mainloop),
//     math0 and math1 4 each (mainloop + epilogue)                  = 10
//   moe_l2_gemm (BLOCK_M 64: math1 only walks the ring): 2 + 4     =  6
//   the five stage kernels: a CTA begin and end each                 = 10
//   moe_fused_gemm BLOCK_M 128: tma 6 (L1 mainloop, L2 wait, L2
//     mainloop), math0 and math1 8 each                              = 22
//   moe_fused_gemm BLOCK_M 64: math1 computes no L2 tile             = 18
// REQUIRES: ptxas
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split" --megamoe-expand="profile=true only=moe_l1_swiglu" | FileCheck %s
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split" --megamoe-expand="profile=true only=moe_l1_swiglu" | grep -c "warpspec.timestamp" | FileCheck %s --check-prefix=L1
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split" --megamoe-expand="profile=true" | grep -c "warpspec.timestamp" | FileCheck %s --check-prefix=SPLIT
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split" --megamoe-expand | FileCheck %s --check-prefix=OFF
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=128" --megamoe-expand="profile=true only=moe_fused_gemm" | grep -c "warpspec.timestamp" | FileCheck %s --check-prefix=FUSED128
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm" --megamoe-expand="profile=true only=moe_fused_gemm" | grep -c "warpspec.timestamp" | FileCheck %s --check-prefix=FUSED64
// RUN: not megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="profile=true profile-capacity=0" 2>&1 | FileCheck %s --check-prefix=CAP
// RUN: rm -rf %t && mkdir -p %t
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=split" --megamoe-expand="profile=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/split" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/split/layer.ptx
// RUN: %ptxas -arch=sm_90a -v %t/split/layer.ptx -o %t/split/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); p=m['profile']; print(p['bytes'], p['phases']); print(sorted((n, k['first_record'], k['capacity'], len(k['roles'])) for n, k in p['kernels'].items())); print(sorted({q['bind'] for k in m['kernels'] for q in k['params'] if q['name'] == 'profile'}))" %t/split/layer.json | FileCheck %s --check-prefix=JSON
// RUN: megamoe-opt --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a clamp=7" --megamoe-plan="schedule=fused-gemm block-m=128" --megamoe-expand="profile=true" --megamoe-to-cubin="chip=sm_90a emit-dir=%t/fused" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/fused/layer.ptx -o %t/fused/check.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK-LABEL: warpspec.kernel @moe_l1_swiglu
// CHECK-SAME: %{{.*}}: !warpspec.global<i64> {megamoe.bind = "profile", megamoe.name = "profile"})
// CHECK: warpspec.role "tma"
// CHECK: warpspec.tile_loop
// The elected lane's slot n is written only when n < capacity (1024) and the
// CTA has a slice (blockIdx.x < 160): records past them are dropped.
// CHECK: %[[N:.*]] = warpspec.sequence.next "profile" : i32
// CHECK-DAG: %[[MAXC:.*]] = arith.constant 160 : i32
// CHECK-DAG: %[[LIMIT:.*]] = arith.constant 1024 : i32
// CHECK-DAG: arith.cmpi ult, %{{.*}}, %[[MAXC]] : i32
// CHECK-DAG: arith.cmpi ult, %[[N]], %[[LIMIT]] : i32
// CHECK: scf.if
// CHECK-NEXT: warpspec.timestamp : i64
// CHECK: warpspec.sm_id : i32
// CHECK: warpspec.global.store
// CHECK: warpspec.role "math0"
// CHECK: warpspec.timestamp : i64
// L1: 10
// SPLIT: 26
// FUSED128: 22
// FUSED64: 18
// OFF-NOT: warpspec.timestamp
// OFF-NOT: megamoe.profile
// OFF-NOT: "profile"
// CAP: megamoe-expand: profile-capacity (0) must be in [1, 65536]
// PTX-LABEL: .entry moe_l1_swiglu(
// PTX: %globaltimer
// PTX: %smid
// Every kernel: 0 spills (the stage kernels' stack frames are their printf
// arguments, as without the profile).
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// JSON: 15754240 ['cta', 'l1_mainloop', 'l1_epilogue', 'l2_wait', 'l2_mainloop', 'l2_epilogue', 'pull', 'ring_wait']
// JSON-NEXT: [('moe_combine_barrier', 984000, 2, 1), ('moe_combine_reduce', 984320, 2, 1), ('moe_l1_swiglu', 960, 1024, 3), ('moe_l2_gemm', 492480, 1024, 3), ('moe_layout', 320, 2, 1), ('moe_pull', 640, 2, 1), ('moe_route', 0, 2, 1)]
// JSON-NEXT: ['profile']
