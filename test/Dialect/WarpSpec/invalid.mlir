// RUN: warpspec-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect
// Every verifier message of the warpspec dialect, one case each.

// expected-error @+1 {{TMA box must have 1 to 5 dimensions, got 6}}
func.func private @f(!warpspec.tma_desc<1x1x1x1x1x16xi8, swizzle = 0>)

// -----

// expected-error @+1 {{TMA box dimensions must be in [1, 256], got 512}}
func.func private @f(!warpspec.tma_desc<512x16xi8, swizzle = 0>)

// -----

// expected-error @+1 {{TMA element type must be a byte-sized integer or float, got 'i1'}}
func.func private @f(!warpspec.tma_desc<128xi1, swizzle = 0>)

// -----

// expected-error @+1 {{TMA swizzle must be 0, 32, 64 or 128 bytes, got 16}}
func.func private @f(!warpspec.tma_desc<64x64xbf16, swizzle = 16>)

// -----

// expected-error @+1 {{TMA box inner dimension must span a multiple of 16 bytes, got 8 B}}
func.func private @f(!warpspec.tma_desc<64x4xbf16, swizzle = 0>)

// -----

// expected-error @+1 {{TMA box inner dimension spans 256 B, more than the 128 B swizzle span}}
func.func private @f(!warpspec.tma_desc<64x128xbf16, swizzle = 128>)

// -----

// expected-error @+1 {{smem tile needs at least one dimension}}
func.func private @f(!warpspec.smem<f32, slots = 1, align = 16>)

// -----

// expected-error @+1 {{smem tile dimensions must be positive, got 0}}
func.func private @f(!warpspec.smem<0x4xf32, slots = 1, align = 16>)

// -----

// expected-error @+1 {{smem element type must be an integer or float, got 'index'}}
func.func private @f(!warpspec.smem<4xindex, slots = 1, align = 16>)

// -----

// expected-error @+1 {{smem tile of sub-byte elements must fill whole bytes}}
func.func private @f(!warpspec.smem<3xi4, slots = 1, align = 16>)

// -----

// expected-error @+1 {{smem buffer needs at least one slot}}
func.func private @f(!warpspec.smem<4xf32, slots = 0, align = 16>)

// -----

// expected-error @+1 {{smem alignment must be a power of two >= 16, got 48}}
func.func private @f(!warpspec.smem<4xf32, slots = 1, align = 48>)

// -----

// expected-error @+1 {{smem swizzle must be 0, 32, 64 or 128 bytes, got 16}}
func.func private @f(!warpspec.smem<4xf32, slots = 1, align = 16, swizzle = 16>)

// -----

// expected-error @+1 {{smem swizzle 128 needs align >= 1024 (one 8-row swizzle atom), got 128}}
func.func private @f(!warpspec.smem<64x128xi8, slots = 1, align = 128, swizzle = 128>)

// -----

// expected-error @+1 {{unknown smem parameter 'stages' (expected slots, align or swizzle)}}
func.func private @f(!warpspec.smem<4xf32, stages = 2>)

// -----

// expected-error @+1 {{pipeline needs 1 to 32 stages, got 0}}
func.func private @f(!warpspec.pipeline<0>)

// -----

// expected-error @+1 {{accumulator of one warpgroup has m = 64 rows (wgmma m64), got m = 128}}
func.func private @f(!warpspec.acc<128x128xf32>)

// -----

// expected-error @+1 {{accumulator n must be a multiple of 8 in [8, 256] (wgmma n), got n = 100}}
func.func private @f(!warpspec.acc<64x100xf32>)

// -----

// expected-error @+1 {{accumulator element type must be f32, got 'f16'}}
func.func private @f(!warpspec.acc<64x128xf16>)

// -----

// expected-error @+1 {{expected a 2-d shape MxNxtype}}
func.func private @f(!warpspec.acc<64x128x2xf32>)

// -----

// expected-error @+1 {{TMEM allocation spans 64 or 128 lanes, got 32}}
func.func private @f(!warpspec.tmem<32x128xf32>)

// -----

// expected-error @+1 {{TMEM columns must be a power of two in [32, 512], got 48}}
func.func private @f(!warpspec.tmem<128x48xf32>)

// -----

// expected-error @+1 {{TMEM element type must be f32 (accumulators) or i32 (scale factors), got 'f16'}}
func.func private @f(!warpspec.tmem<128x128xf16>)

// -----

// expected-error @+1 {{kernel must not return values}}
warpspec.kernel @k() -> i32 attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.return
}

// -----

// expected-error @+1 {{kernel argument #1 has type 'memref<4xf32>'; expected !warpspec.global<T>, !llvm.ptr<1>, an integer, a float or !warpspec.tma_desc}}
warpspec.kernel @k(%a: i32, %b: memref<4xf32>) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {

  warpspec.return
}

// -----

// expected-error @+1 {{expects threads to be a multiple of 32 in [32, 1024], got 100}}
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 100 : i32} {

  warpspec.return
}

// -----

// expected-error @+1 {{expects maxnreg to be a multiple of 8 in [24, 256], got 20}}
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 20 : i32, threads = 128 : i32} {

  warpspec.return
}

// -----

// expected-error @+1 {{launch needs threads x maxnreg = 1024 x 128 = 131072 registers, more than the 65536 of an SM}}
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 1024 : i32} {

  warpspec.return
}

// -----

// expected-error @+1 {{unsupported chip "sm_80"; expected sm_90a or sm_100a}}
warpspec.kernel @k() attributes {chip = "sm_80", maxnreg = 128 : i32, threads = 128 : i32} {

  warpspec.return
}

// -----

// expected-error @+1 {{expects cluster to be 3 positive dimensions}}
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, cluster = array<i32: 2, 1>} {

  warpspec.return
}

// -----

// expected-error @+1 {{dynamic shared memory of 300000 B exceeds the 232448 B limit of sm_90a}}
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, smem_bytes = 300000 : i64} {

  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
  }
  // expected-error @+1 {{only one warpspec.roles per kernel}}
  warpspec.roles {
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %b1 = warpspec.named_barrier 1 roles ["r"]
  // expected-error @+1 {{named barrier id 1 is declared twice in the kernel}}
  %b2 = warpspec.named_barrier 1 roles ["r"]
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "x" : !warpspec.smem<16xi8, slots = 1, align = 16>
  // expected-error @+1 {{shared-memory name 'x' is used twice in the kernel}}
  %p = warpspec.pipeline.create "x" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  warpspec.return
}

// -----

