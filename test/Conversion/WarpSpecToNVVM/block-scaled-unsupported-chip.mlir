// RUN: megamoe-opt %s --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))'

// The block-scaled MMA is arch-neutral IR, but only sm_90a has a lowering so far:
// another chip gets a diagnostic, not a silent miscompile.

!tile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<64xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x64xf32>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx88", O = 3>] {
warpspec.kernel @block_scaled(%s0: f32)
    attributes {chip = "sm_100a", maxnreg = 168 : i32, smem_bytes = 40960 : i64, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 32768 : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      // expected-error @+1 {{has no lowering for chip 'sm_100a' (block-scaled MMA is lowered for sm_90a)}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %s0 into %z : !tile, !tile, !sfa, !acc
    }
  }
  warpspec.return
}
}
}
