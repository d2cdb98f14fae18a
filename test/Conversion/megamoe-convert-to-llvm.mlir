// RUN: megamoe-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf,megamoe-convert-to-llvm))' | FileCheck %s

// arith and cf (from scf) inside a gpu.module become LLVM; NVVM stays.
// CHECK-LABEL: llvm.func @k
// CHECK-NOT: arith.
// CHECK-NOT: cf.
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.cond_br
// CHECK: llvm.add
// CHECK: llvm.br
module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    llvm.func @k(%out: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %tid) -> i32 {
        %x = arith.addi %acc, %n : i32
        %ii = arith.index_cast %i : index to i32
        %y = arith.addi %x, %ii : i32
        scf.yield %y : i32
      }
      llvm.store %r, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// GPU ops of the kernels (thread/block/grid ids, lane id, shuffles, barrier,
// uniform subgroup reduction) become NVVM; math.exp calls libdevice's
// __nv_expf while math.absf stays the llvm.fabs intrinsic; vector.insert /
// extract and ub.poison become LLVM.
// CHECK-LABEL: llvm.func @__nv_expf(f32) -> f32
// CHECK-LABEL: llvm.func @gpu_ops
// CHECK-NOT: gpu.
// CHECK-NOT: math.
// CHECK-NOT: vector.
// CHECK-DAG: nvvm.read.ptx.sreg.tid.x
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.x
// CHECK-DAG: nvvm.read.ptx.sreg.nctaid.x
// CHECK-DAG: nvvm.read.ptx.sreg.laneid
// CHECK-DAG: nvvm.shfl.sync  bfly
// CHECK-DAG: nvvm.shfl.sync  up
// CHECK-DAG: nvvm.shfl.sync  idx
// CHECK-DAG: nvvm.redux.sync  add
// CHECK-DAG: nvvm.barrier
// CHECK-DAG: llvm.call @__nv_expf
// CHECK-DAG: llvm.intr.fabs
// CHECK-DAG: llvm.mlir.poison : vector<4xi32>
// CHECK-DAG: llvm.insertelement
// CHECK-DAG: llvm.extractelement
module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    llvm.func @gpu_ops(%out: !llvm.ptr<1>, %x: f32, %v: i32, %w: vector<4xi32>) attributes {nvvm.kernel} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %nb = gpu.grid_dim x
      %lane = gpu.lane_id
      %c1 = arith.constant 1 : i32
      %c31 = arith.constant 31 : i32
      %c32 = arith.constant 32 : i32
      %s0, %p0 = gpu.shuffle xor %x, %c1, %c32 : f32
      %s1, %p1 = gpu.shuffle up %v, %c1, %c32 : i32
      %s2, %p2 = gpu.shuffle idx %s1, %c31, %c32 : i32
      %sum = gpu.subgroup_reduce add %s2 uniform : (i32) -> i32
      gpu.barrier
      %e = math.exp %s0 : f32
      %a = math.absf %e : f32
      %poison = ub.poison : vector<4xi32>
      %vec = vector.insert %sum, %poison [0] : i32 into vector<4xi32>
      %back = vector.extract %w[2] : i32 from vector<4xi32>
      %t = arith.index_castui %tid : index to i32
      %b = arith.index_castui %bid : index to i32
      %n = arith.index_castui %nb : index to i32
      %l = arith.index_castui %lane : index to i32
      %tb = arith.addi %t, %b : i32
      %nl = arith.addi %n, %l : i32
      %all = arith.addi %tb, %nl : i32
      %r = arith.addi %all, %back : i32
      llvm.store %r, %out : i32, !llvm.ptr<1>
      llvm.store %a, %out : f32, !llvm.ptr<1>
      llvm.store %vec, %out : vector<4xi32>, !llvm.ptr<1>
      llvm.return
    }
  }
}
