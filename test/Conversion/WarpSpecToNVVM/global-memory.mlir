// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm),reconcile-unrealized-casts)' | FileCheck %s
// RUN: warpspec-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: %python -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels'][0]; print([(p['name'], p['kind']) for p in k['params']])" %t/k.json | FileCheck %s --check-prefix=JSON
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// Typed global pointers lower to !llvm.ptr<1>: offsets become GEPs over the
// element type (an i32 index zero-extended), loads and stores keep their
// alignment, casts disappear, atomics are monotonic atomicrmw, fences
// seq_cst at the scope.
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @typed
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr<1> {megamoe.name = "x"}, %[[CTR:.*]]: !llvm.ptr<1>, %[[OFF:.*]]: !llvm.ptr<1>, %[[I:.*]]: i32, %[[J:.*]]: i64)
// The manifest describes typed pointers as it did !llvm.ptr<1> parameters.
// JSON: [('x', 'pointer'), ('arg1', 'pointer'), ('arg2', 'pointer'), ('arg3', 'i32'), ('arg4', 'i64')]
// PTX-LABEL: .entry typed(
// PTX-COUNT-3: .param .u64
warpspec.kernel @typed(%x: !warpspec.global<f32> {megamoe.name = "x"},
                       %ctr: !warpspec.global<i32>,
                       %offsets: !warpspec.global<i64>, %i: i32, %j: i64)
    attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // CHECK: %[[I64:.*]] = arith.extui %[[I]] : i32 to i64
  // CHECK: %[[P:.*]] = llvm.getelementptr %[[X]][%[[I64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %p = warpspec.global.offset %x[%i] : !warpspec.global<f32>, i32
  // CHECK: %[[Q:.*]] = llvm.getelementptr %[[P]][%[[J]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %q = warpspec.global.offset %p[%j] : !warpspec.global<f32>, i64
  // CHECK: %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr<1> -> f32
  %v = warpspec.global.load %p : !warpspec.global<f32>
  // CHECK: llvm.store %[[V]], %[[Q]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
  warpspec.global.store %v, %q align 4 : !warpspec.global<f32>
  // PTX: ld.global.v4.{{[bu]}}32
  // PTX: st.global.v4.{{[bu]}}32
  // CHECK: %[[W:.*]] = llvm.load %[[Q]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
  // CHECK: llvm.store %[[W]], %[[P]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
  %qc = warpspec.global.cast %q : !warpspec.global<f32> to !warpspec.global<vector<4xi32>>
  %w = warpspec.global.load %qc align 16 : !warpspec.global<vector<4xi32>>
  %pc = warpspec.global.cast %p : !warpspec.global<f32> to !warpspec.global<vector<4xi32>>
  warpspec.global.store %w, %pc align 16 : !warpspec.global<vector<4xi32>>
  // CHECK: llvm.atomicrmw add %[[CTR]], %[[I]] monotonic : !llvm.ptr<1>, i32
  // PTX: atom.global.add.u32
  %old = warpspec.global.atomic add %ctr, %i : !warpspec.global<i32>
  // CHECK: llvm.atomicrmw umax %[[CTR]], %{{.*}} monotonic : !llvm.ptr<1>, i32
  // PTX: atom.global.max.u32
  %old2 = warpspec.global.atomic umax %ctr, %old : !warpspec.global<i32>
  // CHECK: llvm.atomicrmw fadd %[[X]], %[[V]] monotonic : !llvm.ptr<1>, f32
  // PTX: atom.global.add.f32
  %oldf = warpspec.global.atomic fadd %x, %v : !warpspec.global<f32>
  %q2 = warpspec.global.offset %q[%i] : !warpspec.global<f32>, i32
  %fsum = arith.addf %oldf, %v : f32
  warpspec.global.store %fsum, %q2 : !warpspec.global<f32>
  %ci = warpspec.global.offset %ctr[%i] : !warpspec.global<i32>, i32
  warpspec.global.store %old2, %ci : !warpspec.global<i32>
  // CHECK: llvm.fence seq_cst
  // PTX: fence.sc.sys
  warpspec.fence scope sys
  // CHECK: llvm.fence syncscope("device") seq_cst
  // PTX: fence.sc.gpu
  warpspec.fence scope gpu
  // A publishing warp's ordering before its lane 0's release.
  // CHECK: %[[ALL:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK: nvvm.bar.warp.sync %[[ALL]]
  // PTX: bar.warp.sync -1
  warpspec.warp_sync
  // An L2 prefetch of %i bytes at &x[i]: the bulk prefetch, no cache hint.
  // CHECK: nvvm.cp.async.bulk.prefetch %[[P]], %[[I]] : {{.*}}<1>
  // PTX: cp.async.bulk.prefetch.L2.global [%rd{{[0-9]+}}], %r{{[0-9]+}};
  warpspec.global.prefetch %p, %i : !warpspec.global<f32>
  // Counters and peer pointers on typed pointers: the same lowering as on
  // !llvm.ptr<1>.
  // CHECK: nvvm.inline_ptx "red.release.gpu.global.add.u32 [$0], $1;" ro(%[[CTR]], %[[I]] : !llvm.ptr<1>, i32)
  warpspec.counter.add %ctr, %i scope gpu : !warpspec.global<i32>
  // CHECK: %[[E:.*]] = llvm.getelementptr %[[OFF]][%[[I]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
  // CHECK: %[[D:.*]] = llvm.load %[[E]] {alignment = 8 : i64} : !llvm.ptr<1> -> i64
  // CHECK: %[[R:.*]] = llvm.getelementptr %[[X]][%[[D]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
  %remote = warpspec.peer.ptr %x, %i, %offsets : !warpspec.global<f32>, !warpspec.global<i64>
  // CHECK: llvm.store %{{.*}}, %[[R]] : f32, !llvm.ptr<1>
  warpspec.global.store %v, %remote : !warpspec.global<f32>
  warpspec.return
}