// expected-error @+1 {{kernels with roles need threads to be a multiple of 128 (setmaxnreg acts on whole warpgroups), got 96}}
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 96 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 3) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    // expected-error @+1 {{is not allowed directly in warpspec.roles; put it inside a warpspec.role}}
    %c = arith.constant 0 : index
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 2) regs 128 {

    }
    // expected-error @+1 {{duplicate role name 'r'}}
    warpspec.role "r" warps [2, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    // expected-error @+1 {{warps [4, 8) exceed the kernel's 4 warps (128 threads)}}
    warpspec.role "r" warps [4, 8) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{roles 'a' (warps [0, 3)) and 'b' (warps [2, 4)) overlap}}
  warpspec.roles {
    warpspec.role "a" warps [0, 3) regs 128 {

    }
    warpspec.role "b" warps [2, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{roles 'a' and 'b' share warpgroup 0 but ask for 40 and 56 registers; setmaxnreg applies to a whole warpgroup}}
  warpspec.roles {
    warpspec.role "a" warps [0, 1) regs 40 {

    }
    warpspec.role "b" warps [1, 4) regs 56 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{warp 1 of warpgroup 0 has no role, but role 'tma' changes the warpgroup's registers to 40; setmaxnreg needs every warp of the warpgroup}}
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 40 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 384 : i32} {
  // expected-error @+1 {{register budget of the roles is 73728 registers (sum over warps of regs x 32), more than the 65536 of an SM at one CTA per SM}}
  warpspec.roles {
    warpspec.role "a" warps [0, 4) regs 256 {

    }
    warpspec.role "b" warps [4, 8) regs 256 {

    }
    warpspec.role "c" warps [8, 12) regs 64 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    // expected-error @+1 {{role 'r' has an empty warp range [2, 2)}}
    warpspec.role "r" warps [2, 2) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    // expected-error @+1 {{regs must be a multiple of 8 in [24, 256] (setmaxnreg), got 44}}
    warpspec.role "r" warps [0, 4) regs 44 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  warpspec.roles {
    // expected-error @+1 {{role 'm' issues warpgroup MMA, so its warp range [2, 6) must be warpgroup-aligned (multiples of 4 warps)}}
    warpspec.role "m" warps [2, 6) regs 128 mma {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{is warpgroup-collective and must be in a role marked `mma`; role 'r' is not}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %a[%c0], %z : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{must be inside a warpspec.role (it is executed by the warps of one role)}}
  %w = warpspec.role.warp_id
  warpspec.return
}

// -----

// The accumulator fence pins registers of a role's warpgroup.
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
  // expected-error @+1 {{must be inside a warpspec.role (it is executed by the warps of one role)}}
  %f = warpspec.acc.fence %z : !warpspec.acc<64x128xf32>
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{named barrier id must be in [1, 15] (0 is the block barrier), got 0}}
  %b = warpspec.named_barrier 0 roles ["r"]
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{named barrier 2 lists no roles}}
  %b = warpspec.named_barrier 2 roles []
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{named barrier 2 lists role 'math', which the kernel does not define}}
  %b = warpspec.named_barrier 2 roles ["math"]
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  %b = warpspec.named_barrier 2 roles ["a"]
  warpspec.roles {
    warpspec.role "a" warps [0, 4) regs 128 {

    }
    warpspec.role "b" warps [4, 8) regs 128 {
      // expected-error @+1 {{is executed in role 'b', which does not take part in named barrier 2}}
      warpspec.barrier.sync %b
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  %b = warpspec.named_barrier 2 roles ["a"]
  warpspec.roles {
    warpspec.role "a" warps [0, 4) regs 128 {

    }
    warpspec.role "b" warps [4, 8) regs 128 {
      // expected-error @+1 {{is executed in role 'b', which does not take part in named barrier 2}}
      warpspec.barrier.arrive %b
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %b = warpspec.named_barrier 2 roles ["a"]
  // expected-error @+1 {{must be inside a warpspec.role}}
  warpspec.barrier.sync %b
  warpspec.roles {
    warpspec.role "a" warps [0, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{offset 64 is not a multiple of the buffer's alignment 1024}}
  %a = warpspec.smem.alloc "a" offset 64 : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{stage 4 is out of range for a buffer of 4 slot(s)}}
  %p = warpspec.smem.slot %a[%c4] : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128> -> !llvm.ptr<3>
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<2>
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      %s = warpspec.consumer.wait %pipe : !warpspec.pipeline<2>
      // expected-error @+1 {{stage of a 2-stage pipeline indexes a buffer of 4 slot(s); they need one slot per stage}}
      %p = warpspec.smem.slot %a[%s] : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128> -> !llvm.ptr<3>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{mbarrier offset 4 is not 8-byte aligned}}
  %p = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 1 offset 4 : !warpspec.pipeline<1>
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{pipeline 'p' expects 1 producer arrival(s) per stage, but the roles that commit it ('prod') have 4 warp(s); each warp arrives once}}
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  warpspec.roles {
    warpspec.role "prod" warps [0, 4) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<1>
      warpspec.producer.commit %pipe[%s] : !warpspec.pipeline<1>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  // expected-error @+1 {{pipeline 'p' expects 4 consumer arrival(s) per stage, but the roles that release it ('c1', 'c2') have 8 warp(s); each warp arrives once}}
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<1>
  warpspec.roles {
    warpspec.role "c1" warps [0, 4) regs 128 {
      %s = warpspec.consumer.wait %pipe : !warpspec.pipeline<1>
      warpspec.consumer.release %pipe[%s] : !warpspec.pipeline<1>
    }
    warpspec.role "c2" warps [4, 8) regs 128 {
      %s = warpspec.consumer.wait %pipe : !warpspec.pipeline<1>
      warpspec.consumer.release %pipe[%s] : !warpspec.pipeline<1>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %pipe = warpspec.pipeline.create "p" producer_arrivals 4 consumer_arrivals 4 : !warpspec.pipeline<1>
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<1>
      // expected-error @+1 {{needs a stage from warpspec.consumer.wait, got one from warpspec.producer.acquire}}
      warpspec.consumer.release %pipe[%s] : !warpspec.pipeline<1>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %p1 = warpspec.pipeline.create "p1" producer_arrivals 4 consumer_arrivals 4 : !warpspec.pipeline<1>
  %p2 = warpspec.pipeline.create "p2" producer_arrivals 4 consumer_arrivals 4 : !warpspec.pipeline<1>
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      %s = warpspec.producer.acquire %p1 : !warpspec.pipeline<1>
      // expected-error @+1 {{uses a stage acquired from a different pipeline}}
      warpspec.producer.commit %p2[%s] : !warpspec.pipeline<1>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %pipe = warpspec.pipeline.create "p" producer_arrivals 4 consumer_arrivals 4 : !warpspec.pipeline<1>
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<1>
      // expected-error @+1 {{tx_bytes 1048576 exceeds the mbarrier transaction limit of 1048575}}
      warpspec.producer.commit %pipe[%s] tx_bytes 1048576 : !warpspec.pipeline<1>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      warpspec.tma.load %d[%c0i, %c0i] -> %a[%s], %pipe : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
      // expected-error @+1 {{tx_bytes 32768 exceeds the 16384 B per stage of the buffers filled through this pipeline}}
      warpspec.producer.commit %pipe[%s] tx_bytes 32768 : !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      warpspec.tma.load %d[%c0i, %c0i] -> %a[%s], %pipe : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
      // expected-error @+1 {{tx_bytes 8192 does not match the 16384 B that the copies of this stage deliver}}
      warpspec.producer.commit %pipe[%s] tx_bytes 8192 : !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  // expected-error @+1 {{must be inside a warpspec.role}}
  %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<1>
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<1>
  // expected-error @+1 {{must be inside a warpspec.role}}
  %s = warpspec.consumer.wait %pipe : !warpspec.pipeline<1>
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      // expected-error @+1 {{expects 2 coordinate(s) for a 2-d TMA box, got 1}}
      warpspec.tma.load %d[%c0i] -> %a[%s], %pipe : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E5M2, swizzle = 128>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      // expected-error @+1 {{TMA box element type 'f8E5M2' does not match the buffer's 'f8E4M3FN'}}
      warpspec.tma.load %d[%c0i, %c0i] -> %a[%s], %pipe : !warpspec.tma_desc<128x128xf8E5M2, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x64xf8E4M3FN, swizzle = 64>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      // expected-error @+1 {{TMA swizzle 64 does not match the buffer's swizzle 128}}
      warpspec.tma.load %d[%c0i, %c0i] -> %a[%s], %pipe : !warpspec.tma_desc<128x64xf8E4M3FN, swizzle = 64>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      // expected-error @+1 {{TMA destination must be 128-byte aligned; the buffer has align 1024 and slot offset 64}}
      warpspec.tma.load %d[%c0i, %c0i] -> %a[%s], %pipe slot_offset 64 : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<2>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<2>
      // expected-error @+1 {{buffer of 4 slot(s) is filled through a 2-stage pipeline; they need one slot per stage}}
      warpspec.tma.load %d[%c0i, %c0i] -> %a[%s], %pipe : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<2>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<64x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      // expected-error @+1 {{TMA box of 16384 B at slot offset 0 does not fit a 8192 B slot}}
      warpspec.tma.load %d[%c0i, %c0i] -> %a[%s], %pipe : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<64x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      %p = llvm.mlir.zero : !llvm.ptr<3>
      // expected-error @+1 {{expects 2 coordinate(s) for a 2-d TMA box, got 3}}
      warpspec.tma.store %p -> %d[%c0i, %c0i, %c0i] : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      %c24 = arith.constant 24 : i32
      // expected-error @+1 {{bulk copy size must be a positive multiple of 16 bytes, got 24}}
      warpspec.bulk.copy %g, %c24 -> %a[%s], %pipe : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      // expected-error @+1 {{bulk copy slot offset must be a multiple of 16 bytes, got 8}}
      warpspec.bulk.copy %g, %n -> %a[%s], %pipe slot_offset 8 : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      %c32k = arith.constant 32768 : i32
      // expected-error @+1 {{bulk copy of 32768 B at slot offset 0 does not fit a 16384 B slot}}
      warpspec.bulk.copy %g, %c32k -> %a[%s], %pipe : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, %g: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %c7 = arith.constant 7 : index
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      // expected-error @+1 {{stage 7 is out of range for a buffer of 4 slot(s)}}
      warpspec.tma.load %d[%c0i, %c0i] -> %a[%c7], %pipe : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {

    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%p: !llvm.ptr<1>, %v: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      // expected-error @+1 {{needs a non-empty counter name (it is reported when the wait times out)}}
      warpspec.counter.wait %p, %v scope gpu name ""
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%p: !llvm.ptr<1>, %v: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      // expected-error @+1 {{timeout_cycles must be positive, got 0}}
      warpspec.counter.wait %p, %v scope gpu name "c" timeout_cycles 0
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%p: !llvm.ptr<1>, %v: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      // expected-error @+1 {{timeout_cycles must be positive, got -5}}
      warpspec.grid.sync %p, %v timeout_cycles -5
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%p: !llvm.ptr<1>, %v: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      // expected-error @+1 {{must use scope sys: peers on other GPUs do not observe gpu-scope releases}}
      warpspec.cross_rank.barrier %p, %v, %v, %p scope gpu
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%p: !llvm.ptr<1>, %v: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'scope' [gpu, sys]}}
      warpspec.counter.add %p, %v scope cta
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{needs a kernel with chip = "sm_90a", but the kernel targets "sm_100a"}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<2x64x128xf8E4M3FN, slots = 1, align = 1024>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{A tile must be 2-d, got 3 dimension(s)}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z : !warpspec.smem<2x64x128xf8E4M3FN, slots = 1, align = 1024>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{fp8 operand B must be K-major: wgmma/tcgen05 transpose only 16-bit tiles}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z b_major mn : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x64xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{A tile rows span 64 B but its swizzle is 128 B; a row must span exactly one swizzle width}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z : !warpspec.smem<128x64xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x64xf8E4M3FN, slots = 4, align = 1024, swizzle = 64>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{A has K = 64 but B has K = 128}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z : !warpspec.smem<128x64xf8E4M3FN, slots = 4, align = 1024, swizzle = 64>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<64x32xf32, slots = 1, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<64x32xf32, slots = 1, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x64xf32>
      // expected-error @+1 {{unsupported operand types 'f32' x 'f32'; expected fp8 (f8E4M3FN/f8E5M2), f16 or bf16}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z : !warpspec.smem<64x32xf32, slots = 1, align = 1024, swizzle = 128>, !warpspec.smem<64x32xf32, slots = 1, align = 1024, swizzle = 128>, !warpspec.acc<64x64xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x48xf8E4M3FN, slots = 1, align = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x48xf8E4M3FN, slots = 1, align = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{K = 48 is not a multiple of the MMA k = 32 of 'f8E4M3FN'}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z : !warpspec.smem<128x48xf8E4M3FN, slots = 1, align = 128>, !warpspec.smem<128x48xf8E4M3FN, slots = 1, align = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x64xf32>
      // expected-error @+1 {{accumulator n = 64 does not match the B tile's 128 rows}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x64xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<96x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{A tile has 96 rows; a multiple of 64 is needed}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z : !warpspec.smem<96x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %c32 = arith.constant 32 : index
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{A row 32 must be a multiple of 64 with row + 64 <= 128}}
      %p = warpspec.mma.sm90 %a[%c0, %c32], %b[%c0], %z : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      // expected-error @+1 {{pending must be in [0, 7] (wgmma.wait_group), got 8}}
      warpspec.mma.wait 8
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !warpspec.smem<128xf16, slots = 4, align = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{a_scales must be a buffer of f32 tiles of per-row scales, [M] or [groups, M], got '!warpspec.smem<128xf16, slots = 4, align = 128>'}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %sb : !warpspec.smem<128xf16, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !warpspec.smem<32xf32, slots = 4, align = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{a_scales tile holds 32 scales, fewer than the accumulator's 64 rows}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %sb : !warpspec.smem<32xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !warpspec.smem<128xf32, slots = 4, align = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{n = 128 columns cannot be split evenly among 3 b_scales in groups of a multiple of 8 columns}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %sb, %sb, %sb : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !warpspec.smem<128xf32, slots = 4, align = 128>
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{b_scale_map sends column 24 to b_scales index 3, outside [0, 3)}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %sb, %sb, %sb b_scale_map affine_map<(c) -> ((c floordiv 8) mod 4)> : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !warpspec.smem<128xf32, slots = 4, align = 128>
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{b_scale_map must be constant over each group of 8 columns (the accumulator fragment's column group); columns 0 and 4 get different scales}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %sb, %sb b_scale_map affine_map<(c) -> ((c floordiv 4) mod 2)> : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !warpspec.smem<128xf32, slots = 4, align = 128>
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{b_scale_map must map one column to one index, (c) -> (i); got affine_map<(d0, d1) -> (d0)>}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %sb, %sb b_scale_map affine_map<(c, d) -> (c)> : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !warpspec.smem<128xf32, slots = 4, align = 128>
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{n = 128 columns cannot be split evenly among 3 b_scales in groups of a multiple of 8 columns; give a b_scale_map}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %sb, %sb, %sb : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %o = warpspec.smem.alloc "o" : !warpspec.smem<8192xbf16, slots = 1, align = 1024>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{destination tile must be 2-d [rows, n], got '!warpspec.smem<8192xbf16, slots = 1, align = 1024>'}}
      warpspec.acc.store %z -> %o[%c0, %c0] : !warpspec.acc<64x128xf32>, !warpspec.smem<8192xbf16, slots = 1, align = 1024>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %o = warpspec.smem.alloc "o" : !warpspec.smem<128x128xf8E5M2, slots = 1, align = 1024>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{destination element type must be bf16, f16, f32 or f8E4M3FN, got 'f8E5M2'}}
      warpspec.acc.store %z -> %o[%c0, %c0] : !warpspec.acc<64x128xf32>, !warpspec.smem<128x128xf8E5M2, slots = 1, align = 1024>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %o = warpspec.smem.alloc "o" : !warpspec.smem<128x64xbf16, slots = 1, align = 1024>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{accumulator n = 128 does not match the destination's 64 columns}}
      warpspec.acc.store %z -> %o[%c0, %c0] : !warpspec.acc<64x128xf32>, !warpspec.smem<128x64xbf16, slots = 1, align = 1024>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %o = warpspec.smem.alloc "o" : !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{destination tile has 32 rows, fewer than the accumulator's 64}}
      warpspec.acc.store %z -> %o[%c0, %c0] : !warpspec.acc<64x128xf32>, !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      // expected-error @+1 {{needs a kernel with chip = "sm_100a", but the kernel targets "sm_90a"}}
      %d = warpspec.tmem.alloc : !warpspec.tmem<128x256xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{must be inside a warpspec.role}}
  %d = warpspec.tmem.alloc : !warpspec.tmem<128x256xf32>
  warpspec.return
}

// -----

warpspec.kernel @k(%f: i1, %x: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      %t = "test.tmem"() : () -> !warpspec.tmem<128x128xf32>
      // expected-error @+1 {{needs a kernel with chip = "sm_100a", but the kernel targets "sm_90a"}}
      warpspec.mma.sm100 %a[%c0, %c0], %a[%c0], %t accumulate %f : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.tmem<128x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%f: i1) attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "mma" warps [0, 4) regs 128 {
      %d = warpspec.tmem.alloc : !warpspec.tmem<128x256xi32>
      %sf = warpspec.tmem.alloc : !warpspec.tmem<128x32xf32>
      // expected-error @+1 {{accumulator TMEM must hold f32, got 'i32'}}
      warpspec.mma.sm100 %a[%c0, %c0], %b[%c0], %d accumulate %f : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.tmem<128x256xi32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%f: i1) attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<24x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "mma" warps [0, 4) regs 128 {
      %d = warpspec.tmem.alloc : !warpspec.tmem<128x256xf32>
      %sf = warpspec.tmem.alloc : !warpspec.tmem<128x32xf32>
      // expected-error @+1 {{n = 24 is not a multiple of 16 in [16, 256] for m = 128}}
      warpspec.mma.sm100 %a[%c0, %c0], %b[%c0], %d accumulate %f : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<24x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.tmem<128x256xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%f: i1) attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "mma" warps [0, 4) regs 128 {
      %d = warpspec.tmem.alloc : !warpspec.tmem<128x128xf32>
      %sf = warpspec.tmem.alloc : !warpspec.tmem<128x32xf32>
      // expected-error @+1 {{accumulator TMEM has 128 columns, fewer than n = 256}}
      warpspec.mma.sm100 %a[%c0, %c0], %b[%c0], %d accumulate %f : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.tmem<128x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%f: i1) attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "mma" warps [0, 4) regs 128 {
      %d = warpspec.tmem.alloc : !warpspec.tmem<128x256xf32>
      %sf = warpspec.tmem.alloc : !warpspec.tmem<128x32xf32>
      // expected-error @+1 {{scale factors live in i32 TMEM columns}}
      warpspec.mma.sm100 %a[%c0, %c0], %b[%c0], %d accumulate %f scales(%sf, %sf : !warpspec.tmem<128x32xf32>, !warpspec.tmem<128x32xf32>) : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.tmem<128x256xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%f: i1) attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<64x128xf8E4M3FN, slots = 1, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 1, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "mma" warps [0, 4) regs 128 {
      %d = warpspec.tmem.alloc : !warpspec.tmem<128x128xf32>
      // expected-error @+1 {{A tile has 64 rows; a multiple of m = 128 is needed}}
      warpspec.mma.sm100 %a[%c0, %c0], %b[%c0], %d accumulate %f
          : !warpspec.smem<64x128xf8E4M3FN, slots = 1, align = 1024, swizzle = 128>,
            !warpspec.smem<128x128xf8E4M3FN, slots = 1, align = 1024, swizzle = 128>,
            !warpspec.tmem<128x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 4 consumer_arrivals 4 : !warpspec.pipeline<4>
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      %s = warpspec.consumer.wait %pipe : !warpspec.pipeline<4>
      // expected-error @+1 {{needs a stage from warpspec.producer.acquire, got one from warpspec.consumer.wait}}
      warpspec.producer.commit %pipe[%s] : !warpspec.pipeline<4>
    }
  }
  warpspec.return
}

// -----

// Tile loops of one kernel must walk the same tiles.
warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      // expected-error @+1 {{walks another tile order than the tile loop at}}
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 {
      }
    }
    warpspec.role "c" warps [4, 8) regs 128 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 4 {
      }
    }
  }
  warpspec.return
}

// -----

// A kernel walking two tile spaces (the fused L1 + L2 kernel): every role
// walks both, in the same order.
warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      // expected-error @+1 {{is one of 2 tile loops of role "p", role "c" walks 1: every role of a kernel must walk the same tiles}}
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 16 raster 16 {
      }
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 {
      }
    }
    warpspec.role "c" warps [4, 8) regs 128 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 16 raster 16 {
      }
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 16 raster 16 {
      }
      // expected-error @+1 {{walks another tile order than the tile loop at}}
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 {
      }
    }
    warpspec.role "c" warps [4, 8) regs 128 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 16 raster 16 {
      }
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 16 raster 16 {
      }
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      // expected-error @+1 {{raster 40 is more than n_blocks 32 (a raster is a group of n-blocks of the grid)}}
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 40 {
      }
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{must be inside a warpspec.role}}
  warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 {
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %d = warpspec.smem.alloc "d" : !warpspec.smem<64x64xbf16, slots = 1, align = 1024, swizzle = 128>
  // expected-error @+1 {{view of 16384 B (1 slot(s) of 16384 B) does not fit in the 8192 B of its source}}
  %v = warpspec.smem.view %d : !warpspec.smem<64x64xbf16, slots = 1, align = 1024, swizzle = 128> -> !warpspec.smem<64x64xf32, slots = 1, align = 1024>
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %d = warpspec.smem.alloc "d" : !warpspec.smem<64x64xbf16, slots = 1, align = 128>
  // expected-error @+1 {{view asks for 1024-byte alignment but its source is only 128-byte aligned}}
  %v = warpspec.smem.view %d : !warpspec.smem<64x64xbf16, slots = 1, align = 128> -> !warpspec.smem<64x64xbf16, slots = 1, align = 1024, swizzle = 128>
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
  // expected-error @+1 {{ring 'ab' has 4 stages but its buffer '!warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>' has 2 slot(s); a ring buffer needs one slot per stage}}
  %ring = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 1 buffers(%a : !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>) : !warpspec.pipeline<4>
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!desc = !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
warpspec.kernel @k(%da: !desc) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 32 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %b = warpspec.smem.alloc "b" : !tile
  %ring = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 1 buffers(%a : !tile) : !warpspec.pipeline<4>
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "p" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %ring : !warpspec.pipeline<4>
      // expected-error @+1 {{fills a buffer that is not one of ring 'ab''s buffers; list it in the ring's buffers(...)}}
      warpspec.tma.load %da[%c0i, %c0i] -> %b[%s], %ring : !desc, !tile, !warpspec.pipeline<4>
      warpspec.producer.commit %ring[%s] : !warpspec.pipeline<4>
    }
  }
  warpspec.return
}

