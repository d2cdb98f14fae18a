// RUN: megamoe-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-warpspec-to-nvvm))'

// The SM100 lowering of the block-scaled MMA needs the TMEM bookkeeping that
// warpspec-plan-smem places; without it the lowering says so.

!tile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<64xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x64xf32>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx88", O = 3>] {
// expected-error @+1 {{has block-scaled MMAs on sm_100a but no 'warpspec.tmem_state_offset'; run warpspec-plan-smem before lowering}}
warpspec.kernel @no_plan(%s0: f32)
    attributes {chip = "sm_100a", maxnreg = 168 : i32, smem_bytes = 40960 : i64, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 32768 : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %s0 into %z : !tile, !tile, !sfa, !acc
    }
  }
  warpspec.return
}
}
}

// -----

// Only fp8 K-major tiles of one 128-byte swizzle atom per row are lowered
// (the tiles the block-scaled mainloop stages); a 64-byte swizzle is not.
!tile = !warpspec.smem<64x64xf8E4M3FN, slots = 2, align = 1024, swizzle = 64>
!sfa = !warpspec.smem<64xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x64xf32>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx88", O = 3>] {
warpspec.kernel @swizzle64(%s0: f32)
    attributes {chip = "sm_100a", maxnreg = 168 : i32, smem_bytes = 40960 : i64, threads = 128 : i32, warpspec.tmem_state_offset = 40000 : i64} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 32768 : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      // expected-error @+1 {{on sm_100 lowers A tiles of fp8 [rows, 128] with a 128-byte swizzle only; got '!warpspec.smem<64x64xf8E4M3FN, slots = 2, align = 1024, swizzle = 64>'}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %s0 into %z : !tile, !tile, !sfa, !acc
    }
  }
  warpspec.return
}
}
}

// -----

// Per-64 activation scales ([2, M] a_scales tiles) have no tcgen05 lowering:
// the TMEM partial is promoted once per K block.
!tile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<2x64xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x64xf32>
module attributes {gpu.container_module} {
gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx88", O = 3>] {
warpspec.kernel @groups(%s0: f32)
    attributes {chip = "sm_100a", maxnreg = 168 : i32, smem_bytes = 40960 : i64, threads = 128 : i32, warpspec.tmem_state_offset = 40000 : i64} {
  %a = warpspec.smem.alloc "a" offset 0 : !tile
  %sfa = warpspec.smem.alloc "sfa" offset 32768 : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      // expected-error @+1 {{on sm_100 promotes one activation scale per row and K block: a_scales of [groups, M] tiles (per-64 activation scales) have no tcgen05 lowering}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %s0 into %z : !tile, !tile, !sfa, !acc
    }
  }
  warpspec.return
}
}
}
