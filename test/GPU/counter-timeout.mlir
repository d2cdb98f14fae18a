// A counter that never arrives: the timed wait must end the kernel with a
// trap after reporting which counter it waited for, never hang. Compiled by
// megamoe-opt to a cubin + manifest, launched through the runtime by
// megamoe-run-cubin, which must fail; the kernel wrote its report into the
// runtime's host-mapped record before the trap, and the runtime prints it
// to stdout when megamoe-run-cubin reads it (and adds it to the error).
// scripts/bundle-gpu.sh ships the same cubin; scripts/run-gpu-tests.sh runs
// the same check on the GPU machine.
// REQUIRES: cuda-sm90
// RUN: rm -rf %t && megamoe-opt %s --megamoe-to-cubin="chip=sm_90a emit-dir=%t" -o /dev/null
// RUN: not %megamoe_obj_root/bin/megamoe-run-cubin %t/timeout_kernels.json never_arrives --out ctr=1 --i32 target=8 > %t/stdout 2> %t/stderr
// RUN: FileCheck %s < %t/stdout
// RUN: FileCheck %s --check-prefix=ERR < %t/stderr
// Thread 0 of each of the 2 blocks times out; the first to claim the record
// reports (one line), the trap ends the grid.
// CHECK: megamoe: timeout waiting for counter 'l1_arrival' (block {{[01]}}, thread 0): value 0, expected >= 8 after 1000000 cycles
// CHECK-NOT: out:
// ERR: megamoe-run-cubin: kernel failed: {{.*}}; megamoe: timeout waiting for counter 'l1_arrival' (block {{[01]}}, thread 0): value 0, expected >= 8 after 1000000 cycles

module attributes {gpu.container_module} {
gpu.module @timeout_kernels [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
  // 2 blocks of one warpgroup; thread 0 of each waits for the counter at
  // `ctr` (left at 0) to reach `target`, at most 10^6 cycles (< 1 ms).
  warpspec.kernel @never_arrives(%ctr: !llvm.ptr<1> {megamoe.name = "ctr"},
                                 %target: i32 {megamoe.name = "target"})
      attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32,
                  megamoe.grid = [2, 1, 1]} {
    warpspec.roles {
      warpspec.role "waiter" warps [0, 4) regs 168 {
        %tid = nvvm.read.ptx.sreg.tid.x : i32
        %c0 = arith.constant 0 : i32
        %first = arith.cmpi eq, %tid, %c0 : i32
        scf.if %first {
          warpspec.counter.wait %ctr, %target scope gpu name "l1_arrival" timeout_cycles 1000000
        }
      }
    }
    warpspec.return
  }
}
}
