// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm),reconcile-unrealized-casts)' | FileCheck %s
// RUN: warpspec-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: %ptxas -arch=sm_90a -v %t/k.ptx -o %t/k.again.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// REQUIRES: ptxas

// The phase profile's ops: timestamp reads %globaltimer, sm_id %smid, and
// sequence.next keeps one count per (key, role) in an entry-block alloca
// (0 at the start; SROA makes it a loop-carried register: the PTX has no
// local memory).
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// CHECK-LABEL: llvm.func @stamps
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[SLOT_B:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: llvm.store %{{.*}}, %[[SLOT_B]]
// CHECK: %[[SLOT_A:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: llvm.store %{{.*}}, %[[SLOT_A]]
// CHECK: nvvm.read.ptx.sreg.globaltimer : i64
// CHECK: nvvm.read.ptx.sreg.smid : i32
// CHECK: %[[N:.*]] = llvm.load %[[SLOT_A]] : !llvm.ptr -> i32
// CHECK: %[[N1:.*]] = llvm.add %[[N]], %{{.*}} : i32
// CHECK: llvm.store %[[N1]], %[[SLOT_A]]
// The second role's count is its own.
// CHECK: llvm.load %[[SLOT_B]] : !llvm.ptr -> i32
// CHECK-NOT: warpspec.
// PTX-LABEL: .entry stamps(
// PTX-DAG: mov.u64 %rd{{[0-9]+}}, %globaltimer;
// PTX-DAG: mov.u32 %r{{[0-9]+}}, %smid;
// PTX-NOT: .local
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
warpspec.kernel @stamps(%mb: i32, %out: !warpspec.global<i64>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, smem_bytes = 0 : i64, threads = 256 : i32} {
  warpspec.roles {
    warpspec.role "a" warps [0, 4) regs 168 {
      warpspec.tile_loop (%m, %nb) m_blocks(%mb) n_blocks 4 raster 1 {
        %t = warpspec.timestamp : i64
        %sm = warpspec.sm_id : i32
        %n = warpspec.sequence.next "profile" : i32
        %sm64 = arith.extui %sm : i32 to i64
        %at = warpspec.global.offset %out[%n] : !warpspec.global<i64>, i32
        %v = arith.addi %t, %sm64 : i64
        warpspec.global.store %v, %at : !warpspec.global<i64>
      }
    }
    warpspec.role "b" warps [4, 8) regs 168 {
      %n = warpspec.sequence.next "profile" : i32
      %at = warpspec.global.offset %out[%n] : !warpspec.global<i64>, i32
      %z = arith.constant 0 : i64
      warpspec.global.store %z, %at : !warpspec.global<i64>
    }
  }
  warpspec.return
}
}
}