// -----

!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
warpspec.kernel @k(%src: !llvm.ptr<1>, %n: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 32 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %ring = warpspec.pipeline.create "s" producer_arrivals 1 consumer_arrivals 1 : !warpspec.pipeline<4>
  warpspec.roles {
    warpspec.role "p" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %ring : !warpspec.pipeline<4>
      warpspec.bulk.copy %src, %n -> %sfa[%s], %ring : !sfa, !warpspec.pipeline<4>
      // expected-error @+1 {{cannot derive the transaction bytes: a copy of this stage in the commit's block has a dynamic size; state them with tx_bytes}}
      warpspec.producer.commit %ring[%s] : !warpspec.pipeline<4>
    }
  }
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!btile = !warpspec.smem<64x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %b = warpspec.smem.alloc "b" : !btile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{accumulator n = 128 does not match the B tile's 64 rows}}
      %t = warpspec.mma.block_scaled %a, %b stage %c0 row %c0 a_scales %sfa b_scales %sb into %z : !tile, !btile, !sfa, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{a_scales tile holds 32 scales, fewer than the accumulator's 64 rows}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb into %z : !tile, !tile, !sfa, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{is warpgroup-collective and must be in a role marked `mma`; role 'm' is not}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb into %z : !tile, !tile, !sfa, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

// sm_100: three MMA warpgroups with 256-column partials need 768 of the 512
// TMEM columns.
!tile = !warpspec.smem<192x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!btile = !warpspec.smem<256x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<192xf32, slots = 2, align = 128>
!acc = !warpspec.acc<64x256xf32>
// expected-error @+1 {{needs 768 TMEM columns (3 MMA warpgroups x their accumulator width, allocated as 1024) for its block-scaled MMA partials, more than the 512 columns of an sm_100a CTA}}
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_100a", maxnreg = 168 : i32, threads = 384 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %b = warpspec.smem.alloc "b" : !btile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 12) regs 168 mma {
      %z = warpspec.acc.zero : !acc
      %t = warpspec.mma.block_scaled %a, %b stage %c0 row %c0 a_scales %sfa b_scales %sb into %z : !tile, !btile, !sfa, !acc
    }
  }
  warpspec.return
}

