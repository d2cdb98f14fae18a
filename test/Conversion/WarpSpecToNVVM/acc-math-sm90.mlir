// RUN: warpspec-opt %s --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))' | FileCheck %s
// RUN: warpspec-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.again.cubin
// REQUIRES: ptxas

// The epilogue ops of WarpSpecAccOps.td on the SM90 fragment (thread t of
// the warpgroup: element 4j + q at row 16 (t / 32) + lane / 4 + 8 (q >= 2),
// column 8j + 2 (lane % 4) + (q & 1)): a SwiGLU-shaped epilogue of one
// 64 x 32 tile, gate/up interleaved by 8, requantized per row to e4m3.

!acc = !warpspec.acc<64x32xf32>
!half = !warpspec.acc<64x16xf32>
!rows = !warpspec.acc_rows<64xf32>
!q = !warpspec.smem<64x16xf8E4M3FN, slots = 1, align = 16>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
// acc.deinterleave period 8 renumbers whole 8-column groups: the first
// (gate) accumulator takes input groups 0 and 2 (elements 0-3, 8-11), the
// second (up) groups 1 and 3 (elements 4-7, 12-15).
// CHECK-LABEL: llvm.func @epilogue
// CHECK-COUNT-4: llvm.extractvalue %[[H:.*]][{{[0-3]}}]
// CHECK: llvm.extractvalue %[[H]][8]
// CHECK: llvm.extractvalue %[[H]][11]
// CHECK: llvm.extractvalue %[[H]][4]
// CHECK: llvm.extractvalue %[[H]][7]
// CHECK: llvm.extractvalue %[[H]][12]
// CHECK: %[[UP:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[7]
// acc_rows.load: rows r0 and r0 + 8 of the thread, r0 = 16 (t / 32) + lane / 4.
// CHECK: %[[L:.*]] = arith.divui %{{.*}}, %c4_i32{{.*}} : i32
// CHECK: %[[R0:.*]] = arith.addi %{{.*}}, %[[L]] : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[R0]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK: llvm.load {{.*}} -> f32
// CHECK: %[[R8:.*]] = arith.addi %{{.*}}, %c8_i32 : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[R8]]]
// acc.map: the body once per element; elements 0, 1 use row r0's weight,
// 2, 3 row r0 + 8's.
// CHECK: %[[W0:.*]] = llvm.extractvalue %[[ROWS:.*]][0] : !llvm.struct<(f32, f32)>
// CHECK: %[[W1:.*]] = llvm.extractvalue %[[ROWS]][1] : !llvm.struct<(f32, f32)>
// CHECK: arith.mulf
// CHECK: arith.mulf %{{.*}}, %[[W0]] : f32
// CHECK: arith.mulf
// CHECK: arith.mulf %{{.*}}, %[[W0]] : f32
// CHECK: arith.mulf
// CHECK: arith.mulf %{{.*}}, %[[W1]] : f32
// acc.row_reduce absmax: from +0 per row half, then xor-1 and xor-2
// shuffles inside the quad.
// CHECK: llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK: llvm.intr.fabs
// CHECK: llvm.intr.maxnum
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c1_i32{{.*}} : f32 -> f32
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c2_i32{{.*}} : f32 -> f32
// acc.store to e4m3: one cvt.rn.satfinite.e4m3x2 per column pair, 2-byte stores.
// CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E4M3FN)
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr<3>
// acc_rows.store: lane % 4 == 0 writes the quad's two rows.
// CHECK: %[[Q:.*]] = arith.andi %{{.*}}, %c3_i32 : i32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[Q]], %{{.*}} : i32
// CHECK: scf.if %[[FIRST]] {
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// and the warp reconverges (__syncwarp) before whatever follows.
// CHECK: }
// CHECK-NEXT: %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT: nvvm.bar.warp.sync %[[ALL]] : i32

