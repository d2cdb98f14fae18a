// RUN: warpspec-opt %s --warpspec-plan-smem --split-input-file --verify-diagnostics | FileCheck %s

// Buffers by decreasing alignment (program order among equals), slots
// padded to the alignment, then the mbarriers (2 x stages x 8 B).
// CHECK-LABEL: warpspec.kernel @layout
// CHECK-SAME: smem_bytes = 2352 : i64
// CHECK: warpspec.smem.alloc "small" offset 2048 : !warpspec.smem<24xi8, slots = 3, align = 16>
// CHECK: warpspec.smem.alloc "tile" offset 0 : !warpspec.smem<16x32xbf16, slots = 1, align = 1024>
// CHECK: warpspec.smem.alloc "padded" offset 1536 : !warpspec.smem<100xi8, slots = 2, align = 256>
// CHECK: warpspec.smem.alloc "old" offset 1024 : !warpspec.smem<128xf32, slots = 1, align = 512>
// CHECK: warpspec.pipeline.create "p3" producer_arrivals 1 consumer_arrivals 1 offset 2144 : !warpspec.pipeline<3>
// CHECK: warpspec.pipeline.create "p10" producer_arrivals 1 consumer_arrivals 1 offset 2192 : !warpspec.pipeline<10>
warpspec.kernel @layout() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // 3 slots x alignTo(24, 16) = 96 B.
  %small = warpspec.smem.alloc "small" : !warpspec.smem<24xi8, slots = 3, align = 16>
  %tile = warpspec.smem.alloc "tile" : !warpspec.smem<16x32xbf16, slots = 1, align = 1024>
  // 2 slots x alignTo(100, 256) = 512 B.
  %padded = warpspec.smem.alloc "padded" : !warpspec.smem<100xi8, slots = 2, align = 256>
  // A hand-written offset is replaced by the plan.
  %old = warpspec.smem.alloc "old" offset 0 : !warpspec.smem<128xf32, slots = 1, align = 512>
  %p3 = warpspec.pipeline.create "p3" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<3>
  %p10 = warpspec.pipeline.create "p10" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<10>
  warpspec.return
}

// -----

// Every kernel is planned on its own; a kernel without buffers needs none.
// CHECK-LABEL: gpu.module @two
// CHECK: warpspec.kernel @first
// CHECK-SAME: smem_bytes = 1024 : i64
// CHECK: warpspec.kernel @empty
// CHECK-SAME: smem_bytes = 0 : i64
gpu.module @two [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  warpspec.kernel @first() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
    %t = warpspec.smem.alloc "t" : !warpspec.smem<1024xi8, slots = 1, align = 128>
    warpspec.return
  }
  warpspec.kernel @empty() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
    warpspec.return
  }
}

// -----

// Exactly the sm_90a limit (227 KiB = 232,448 B) fits.
// CHECK-LABEL: warpspec.kernel @at_limit
// CHECK-SAME: smem_bytes = 232448 : i64
warpspec.kernel @at_limit() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %t = warpspec.smem.alloc "t" : !warpspec.smem<227x1024xi8, slots = 1, align = 1024>
  warpspec.return
}

// -----

// One byte too many: the error lists every object of the plan.
// expected-error @+1 {{shared-memory plan of kernel @over_limit needs 232464 B, more than the 232448 B per-block limit}}
warpspec.kernel @over_limit() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-note @+1 {{'tiles': 229376 B at offset 0}}
  %tiles = warpspec.smem.alloc "tiles" : !warpspec.smem<128x128xf8E4M3FN, slots = 14, align = 1024, swizzle = 128>
  // expected-note @+1 {{'rest': 3072 B at offset 229376}}
  %rest = warpspec.smem.alloc "rest" : !warpspec.smem<3072xi8, slots = 1, align = 16>
  // expected-note @+1 {{'pipe': 16 B at offset 232448}}
  %pipe = warpspec.pipeline.create "pipe" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  warpspec.return
}

// -----