// -----

// sm_100: an MMA role that is not whole warpgroups cannot read its TMEM
// partial (warp w reaches only lane quarter w mod 4).
!tile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<64xf32, slots = 2, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 256 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    // expected-error @+1 {{role 'm' issues warpgroup MMA, so its warp range [2, 6) must be warpgroup-aligned (multiples of 4 warps); on sm_100a warp w may access only TMEM lanes [32 (w mod 4), 32 (w mod 4) + 32), so an MMA warpgroup that reads its partial must be whole}}
    warpspec.role "m" warps [2, 6) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x64xf32>
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb into %z : !tile, !tile, !sfa, !warpspec.acc<64x64xf32>
    }
  }
  warpspec.return
}

// -----

// sm_100: every MMA warpgroup of a role owns one TMEM partial of one width.
!tile = !warpspec.smem<64x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!b32 = !warpspec.smem<32x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<64xf32, slots = 2, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_100a", maxnreg = 168 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %b = warpspec.smem.alloc "b" : !b32
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x64xf32>
      // expected-note @+1 {{the earlier MMA}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb into %z : !tile, !tile, !sfa, !warpspec.acc<64x64xf32>
      %z2 = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      // expected-error @+1 {{accumulates 32 columns but an earlier block-scaled MMA of role 'm' accumulates 64; on sm_100 each MMA warpgroup owns one TMEM partial of a single width}}
      %t2 = warpspec.mma.block_scaled %a, %b stage %c0 row %c0 a_scales %sfa b_scales %sb into %z2 : !tile, !b32, !sfa, !warpspec.acc<64x32xf32>
    }
  }
  warpspec.return
}