// PTX-LABEL: .entry epilogue
// PTX-COUNT-4: shfl.sync.bfly.b32
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.shared.b16
warpspec.kernel @epilogue(%w: !warpspec.global<f32>, %sf: !warpspec.global<f32>) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %tile = warpspec.smem.alloc "q" offset 0 : !q
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %h = warpspec.acc.zero : !acc
      %g, %u = warpspec.acc.deinterleave %h period 8 : !acc -> !half
      %wr = warpspec.acc_rows.load %w : !warpspec.global<f32> -> !rows
      %a = warpspec.acc.map %g, %u rows(%wr) : !half, !half rows !rows -> !half {
      ^bb0(%x: f32, %y: f32, %z: f32):
        %m = arith.mulf %x, %y : f32
        %v = arith.mulf %m, %z : f32
        warpspec.acc.yield %v : f32
      }
      %amax = warpspec.acc.row_reduce absmax %a : !half -> !rows
      %s = warpspec.acc_rows.map %amax : !rows -> !rows {
      ^bb0(%x: f32):
        %c = arith.constant 448.0 : f32
        %v = arith.divf %x, %c : f32
        warpspec.acc.yield %v : f32
      }
      %qv = warpspec.acc.map %a rows(%s) : !half rows !rows -> !half {
      ^bb0(%x: f32, %y: f32):
        %v = arith.divf %x, %y : f32
        warpspec.acc.yield %v : f32
      }
      warpspec.acc.store %qv -> %tile[%c0, %c0] : !half, !q
      warpspec.acc_rows.store %s, %sf : !rows, !warpspec.global<f32>
    }
  }
  warpspec.return
}

// acc_rows.store_shared / load_shared: row r of slot s at byte s * 256 + 4 r
// of a per-row f32 buffer; lane 4k writes, every lane reads, then
// __syncwarp after the store.
// CHECK-LABEL: llvm.func @exchange
// CHECK: %[[Q:.*]] = arith.andi %{{.*}}, %c3_i32{{.*}} : i32
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: }
// CHECK-NEXT: %[[ALL2:.*]] = arith.constant -1 : i32
// CHECK-NEXT: nvvm.bar.warp.sync %[[ALL2]] : i32
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// PTX-LABEL: .entry exchange
// PTX: st.shared.b32
// PTX: bar.warp.sync -1;
// PTX: ld.shared.b32
warpspec.kernel @exchange(%w: !warpspec.global<f32>, %o: !warpspec.global<f32>) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %x = warpspec.smem.alloc "x" offset 0 : !warpspec.smem<64xf32, slots = 2, align = 16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %r = warpspec.acc_rows.load %w : !warpspec.global<f32> -> !rows
      warpspec.acc_rows.store_shared %r, %x[%c1] : !rows, !warpspec.smem<64xf32, slots = 2, align = 16>
      %back = warpspec.acc_rows.load_shared %x[%c1] : !warpspec.smem<64xf32, slots = 2, align = 16> -> !rows
      warpspec.acc_rows.store %back, %o : !rows, !warpspec.global<f32>
    }
  }
  warpspec.return
}

// acc.any: per thread, every element compared with 0 (une: NaN counts),
// or-ed, then one warp vote; a branch on it may yield accumulators (the
// fast path or its exact fallback).
// CHECK-LABEL: llvm.func @choose
// CHECK-COUNT-16: llvm.fcmp "une" %{{.*}}, %{{.*}} : f32
// CHECK: %[[ANY:.*]] = nvvm.vote.sync  any %{{.*}}, %{{.*}} -> i1
// CHECK: scf.if %[[ANY]] -> (!llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>)
// PTX-LABEL: .entry choose
// PTX: vote.sync.any.pred
warpspec.kernel @choose(%w: !warpspec.global<f32>) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %tile = warpspec.smem.alloc "q" offset 0 : !q
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %r = warpspec.acc_rows.load %w : !warpspec.global<f32> -> !rows
      %z = warpspec.acc.zero : !half
      %a = warpspec.acc.map %z rows(%r) : !half rows !rows -> !half {
      ^bb0(%x: f32, %y: f32):
        %v = arith.addf %x, %y : f32
        warpspec.acc.yield %v : f32
      }
      %slow = warpspec.acc.any %a, %z : !half, !half
      %q = scf.if %slow -> (!half) {
        %d = warpspec.acc.map %a rows(%r) : !half rows !rows -> !half {
        ^bb0(%x: f32, %y: f32):
          %v = arith.divf %x, %y : f32
          warpspec.acc.yield %v : f32
        }
        scf.yield %d : !half
      } else {
        scf.yield %a : !half
      }
      warpspec.acc.store %q -> %tile[%c0, %c0] : !half, !q
    }
  }
  warpspec.return
}
}
}
