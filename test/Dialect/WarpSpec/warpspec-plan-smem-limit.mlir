// RUN: warpspec-opt %s --warpspec-plan-smem="smem-limit=4096" --split-input-file --verify-diagnostics | FileCheck %s
// The smem-limit option of warpspec-plan-smem replaces the chip's limit.

// CHECK-LABEL: warpspec.kernel @fits
// CHECK-SAME: smem_bytes = 4096 : i64
warpspec.kernel @fits() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %t = warpspec.smem.alloc "t" : !warpspec.smem<4080xi8, slots = 1, align = 16>
  %p = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  warpspec.return
}

// -----

// expected-error @+1 {{shared-memory plan of kernel @over needs 4112 B, more than the 4096 B per-block limit}}
warpspec.kernel @over() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-note @+1 {{'t': 4096 B at offset 0}}
  %t = warpspec.smem.alloc "t" : !warpspec.smem<4096xi8, slots = 1, align = 16>
  // expected-note @+1 {{'p': 16 B at offset 4096}}
  %p = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  warpspec.return
}