// -----

!dtile = !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>
warpspec.kernel @k(%dd: !warpspec.tma_desc<32x64xbf16, swizzle = 128>, %c: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %d = warpspec.smem.alloc "d" : !dtile
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 {
      // expected-error @+1 {{descriptor box must be [64, 64] (the stored rows x one column panel)}}
      warpspec.tile.store %d[%c0, %c0] rows 64 -> %dd[%c, %c] : !dtile, !warpspec.tma_desc<32x64xbf16, swizzle = 128>
    }
  }
  warpspec.return
}

// -----

!dtile = !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>
warpspec.kernel @k(%dd: !warpspec.tma_desc<64x64xbf16, swizzle = 0>, %c: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %d = warpspec.smem.alloc "d" : !dtile
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 {
      // expected-error @+1 {{descriptor swizzle 0 does not match the tile's 128}}
      warpspec.tile.store %d[%c0, %c0] rows 64 -> %dd[%c, %c] : !dtile, !warpspec.tma_desc<64x64xbf16, swizzle = 0>
    }
  }
  warpspec.return
}

// -----

!dtile = !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>
warpspec.kernel @k(%c: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %d = warpspec.smem.alloc "d" : !dtile
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 {
      // expected-error @+1 {{loads one 16-byte chunk; result type 'vector<2xi32>' has 8 bytes}}
      %v = warpspec.tile.load %d[%c0, %c, %c] : !dtile -> vector<2xi32>
    }
  }
  warpspec.return
}

// -----

// expected-error @+1 {{!warpspec.global needs an integer or float element type of whole bytes, or a 1-D vector of them; got 'i1'}}
func.func private @bool_elements(!warpspec.global<i1>)

// -----

// expected-error @+1 {{!warpspec.global needs an integer or float element type of whole bytes, or a 1-D vector of them; got 'memref<4xf32>'}}
func.func private @memref_elements(!warpspec.global<memref<4xf32>>)

// -----

func.func @load_misaligned(%p: !warpspec.global<f32>) {
  // expected-error @+1 {{expects align to be a power of two (bytes), got 12}}
  %v = warpspec.global.load %p align 12 : !warpspec.global<f32>
  return
}

// -----

func.func @store_wrong_type(%p: !warpspec.global<f32>, %v: i32) {
  // expected-error @+1 {{value type is the pointer's element type}}
  "warpspec.global.store"(%v, %p) : (i32, !warpspec.global<f32>) -> ()
  return
}

// -----

func.func @offset_i16(%p: !warpspec.global<f32>, %i: i16) {
  // expected-error @+1 {{operand #1 must be i32 or i64 element index}}
  %q = warpspec.global.offset %p[%i] : !warpspec.global<f32>, i16
  return
}

// -----

func.func @cast_untyped(%p: !llvm.ptr<1>) {
  // expected-error @+1 {{casts !llvm.ptr<1> to itself; one side must be a !warpspec.global<T>}}
  %q = warpspec.global.cast %p : !llvm.ptr<1> to !llvm.ptr<1>
  return
}

// -----

func.func @cast_shared(%p: !llvm.ptr<3>) {
  // expected-error @+1 {{operand #0 must be !warpspec.global<T> or !llvm.ptr<1>}}
  %q = warpspec.global.cast %p : !llvm.ptr<3> to !warpspec.global<f32>
  return
}

// -----

func.func @atomic_fadd_int(%p: !warpspec.global<i32>, %v: i32) {
  // expected-error @+1 {{fadd needs an f32 element, got 'i32'}}
  %old = warpspec.global.atomic fadd %p, %v : !warpspec.global<i32>
  return
}

// -----

func.func @atomic_max_float(%p: !warpspec.global<f32>, %v: f32) {
  // expected-error @+1 {{max needs an i32 or i64 element, got 'f32'}}
  %old = warpspec.global.atomic max %p, %v : !warpspec.global<f32>
  return
}

// -----

func.func @counter_of_floats(%p: !warpspec.global<f32>, %v: i32) {
  // expected-error @+1 {{operand #0 must be !warpspec.global<i32> or !llvm.ptr<1>}}
  warpspec.counter.add %p, %v scope gpu : !warpspec.global<f32>
  return
}

// -----

func.func @peer_table_of_i32(%p: !warpspec.global<f32>, %t: !warpspec.global<i32>, %r: i32) {
  // expected-error @+1 {{operand #2 must be !warpspec.global<i64> or !llvm.ptr<1>}}
  %q = warpspec.peer.ptr %p, %r, %t : !warpspec.global<f32>, !warpspec.global<i32>
  return
}

// -----

func.func @approx_f16(%x: f16) {
  // expected-error @+1 {{operand #0 must be 32-bit float}}
  %e = "warpspec.approx"(%x) {kind = 0 : i32} : (f16) -> f16
  return
}

// -----

func.func @approx_kind(%x: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [ex2, rcp]}}
  %e = warpspec.approx exp %x
  return
}

// -----

func.func @cvt_result(%x: f32) {
  // expected-error @+1 {{result #0 must be 16-bit signless integer}}
  %p = "warpspec.cvt.e4m3x2"(%x, %x) : (f32, f32) -> i32
  return
}

// -----

func.func @deinterleave_period(%h: !warpspec.acc<64x128xf32>) {
  // expected-error @+1 {{period must be a multiple of 8 (a thread holds accumulator columns in groups of 8), got 4}}
  %g, %u = warpspec.acc.deinterleave %h period 4 : !warpspec.acc<64x128xf32> -> !warpspec.acc<64x64xf32>
  return
}

// -----

func.func @deinterleave_pairs(%h: !warpspec.acc<64x96xf32>) {
  // expected-error @+1 {{accumulator of n = 96 columns is not a whole number of (kind 0, kind 1) column pairs of 2 x 64}}
  %g, %u = warpspec.acc.deinterleave %h period 64 : !warpspec.acc<64x96xf32> -> !warpspec.acc<64x48xf32>
  return
}

// -----

func.func @deinterleave_result(%h: !warpspec.acc<64x128xf32>) {
  // expected-error @+1 {{results must be '!warpspec.acc<64x64xf32>' (half the columns)}}
  %g, %u = warpspec.acc.deinterleave %h period 8 : !warpspec.acc<64x128xf32> -> !warpspec.acc<64x128xf32>
  return
}

// -----

func.func @map_mixed(%a: !warpspec.acc<64x64xf32>, %b: !warpspec.acc<64x128xf32>) {
  // expected-error @+1 {{expects every accumulator of one type; got '!warpspec.acc<64x64xf32>' and '!warpspec.acc<64x128xf32>'}}
  %r = warpspec.acc.map %a, %b : !warpspec.acc<64x64xf32>, !warpspec.acc<64x128xf32> -> !warpspec.acc<64x64xf32> {
  ^bb0(%x: f32, %y: f32):
    warpspec.acc.yield %x : f32
  }
  return
}