// fp8 elements (no LLVM type) move as i8 plus an arith.bitcast, which
// arith-to-llvm later drops (fp8 is i8 there); offsets step by one byte.
// CHECK-LABEL: llvm.func @fp8
// CHECK: %[[B:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[I:.*]] = llvm.load %[[B]] : !llvm.ptr<1> -> i8
// CHECK: %[[F:.*]] = arith.bitcast %[[I]] : i8 to f8E4M3FN
// CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<16xi8>
// CHECK: arith.bitcast %[[V]] : vector<16xi8> to vector<16xf8E4M3FN>
// CHECK: %[[J:.*]] = arith.bitcast %[[F]] : f8E4M3FN to i8
// CHECK: llvm.store %[[J]], %{{.*}} : i8, !llvm.ptr<1>
// PTX-LABEL: .entry fp8(
// PTX: ld.global.b8
// PTX: st.global.b8
warpspec.kernel @fp8(%x: !warpspec.global<f8E4M3FN>, %y: !warpspec.global<f8E4M3FN>, %j: i64)
    attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %p = warpspec.global.offset %x[%j] : !warpspec.global<f8E4M3FN>, i64
  %v = warpspec.global.load %p : !warpspec.global<f8E4M3FN>
  %c = warpspec.global.cast %x : !warpspec.global<f8E4M3FN> to !warpspec.global<vector<16xf8E4M3FN>>
  %w = warpspec.global.load %c align 16 : !warpspec.global<vector<16xf8E4M3FN>>
  %d = warpspec.global.cast %y : !warpspec.global<f8E4M3FN> to !warpspec.global<vector<16xf8E4M3FN>>
  warpspec.global.store %w, %d align 16 : !warpspec.global<vector<16xf8E4M3FN>>
  %q = warpspec.global.offset %y[%j] : !warpspec.global<f8E4M3FN>, i64
  warpspec.global.store %v, %q : !warpspec.global<f8E4M3FN>
  warpspec.return
}
}
}