// sm_100a has the same per-block limit.
// expected-error @+1 {{shared-memory plan of kernel @sm100_over needs 233472 B, more than the 232448 B per-block limit}}
warpspec.kernel @sm100_over() attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-note @+1 {{'big': 233472 B at offset 0}}
  %big = warpspec.smem.alloc "big" : !warpspec.smem<228x1024xi8, slots = 1, align = 1024>
  warpspec.return
}

// -----

// A kernel plan's reservation (warpspec.planned_smem_bytes, set by the
// builder from KernelPlan::smemBytes) that the layout fits: planned as is.
// CHECK-LABEL: warpspec.kernel @within_plan
// CHECK-SAME: smem_bytes = 2064 : i64
// CHECK-SAME: warpspec.planned_smem_bytes = 4096 : i64
warpspec.kernel @within_plan() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, warpspec.planned_smem_bytes = 4096 : i64} {
  %t = warpspec.smem.alloc "t" : !warpspec.smem<1024xi8, slots = 2, align = 1024>
  %pipe = warpspec.pipeline.create "pipe" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  warpspec.return
}

// -----

// Exactly the reservation fits.
// CHECK-LABEL: warpspec.kernel @at_plan
// CHECK-SAME: smem_bytes = 2064 : i64
warpspec.kernel @at_plan() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, warpspec.planned_smem_bytes = 2064 : i64} {
  %t = warpspec.smem.alloc "t" : !warpspec.smem<1024xi8, slots = 2, align = 1024>
  %pipe = warpspec.pipeline.create "pipe" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  warpspec.return
}

// -----

// The buffers outgrow the plan (here the ring has one more slot than the
// plan's stages): an error listing every object.
// expected-error @+1 {{shared-memory plan of kernel @over_plan needs 3088 B, more than the 2064 B its kernel plan reserves ('warpspec.planned_smem_bytes'): the builder's buffers and the plan's SMEM regions disagree}}
warpspec.kernel @over_plan() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, warpspec.planned_smem_bytes = 2064 : i64} {
  // expected-note @+1 {{'t': 3072 B at offset 0}}
  %t = warpspec.smem.alloc "t" : !warpspec.smem<1024xi8, slots = 3, align = 1024>
  // expected-note @+1 {{'pipe': 16 B at offset 3072}}
  %pipe = warpspec.pipeline.create "pipe" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  warpspec.return
}

// -----

// A plan that reserves more than the chip has is wrong however small the
// layout.
// expected-error @+1 {{the kernel plan of @plan_over_chip reserves 300000 B of shared memory, more than the 232448 B per-block limit}}
warpspec.kernel @plan_over_chip() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, warpspec.planned_smem_bytes = 300000 : i64} {
  %t = warpspec.smem.alloc "t" : !warpspec.smem<1024xi8, slots = 1, align = 1024>
  warpspec.return
}

// -----

// expected-error @+1 {{'warpspec.planned_smem_bytes' must be a non-negative integer (bytes), got "big"}}
warpspec.kernel @bad_plan_attr() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, warpspec.planned_smem_bytes = "big"} {
  warpspec.return
}

// -----

// sm_100 kernels with block-scaled MMAs also get their TMEM bookkeeping
// planned: the 4-byte TMEM address (8 B) and one 8-byte commit mbarrier per
// MMA warpgroup (two here: warps [4, 12)), 24 B after the buffers.
// CHECK-LABEL: warpspec.kernel @tmem_state
// CHECK-SAME: smem_bytes = 33304 : i64
// CHECK-SAME: warpspec.tmem_state_offset = 33280 : i64
!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 1, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 1, align = 128>
warpspec.kernel @tmem_state(%sb: f32) attributes {chip = "sm_100a", maxnreg = 168 : i32, threads = 384 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %b = warpspec.smem.alloc "b" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [4, 12) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      %t = warpspec.mma.block_scaled %a, %b stage %c0 row %c0 a_scales %sfa b_scales %sb into %z : !tile, !tile, !sfa, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}