// -----

func.func @map_arity(%a: !warpspec.acc<64x64xf32>, %w: !warpspec.acc_rows<64xf32>) {
  // expected-error @+1 {{body takes one f32 per operand (2), got 1 arguments}}
  %r = warpspec.acc.map %a rows(%w) : !warpspec.acc<64x64xf32> rows !warpspec.acc_rows<64xf32> -> !warpspec.acc<64x64xf32> {
  ^bb0(%x: f32):
    warpspec.acc.yield %x : f32
  }
  return
}

// -----

func.func @map_result(%a: !warpspec.acc<64x64xf32>) {
  // expected-error @+1 {{result type '!warpspec.acc<64x128xf32>' differs from the operands' '!warpspec.acc<64x64xf32>'}}
  %r = warpspec.acc.map %a : !warpspec.acc<64x64xf32> -> !warpspec.acc<64x128xf32> {
  ^bb0(%x: f32):
    warpspec.acc.yield %x : f32
  }
  return
}

// -----

func.func @map_no_yield(%a: !warpspec.acc<64x64xf32>) {
  // expected-error @+1 {{body must end with warpspec.acc.yield of the element's value}}
  %r = warpspec.acc.map %a : !warpspec.acc<64x64xf32> -> !warpspec.acc<64x64xf32> {
  ^bb0(%x: f32):
    "test.end"() : () -> ()
  }
  return
}

// -----

func.func @rows_load_type(%p: !warpspec.global<i32>) {
  // expected-error @+1 {{reads f32 per-row values, got a pointer to 'i32'}}
  %w = warpspec.acc_rows.load %p : !warpspec.global<i32> -> !warpspec.acc_rows<64xf32>
  return
}

// -----

func.func @rows_store_type(%w: !warpspec.acc_rows<64xf32>, %p: !warpspec.global<bf16>) {
  // expected-error @+1 {{writes f32 per-row values, got a pointer to 'bf16'}}
  warpspec.acc_rows.store %w, %p : !warpspec.acc_rows<64xf32>, !warpspec.global<bf16>
  return
}

// -----

// expected-error @+1 {{per-row values of a warpgroup accumulator have m = 64 rows, got m = 32}}
func.func @rows_type(%w: !warpspec.acc_rows<32xf32>) {
  return
}

// -----

func.func @yield_outside(%x: f32) {
  // expected-error @+1 {{expects parent op to be one of 'warpspec.acc.map, warpspec.acc_rows.map'}}
  warpspec.acc.yield %x : f32
}

// -----

func.func @rows_shared_shape(%w: !warpspec.acc_rows<64xf32>, %x: !warpspec.smem<32xf32, slots = 2, align = 16>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs a 1-D f32 buffer of 64 elements per slot (one per row), got '!warpspec.smem<32xf32, slots = 2, align = 16>'}}
  warpspec.acc_rows.store_shared %w, %x[%c0] : !warpspec.acc_rows<64xf32>, !warpspec.smem<32xf32, slots = 2, align = 16>
  return
}

// -----

func.func @rows_shared_slot(%x: !warpspec.smem<64xf32, slots = 2, align = 16>) {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{slot}}
  %r = warpspec.acc_rows.load_shared %x[%c2] : !warpspec.smem<64xf32, slots = 2, align = 16> -> !warpspec.acc_rows<64xf32>
  return
}

// -----

func.func @rows_map_arity(%a: !warpspec.acc_rows<64xf32>, %b: !warpspec.acc_rows<64xf32>) {
  // expected-error @+1 {{body takes one f32 per operand (2), got 1 arguments}}
  %r = warpspec.acc_rows.map %a, %b : !warpspec.acc_rows<64xf32>, !warpspec.acc_rows<64xf32> -> !warpspec.acc_rows<64xf32> {
  ^bb0(%x: f32):
    warpspec.acc.yield %x : f32
  }
  return
}

// -----

func.func @row_reduce_mixed(%a: !warpspec.acc<64x64xf32>, %b: !warpspec.acc<64x128xf32>) {
  // expected-error @+1 {{expects every accumulator of one type; got '!warpspec.acc<64x64xf32>' and '!warpspec.acc<64x128xf32>'}}
  %r = warpspec.acc.row_reduce absmax %a, %b : !warpspec.acc<64x64xf32>, !warpspec.acc<64x128xf32> -> !warpspec.acc_rows<64xf32>
  return
}

// -----

func.func @any_mixed(%a: !warpspec.acc<64x64xf32>, %b: !warpspec.acc<64x128xf32>) {
  // expected-error @+1 {{expects every accumulator of one type; got '!warpspec.acc<64x64xf32>' and '!warpspec.acc<64x128xf32>'}}
  %r = warpspec.acc.any %a, %b : !warpspec.acc<64x64xf32>, !warpspec.acc<64x128xf32>
  return
}

// -----

// A cluster pipeline needs a kernel launched in clusters of that size.
!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %b = warpspec.smem.alloc "b" : !tile
  // expected-error @+1 {{pipeline 'ab' spans a cluster of 2 CTAs, but the kernel's cluster is not set (one CTA); it needs cluster = [2, 1, 1]}}
  %ring = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 1 cluster 2 buffers(%b : !tile) : !warpspec.pipeline<2>
  warpspec.return
}

// -----

func.func @any_none() {
  // expected-error @+1 {{needs at least one accumulator}}
  %r = "warpspec.acc.any"() : () -> i1
  return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
warpspec.kernel @k() attributes {chip = "sm_90a", cluster = array<i32: 1, 2, 1>, maxnreg = 128 : i32, threads = 128 : i32} {
  %b = warpspec.smem.alloc "b" : !tile
  // expected-error @+1 {{pipeline 'ab' spans a cluster of 2 CTAs, but the kernel's cluster is [1, 2, 1]; it needs cluster = [2, 1, 1]}}
  %ring = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 1 cluster 2 buffers(%b : !tile) : !warpspec.pipeline<2>
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
warpspec.kernel @k() attributes {chip = "sm_90a", cluster = array<i32: 2, 1, 1>, maxnreg = 128 : i32, threads = 128 : i32} {
  %b = warpspec.smem.alloc "b" : !tile
  // expected-error @+1 {{'cluster' failed to satisfy constraint}}
  %ring = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 1 cluster 1 buffers(%b : !tile) : !warpspec.pipeline<2>
  warpspec.return
}

// -----

// A multicast load writes the peer's slot: its ring must be the cluster's.
!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!half = !warpspec.tma_desc<64x128xf8E4M3FN, swizzle = 128>
warpspec.kernel @k(%d: !half) attributes {chip = "sm_90a", cluster = array<i32: 2, 1, 1>, maxnreg = 128 : i32, threads = 128 : i32} {
  %b = warpspec.smem.alloc "b" : !tile
  %ring = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 1 buffers(%b : !tile) : !warpspec.pipeline<2>
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      %s = warpspec.producer.acquire %ring : !warpspec.pipeline<2>
      // expected-error @+1 {{multicast 2 writes the slots of the 2 CTAs of a cluster; its pipeline must be released by all of them (warpspec.pipeline.create ... cluster 2)}}
      warpspec.tma.load %d[%c0i, %c0i] -> %b[%s], %ring multicast 2 : !half, !tile, !warpspec.pipeline<2>
    }
  }
  warpspec.return
}

// -----

// Both boxes of a multicast load land in each CTA's slot.
!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!desc = !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
warpspec.kernel @k(%d: !desc) attributes {chip = "sm_90a", cluster = array<i32: 2, 1, 1>, maxnreg = 128 : i32, threads = 128 : i32} {
  %b = warpspec.smem.alloc "b" : !tile
  %ring = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 1 cluster 2 buffers(%b : !tile) : !warpspec.pipeline<2>
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      %s = warpspec.producer.acquire %ring : !warpspec.pipeline<2>
      // expected-error @+1 {{multicast TMA boxes of 32768 B at slot offset 0 does not fit a 16384 B slot}}
      warpspec.tma.load %d[%c0i, %c0i] -> %b[%s], %ring multicast 2 : !desc, !tile, !warpspec.pipeline<2>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      // expected-error @+1 {{tile loop spans a cluster of 2 CTAs, but the kernel's cluster is not set (one CTA); it needs cluster = [2, 1, 1]}}
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 cluster 2 {
      }
    }
  }
  warpspec.return
}

// -----

// Every role of a cluster kernel walks the cluster's tile order.
warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", cluster = array<i32: 2, 1, 1>, maxnreg = 128 : i32, threads = 256 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      // expected-error @+1 {{walks another tile order than the tile loop at}}
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 cluster 2 {
      }
    }
    warpspec.role "c" warps [4, 8) regs 128 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 {
      }
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @known_stage_out_of_range() attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<2>
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 128 {
      // expected-error @+1 {{known_stage 2 is not a stage of the 2-stage pipeline (0 <= known_stage < 2)}}
      %s = warpspec.consumer.wait %pipe known_stage 2 : !warpspec.pipeline<2>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // expected-error @+1 {{'warpspec.sequence.next' op needs a non-empty key (the sequence it counts)}}
  %n = warpspec.sequence.next "" : i32
  warpspec.return
}

// -----

func.func @outside() -> i32 {
  // expected-error @+1 {{'warpspec.sequence.next' op must be inside a warpspec.kernel (the count lives in a register of the kernel's thread)}}
  %n = warpspec.sequence.next "profile" : i32
  return %n : i32
}

// -----

// A release count arrives on this CTA's barrier only: not on a cluster ring.
!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
warpspec.kernel @k() attributes {chip = "sm_90a", cluster = array<i32: 2, 1, 1>, maxnreg = 128 : i32, threads = 256 : i32} {
  %b = warpspec.smem.alloc "b" : !tile
  %ring = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 4 cluster 2 buffers(%b : !tile) : !warpspec.pipeline<2>
  warpspec.roles {
    warpspec.role "use" warps [0, 4) regs 128 {
      %two = arith.constant 2 : i32
      %s = warpspec.consumer.wait %ring : !warpspec.pipeline<2>
      // expected-error @+1 {{count is not supported on a cluster pipeline (its arrivals go to every CTA's barrier)}}
      warpspec.consumer.release %ring[%s] count %two : !warpspec.pipeline<2>
    }
  }
  warpspec.return
}

// -----

!pipe = !warpspec.pipeline<2>
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  %ring = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 4 : !pipe
  warpspec.roles {
    warpspec.role "use" warps [0, 4) regs 128 {
      // expected-error @+1 {{skips 0 stages; expected 1 to 2^30}}
      warpspec.consumer.skip %ring, 0 : !pipe
    }
  }
  warpspec.return
}

// -----

func.func @slice_unaligned(%d: !warpspec.acc<64x192xf32>) {
  // expected-error @+1 {{offset and columns must be multiples of 8 (a thread holds accumulator columns in groups of 8), got offset 4 and 64 columns}}
  %p = warpspec.acc.slice %d offset 4 : !warpspec.acc<64x192xf32> -> !warpspec.acc<64x64xf32>
  return
}

// -----

func.func @slice_outside(%d: !warpspec.acc<64x192xf32>) {
  // expected-error @+1 {{columns [160, 224) are not within the 192 columns of the accumulator}}
  %p = warpspec.acc.slice %d offset 160 : !warpspec.acc<64x192xf32> -> !warpspec.acc<64x64xf32>
  return
}

// -----

warpspec.kernel @k(%g: !warpspec.global<i8>) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<512xi8, slots = 1, align = 128>
  warpspec.roles {
    warpspec.role "dispatch" warps [0, 1) regs 128 {
      %c0 = arith.constant 0 : index
      %src = warpspec.smem.slot %a[%c0] : !warpspec.smem<512xi8, slots = 1, align = 128> -> !llvm.ptr<3>
      %c24 = arith.constant 24 : i32
      // expected-error @+1 {{bulk store size must be a positive multiple of 16 bytes, got 24}}
      warpspec.bulk.store %src, %c24 -> %g : !warpspec.global<i8>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {
    }
  }
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{k_range [96, 64] must be multiples of the MMA k = 32 with size > 0 and begin + size <= K = 128}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %a[%c0], %z k_range [96, 64] : !tile, !tile, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{k_range must be [begin, size], got 1 value(s)}}
      %p = warpspec.mma.sm90 %a[%c0, %c0], %a[%c0], %z k_range [64] : !tile, !tile, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!sfa2 = !warpspec.smem<2x128xf32, slots = 2, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !sfa2
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{a_scale_group 2 is outside the a_scales tile's 2 group(s)}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] group 2 b_scales %sb : !sfa2, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa8 = !warpspec.smem<8x128xf32, slots = 2, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa8
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{the 8 activation-scale groups split K = 128 into ranges that are not multiples of the MMA k = 32}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb into %z : !tile, !tile, !sfa8, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!sfa3 = !warpspec.smem<2x2x128xf32, slots = 2, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !sfa3
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{a_scales must be a buffer of f32 tiles of per-row scales, [M] or [groups, M]}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %sb : !sfa3, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

// expected-error @+1 {{trigger_dependents_at_entry needs programmatic_launch}}
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, trigger_dependents_at_entry} {
  warpspec.return
}

// -----

// A K-split tile loop's units carry the unit index.
warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      // expected-error @+1 {{expects three block arguments (m-block, n-block, split unit)}}
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 16 raster 16 k_split 4 tiles 99 {
      }
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32, cluster = array<i32: 2, 1, 1>} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      // expected-error @+1 {{k_split and cluster exclude each other}}
      warpspec.tile_loop (%m, %n, %u) m_blocks(%mb) n_blocks 16 raster 16 cluster 2 k_split 4 tiles 99 {
      }
    }
  }
  warpspec.return
}

// -----

// Every role splits the same tiles.
warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 128 {
      // expected-error @+1 {{walks another tile order than the tile loop at}}
      warpspec.tile_loop (%m, %n, %u) m_blocks(%mb) n_blocks 16 raster 16 k_split 4 tiles 99 {
      }
    }
    warpspec.role "c" warps [4, 8) regs 128 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 16 raster 16 {
      }
    }
  }
  warpspec.return
}

// -----

func.func @spill_i32(%a: !warpspec.acc<64x64xf32>, %p: !warpspec.global<i32>) {
  // expected-error @+1 {{moves an f32 accumulator, got a pointer to 'i32'}}
  warpspec.acc.spill %a, %p : !warpspec.acc<64x64xf32>, !warpspec.global<i32>
  return
}

// -----

func.func @fill_i32(%p: !warpspec.global<i32>) {
  // expected-error @+1 {{moves an f32 accumulator, got a pointer to 'i32'}}
  %a = warpspec.acc.fill %p : !warpspec.global<i32> -> !warpspec.acc<64x64xf32>
  return
}

// -----

func.func @prefetch_not_16(%p: !warpspec.global<i8>) {
  %n = arith.constant 40 : i32
  // expected-error @+1 {{prefetches 40 bytes; the bulk prefetch needs a positive multiple of 16}}
  warpspec.global.prefetch %p, %n : !warpspec.global<i8>
  return
}

// -----

func.func @prefetch_zero(%p: !warpspec.global<i8>) {
  %n = arith.constant 0 : i32
  // expected-error @+1 {{prefetches 0 bytes; the bulk prefetch needs a positive multiple of 16}}
  warpspec.global.prefetch %p, %n : !warpspec.global<i8>
  return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %turn = warpspec.named_barrier 1 roles ["m"]
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{passes the issue turn to the barrier it waits on; `turn` and `pass` must be different barriers}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb turn %turn pass %turn into %z : !tile, !tile, !sfa, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 256 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %t0 = warpspec.named_barrier 1 roles ["m"]
  %t1 = warpspec.named_barrier 2 roles ["other"]
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{is executed in role 'm', which does not take part in named barrier 2}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb turn %t0 pass %t1 into %z : !tile, !tile, !sfa, !warpspec.acc<64x128xf32>
    }
    warpspec.role "other" warps [4, 8) regs 128 {
    }
  }
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %t0 = warpspec.named_barrier 1 roles ["m"]
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{needs both `turn` and `pass` barriers, or neither}}
      %t = "warpspec.mma.block_scaled"(%a, %c0, %c0, %a, %sfa, %z, %sb, %t0) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0>}> : (!tile, index, index, !tile, !sfa, !warpspec.acc<64x128xf32>, f32, !warpspec.barrier) -> !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{takes the 2 row scales of the thread's fragment (warpspec.acc.row_scales) or none, got 1}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] b_scales %sb row_scales %sb : !sfa, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!sfa = !warpspec.smem<2x128xf32, slots = 4, align = 128>
warpspec.kernel @k() attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      // expected-error @+1 {{a_scale_group 2 is outside the a_scales tile's 2 group(s)}}
      %s:2 = warpspec.acc.row_scales %sfa[%c0, %c0] group 2 : !sfa
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      %z16 = warpspec.acc.zero : !warpspec.acc<64x16xf32>
      // expected-error @+1 {{accumulator n = 16 does not match the B tile's 32 rows}}
      %t = warpspec.mma.block_scaled %x, %w stage %c0 row %c0 a_scales %sfa b_scales %sb swap_ab into %z16 : !x, !w, !sfa, !warpspec.acc<64x16xf32>
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      %c96 = arith.constant 96 : index
      // expected-error @+1 {{A row 96 must be a multiple of 64 with row + 64 <= 128}}
      %t = warpspec.mma.block_scaled %x, %w stage %c0 row %c96 a_scales %sfa b_scales %sb swap_ab into %z : !x, !w, !sfa, !warpspec.acc<64x32xf32>
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      // expected-error @+1 {{a_scales tile holds 16 scales, fewer than the accumulator's 32 columns}}
      %t = warpspec.mma.block_scaled %x, %w stage %c0 row %c0 a_scales %sfa16 b_scales %sb swap_ab into %z : !x, !w, !sfa16, !warpspec.acc<64x32xf32>
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      // expected-error @+1 {{swap_ab takes [M] a_scales}}
      %t = warpspec.mma.block_scaled %x, %w stage %c0 row %c0 a_scales %sfa2 b_scales %sb swap_ab into %z : !x, !w, !sfa2, !warpspec.acc<64x32xf32>
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      // expected-error @+1 {{column scales take one b scale and no b_scale_map}}
      %t = warpspec.mma.block_scaled %x, %w stage %c0 row %c0 a_scales %sfa b_scales %sb, %sc swap_ab into %z : !x, !w, !sfa, !warpspec.acc<64x32xf32>
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      // expected-error @+1 {{column scales take no row scales and no a_scale_group}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c0] column_scales b_scales %sb row_scales %sb, %sc : !sfa, !warpspec.acc<64x32xf32>
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      // expected-error @+1 {{a_scales row 8 + the accumulator's 32 columns exceeds the tile's 32 scales}}
      %t = warpspec.acc.promote %z into %z a_scales %sfa[%c0, %c8] column_scales b_scales %sb : !sfa, !warpspec.acc<64x32xf32>
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      // expected-error @+1 {{transpose stores 16-bit elements (bf16, f16), got 'f32'}}
      warpspec.acc.store %z -> %outf[%c0, %c0] transpose : !warpspec.acc<64x32xf32>, !outf
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      // expected-error @+1 {{transposed: the accumulator's m = 64 rows must match the destination's 128 columns}}
      warpspec.acc.store %z -> %out128[%c0, %c0] transpose : !warpspec.acc<64x32xf32>, !out128
    }
  }
  warpspec.return
}

// -----

!w = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!x = !warpspec.smem<32x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<32xf32, slots = 4, align = 128>
!sfa16 = !warpspec.smem<16xf32, slots = 4, align = 128>
!sfa2 = !warpspec.smem<2x32xf32, slots = 4, align = 128>
!out = !warpspec.smem<32x64xbf16, slots = 1, align = 1024, swizzle = 128>
!outf = !warpspec.smem<32x64xf32, slots = 1, align = 1024>
!out128 = !warpspec.smem<32x128xbf16, slots = 1, align = 1024>
warpspec.kernel @k(%sb: f32, %sc: f32) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %w = warpspec.smem.alloc "w" : !w
  %x = warpspec.smem.alloc "x" : !x
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %sfa16 = warpspec.smem.alloc "sfa16" : !sfa16
  %sfa2 = warpspec.smem.alloc "sfa2" : !sfa2
  %out = warpspec.smem.alloc "out" : !out
  %outf = warpspec.smem.alloc "outf" : !outf
  %out128 = warpspec.smem.alloc "out128" : !out128
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x32xf32>
      // expected-error @+1 {{transposed: destination row 8 + n = 32 exceeds its 32 rows}}
      warpspec.acc.store %z -> %out[%c0, %c8] transpose : !warpspec.acc<64x32xf32>, !out
    }
  }
  warpspec.return
}

// -----

// a_scale_groups names the first G rows of each slot: no more than it has.
!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa2 = !warpspec.smem<2x128xf32, slots = 2, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa2
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{a_scale_groups 4 exceeds the a_scales tile's 2 group(s) per row}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb a_scale_groups 4 into %z : !tile, !tile, !sfa2, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa2 = !warpspec.smem<2x128xf32, slots = 2, align = 128>
warpspec.kernel @k(%sb: f32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa2
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "m" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // expected-error @+1 {{attribute 'a_scale_groups' failed to satisfy constraint}}
      %t = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb a_scale_groups 0 into %z : !tile, !tile, !sfa2, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      // expected-error @+1 {{walks two phases: n_blocks and raster need two values each, got 3 and 2}}
      warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32, 8] raster [16, 8] wave 8 lag 1 {
      }
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      // expected-error @+1 {{phase 1's raster 64 is more than its n_blocks 32}}
      warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32] raster [16, 64] wave 8 lag 1 {
      }
    }
  }
  warpspec.return
}

// -----

warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      // expected-error @+1 {{attribute 'wave' failed to satisfy constraint}}
      warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32] raster [16, 8] wave 0 lag 1 {
      }
    }
  }
  warpspec.return
}

// -----

// Every role walks the same wave loop: another lag is another order.
warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 256 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 168 {
      // expected-error @+1 {{walks another tile order than the tile loop at}}
      warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32] raster [16, 8] wave 8 lag 1 {
      }
    }
    warpspec.role "c" warps [4, 8) regs 168 {
      warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32] raster [16, 8] wave 8 lag 0 {
      }
    }
  }
  warpspec.return
}

// -----

// A wave loop is not a tile loop.
warpspec.kernel @k(%mb: i32) attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 256 : i32} {
  warpspec.roles {
    warpspec.role "p" warps [0, 4) regs 168 {
      // expected-error @+1 {{walks another tile order than the tile loop at}}
      warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32] raster [16, 8] wave 8 lag 1 {
      }
    }
    warpspec.role "c" warps [4, 8) regs 168 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 16 raster 16 {
      }
    }
  }
  warpspec.return
}

// -----

// Two commits of one stage in one block, bytes derived: each would expect
// every copy of the block (the stage never completes on the GPU).
warpspec.kernel @k(%d: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>) attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %pipe = warpspec.pipeline.create "p" producer_arrivals 1 consumer_arrivals 4 : !warpspec.pipeline<4>
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 1) regs 128 {
      %s = warpspec.producer.acquire %pipe : !warpspec.pipeline<4>
      warpspec.tma.load %d[%c0i, %c0i] -> %a[%s], %pipe : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
      // expected-error @+1 {{derives its transaction bytes from every copy of the stage in its block, and another commit of that stage is in the same block}}
      warpspec.producer.commit %pipe[%s] : !warpspec.pipeline<4>
      warpspec.tma.load %d[%c0i, %c0i] -> %b[%s], %pipe : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
      warpspec.producer.commit %pipe[%s] : !warpspec.pipeline<4>
    }
    warpspec.role "rest" warps [1, 4) regs 128 {
    }
  }
  warpspec.return
}
