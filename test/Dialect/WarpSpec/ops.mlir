// RUN: warpspec-opt %s | FileCheck %s
// RUN: warpspec-opt %s | warpspec-opt | FileCheck %s
// RUN: warpspec-opt %s --mlir-print-op-generic | warpspec-opt | FileCheck %s
// Print-parse-print of every warpspec op and type.

!tile = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!sfa = !warpspec.smem<128xf32, slots = 4, align = 128>
!out = !warpspec.smem<128x128xbf16, slots = 1, align = 1024>
!desc = !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
!sfdesc = !warpspec.tma_desc<128xf32, swizzle = 0>
!odesc = !warpspec.tma_desc<64x128xbf16, swizzle = 0>
!pipe = !warpspec.pipeline<4>
!acc = !warpspec.acc<64x128xf32>

// CHECK: #[[MAP:map[0-9]*]] = affine_map<(d0) -> ((d0 floordiv 8) mod 2)>
// CHECK-LABEL: warpspec.kernel @all_sm90
// CHECK-SAME: (%{{.*}}: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, %{{.*}}: !warpspec.tma_desc<128xf32, swizzle = 0>, %{{.*}}: !warpspec.tma_desc<64x128xbf16, swizzle = 0>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: f32)
// CHECK-SAME: attributes {chip = "sm_90a", cluster = array<i32: 1, 1, 1>, maxnreg = 168 : i32, smem_bytes = 0 : i64, threads = 384 : i32}
warpspec.kernel @all_sm90(%da: !desc, %dsf: !sfdesc, %dout: !odesc,
                          %ctr: !llvm.ptr<1>, %offsets: !llvm.ptr<1>,
                          %n: i32, %sb: f32)
    attributes {chip = "sm_90a", cluster = array<i32: 1, 1, 1>, maxnreg = 168 : i32,
                smem_bytes = 0 : i64, threads = 384 : i32} {
  // CHECK: %[[A:.*]] = warpspec.smem.alloc "a" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %a = warpspec.smem.alloc "a" : !tile
  // CHECK: warpspec.smem.alloc "b" offset 65536 : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" offset 65536 : !tile
  // CHECK: warpspec.smem.alloc "sfa" : !warpspec.smem<128xf32, slots = 4, align = 128>
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  // CHECK: warpspec.smem.alloc "out" : !warpspec.smem<128x128xbf16, slots = 1, align = 1024>
  %out = warpspec.smem.alloc "out" : !out
  // CHECK: %[[P:.*]] = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 8 : !warpspec.pipeline<4>
  %ab = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 8 : !pipe
  // CHECK: warpspec.pipeline.create "spare" producer_arrivals 1 consumer_arrivals 1 offset 200000 : !warpspec.pipeline<2>
  %spare = warpspec.pipeline.create "spare" producer_arrivals 1 consumer_arrivals 1 offset 200000 : !warpspec.pipeline<2>
  // CHECK: %[[NB:.*]] = warpspec.named_barrier 1 roles ["math"]
  %epi = warpspec.named_barrier 1 roles ["math"]
  // CHECK: warpspec.named_barrier 2 roles ["tma", "math"]
  %all = warpspec.named_barrier 2 roles ["tma", "math"]
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  // CHECK: warpspec.roles {
  warpspec.roles {
    // CHECK: warpspec.role "tma" warps [0, 1) regs 40 {
    warpspec.role "tma" warps [0, 1) regs 40 {
      // CHECK: warpspec.tma.prefetch %{{.*}} : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
      warpspec.tma.prefetch %da : !desc
      // CHECK: %[[S:.*]] = warpspec.producer.acquire %[[P]] : !warpspec.pipeline<4>
      %s = warpspec.producer.acquire %ab : !pipe
      // CHECK: warpspec.tma.load %{{.*}}[%{{.*}}, %{{.*}}] -> %[[A]][%[[S]]], %[[P]] : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.pipeline<4>
      warpspec.tma.load %da[%c0i, %c0i] -> %a[%s], %ab : !desc, !tile, !pipe
      // CHECK: warpspec.tma.load %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}}[%[[S]]], %[[P]] slot_offset 0 :
      warpspec.tma.load %da[%c0i, %c0i] -> %b[%s], %ab slot_offset 0 : !desc, !tile, !pipe
      // CHECK: warpspec.bulk.copy %{{.*}}, %{{.*}} -> %{{.*}}[%[[S]]], %[[P]] : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.pipeline<4>
      warpspec.bulk.copy %ctr, %c512 -> %sfa[%s], %ab : !sfa, !pipe
      // CHECK: warpspec.producer.commit %[[P]][%[[S]]] tx_bytes 33280 : !warpspec.pipeline<4>
      warpspec.producer.commit %ab[%s] tx_bytes 33280 : !pipe
      // CHECK: warpspec.barrier.arrive %{{.*}}
      warpspec.barrier.arrive %all
    }
    // CHECK: warpspec.role "idle" warps [1, 4) regs 40 {
    // CHECK-NEXT: }
    warpspec.role "idle" warps [1, 4) regs 40 {
    }
    // CHECK: warpspec.role "math" warps [4, 12) regs 232 mma {
    warpspec.role "math" warps [4, 12) regs 232 mma {
      // CHECK: warpspec.role.warp_id
      %w = warpspec.role.warp_id
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %wg = arith.divui %w, %c4 : index
      %row = arith.muli %wg, %c64 : index
      // CHECK: warpspec.acc.zero : !warpspec.acc<64x128xf32>
      %zero = warpspec.acc.zero : !acc
      // CHECK: %[[CS:.*]] = warpspec.consumer.wait %[[P]] : !warpspec.pipeline<4>
      %cs = warpspec.consumer.wait %ab : !pipe
      // CHECK: warpspec.consumer.wait %[[P]] known_stage 1 : !warpspec.pipeline<4>
      %cs1 = warpspec.consumer.wait %ab known_stage 1 : !pipe
      // CHECK: warpspec.mma.sm90 %[[A]][%[[CS]], %{{.*}}], %{{.*}}[%[[CS]]], %{{.*}} : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.acc<64x128xf32>
      %p = warpspec.mma.sm90 %a[%cs, %row], %b[%cs], %zero : !tile, !tile, !acc
      // CHECK: warpspec.mma.wait 0, %{{.*}} : !warpspec.acc<64x128xf32>
      %r = warpspec.mma.wait 0, %p : !acc
      // CHECK: warpspec.mma.wait 1{{$}}
      warpspec.mma.wait 1
      // CHECK: warpspec.acc.promote %{{.*}} into %{{.*}} a_scales %{{.*}}[%[[CS]], %{{.*}}] b_scales %{{.*}} : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
      %t = warpspec.acc.promote %r into %zero a_scales %sfa[%cs, %row] b_scales %sb : !sfa, !acc
      // CHECK: warpspec.acc.promote %{{.*}} into %{{.*}} a_scales %{{.*}}[%[[CS]], %{{.*}}] b_scales %{{.*}}, %{{.*}} :
      %t2 = warpspec.acc.promote %r into %t a_scales %sfa[%cs, %row] b_scales %sb, %sb : !sfa, !acc
      // CHECK: warpspec.acc.promote %{{.*}} into %{{.*}} a_scales %{{.*}}[%[[CS]], %{{.*}}] b_scales %{{.*}}, %{{.*}} b_scale_map #[[MAP]] : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
      %t3 = warpspec.acc.promote %r into %t2 a_scales %sfa[%cs, %row] b_scales %sb, %sb b_scale_map affine_map<(c) -> ((c floordiv 8) mod 2)> : !sfa, !acc
      // CHECK: warpspec.acc.fence %{{.*}} : !warpspec.acc<64x128xf32>
      %tf = warpspec.acc.fence %t3 : !acc
      // CHECK: warpspec.mma.sm90 %[[A]][%[[CS]], %{{.*}}], %{{.*}}[%[[CS]]], %{{.*}} discard_acc : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
      %p2 = warpspec.mma.sm90 %a[%cs, %row], %b[%cs], %r discard_acc : !tile, !tile, !acc
      // CHECK: warpspec.mma.sm90 {{.*}} discard_acc rematerialize_k_steps :
      %p3 = warpspec.mma.sm90 %a[%cs, %row], %b[%cs], %r discard_acc rematerialize_k_steps : !tile, !tile, !acc
      // CHECK: warpspec.consumer.release %[[P]][%[[CS]]] : !warpspec.pipeline<4>
      warpspec.consumer.release %ab[%cs] : !pipe
      // CHECK: warpspec.consumer.release %[[P]][%[[CS]]] reads_retired : !warpspec.pipeline<4>
      warpspec.consumer.release %ab[%cs] reads_retired : !pipe
      // CHECK: warpspec.consumer.release %[[P]][%[[CS]]] count %{{.*}} reads_retired : !warpspec.pipeline<4>
      %two = arith.constant 2 : i32
      warpspec.consumer.release %ab[%cs] count %two reads_retired : !pipe
      // CHECK: warpspec.consumer.skip %[[P]], 8 : !warpspec.pipeline<4>
      warpspec.consumer.skip %ab, 8 : !pipe
      // CHECK: warpspec.acc.store %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] : !warpspec.acc<64x128xf32>, !warpspec.smem<128x128xbf16, slots = 1, align = 1024>
      warpspec.acc.store %t2 -> %out[%c0, %row] : !acc, !out
      // CHECK: warpspec.fence.async_shared
      warpspec.fence.async_shared
      // CHECK: warpspec.fence.async_global
      warpspec.fence.async_global
      // CHECK: warpspec.warp_sync
      warpspec.warp_sync
      // CHECK: warpspec.barrier.sync %[[NB]]
      warpspec.barrier.sync %epi
      // CHECK: warpspec.smem.slot %{{.*}}[%{{.*}}] : !warpspec.smem<128x128xbf16, slots = 1, align = 1024> -> !llvm.ptr<3>
      %src = warpspec.smem.slot %out[%c0] : !out -> !llvm.ptr<3>
      // CHECK: warpspec.tma.store %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] : !warpspec.tma_desc<64x128xbf16, swizzle = 0>
      warpspec.tma.store %src -> %dout[%c0i, %c0i] : !odesc
      // CHECK: warpspec.tma.store.wait pending 0 read
      warpspec.tma.store.wait pending 0 read
      // CHECK: warpspec.tma.store.wait pending 0{{$}}
      warpspec.tma.store.wait pending 0
      // CHECK: warpspec.counter.add %{{.*}}, %{{.*}} scope gpu
      warpspec.counter.add %ctr, %n scope gpu
      // CHECK: warpspec.counter.or %{{.*}}, %{{.*}} scope sys
      warpspec.counter.or %ctr, %n scope sys
      // CHECK: warpspec.counter.wait %{{.*}}, %{{.*}} scope gpu name "l1_arrival"{{$}}
      warpspec.counter.wait %ctr, %n scope gpu name "l1_arrival"
      // CHECK: warpspec.counter.wait %{{.*}}, %{{.*}} scope sys name "l2_arrival" timeout_cycles 2000000000
      warpspec.counter.wait %ctr, %n scope sys name "l2_arrival" timeout_cycles 2000000000
      // CHECK: warpspec.grid.sync %{{.*}}, %{{.*}}{{$}}
      warpspec.grid.sync %ctr, %n
      // CHECK: warpspec.grid.sync %{{.*}}, %{{.*}} timeout_cycles 1000
      warpspec.grid.sync %ctr, %n timeout_cycles 1000
      // CHECK: warpspec.grid.sync %{{.*}}, %{{.*}} name "moe_dispatch: barriers[2]" timeout_cycles 1000
      warpspec.grid.sync %ctr, %n name "moe_dispatch: barriers[2]" timeout_cycles 1000
      // CHECK: warpspec.peer.ptr %{{.*}}, %{{.*}}, %{{.*}}{{$}}
      %peer = warpspec.peer.ptr %ctr, %n, %offsets
      // CHECK: warpspec.cross_rank.barrier %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scope sys{{$}}
      warpspec.cross_rank.barrier %peer, %n, %n, %offsets scope sys
      // CHECK: warpspec.cross_rank.barrier %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scope sys timeout_cycles 5
      warpspec.cross_rank.barrier %peer, %n, %n, %offsets scope sys timeout_cycles 5
      // CHECK: warpspec.cross_rank.barrier %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scope sys name "moe_layout" timeout_cycles 5
      warpspec.cross_rank.barrier %peer, %n, %n, %offsets scope sys name "moe_layout" timeout_cycles 5
      // CHECK: warpspec.barrier.sync %{{.*}}
      warpspec.barrier.sync %all
    }
  }
  // CHECK: warpspec.return
  warpspec.return
}

// CHECK-LABEL: warpspec.kernel @transposed_bf16
// CHECK: warpspec.mma.sm90 {{.*}} b_major mn :
warpspec.kernel @transposed_bf16()
    attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !warpspec.smem<64x64xbf16, slots = 1, align = 1024, swizzle = 128>
  %b = warpspec.smem.alloc "b" : !warpspec.smem<64x64xbf16, slots = 1, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 128 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x64xf32>
      %p = warpspec.mma.sm90 %a[%c0, %c0], %b[%c0], %z b_major mn
          : !warpspec.smem<64x64xbf16, slots = 1, align = 1024, swizzle = 128>,
            !warpspec.smem<64x64xbf16, slots = 1, align = 1024, swizzle = 128>,
            !warpspec.acc<64x64xf32>
    }
  }
  warpspec.return
}

// CHECK-LABEL: warpspec.kernel @all_sm100
warpspec.kernel @all_sm100(%flag: i1)
    attributes {chip = "sm_100a", maxnreg = 128 : i32, threads = 256 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %b = warpspec.smem.alloc "b" : !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "mma" warps [0, 1) regs 128 {
      // CHECK: warpspec.tmem.alloc : !warpspec.tmem<128x256xf32>
      %d = warpspec.tmem.alloc : !warpspec.tmem<128x256xf32>
      // CHECK: warpspec.tmem.alloc : !warpspec.tmem<128x32xi32>
      %sf = warpspec.tmem.alloc : !warpspec.tmem<128x32xi32>
      // CHECK: warpspec.mma.sm100 %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} accumulate %{{.*}} : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.tmem<128x256xf32>
      warpspec.mma.sm100 %a[%c0, %c0], %b[%c0], %d accumulate %flag
          : !tile, !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
            !warpspec.tmem<128x256xf32>
      // CHECK: warpspec.mma.sm100 {{.*}} accumulate %{{.*}} scales(%{{.*}}, %{{.*}} : !warpspec.tmem<128x32xi32>, !warpspec.tmem<128x32xi32>) :
      warpspec.mma.sm100 %a[%c0, %c0], %b[%c0], %d accumulate %flag
          scales(%sf, %sf : !warpspec.tmem<128x32xi32>, !warpspec.tmem<128x32xi32>)
          : !tile, !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
            !warpspec.tmem<128x256xf32>
    }
    warpspec.role "rest" warps [1, 8) regs 128 {
    }
  }
  warpspec.return
}

// The arch-neutral tile ops: a ring, the persistent tile loop, the
// block-scaled MMA, SMEM views and the epilogue tile store / load.
!dtile = !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>
!panel = !warpspec.tma_desc<64x64xbf16, swizzle = 128>
// CHECK-LABEL: warpspec.kernel @tile_ops
warpspec.kernel @tile_ops(%da: !desc, %dd: !panel, %mb: i32, %sb: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 256 : i32} {
  %a = warpspec.smem.alloc "a" : !tile
  %b = warpspec.smem.alloc "b" : !tile
  %sfa = warpspec.smem.alloc "sfa" : !sfa
  %d = warpspec.smem.alloc "d" : !dtile
  // CHECK: %[[F8:.*]] = warpspec.smem.view %{{.*}} : !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128> -> !warpspec.smem<128x256xf8E4M3FN, slots = 1, align = 1024, swizzle = 128>
  %f8 = warpspec.smem.view %d : !dtile -> !warpspec.smem<128x256xf8E4M3FN, slots = 1, align = 1024, swizzle = 128>
  // CHECK: warpspec.smem.view %[[F8]] :
  %f32 = warpspec.smem.view %f8 : !warpspec.smem<128x256xf8E4M3FN, slots = 1, align = 1024, swizzle = 128> -> !warpspec.smem<64x64xf32, slots = 2, align = 1024>
  // CHECK: %[[R:.*]] = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 4 buffers(%{{.*}}, %{{.*}}, %{{.*}} : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128xf32, slots = 4, align = 128>) : !warpspec.pipeline<4>
  %ring = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 4 buffers(%a, %b, %sfa : !tile, !tile, !sfa) : !pipe
  %epi = warpspec.named_barrier 1 roles ["math"]
  %turn = warpspec.named_barrier 2 roles ["math"]
  %c0 = arith.constant 0 : index
  %c0i = arith.constant 0 : i32
  warpspec.roles {
    warpspec.role "tma" warps [0, 4) regs 40 {
      // CHECK: warpspec.tile_loop (%{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks 32 raster 8 {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 {
        %s = warpspec.producer.acquire %ring : !pipe
        warpspec.tma.load %da[%c0i, %c0i] -> %a[%s], %ring : !desc, !tile, !pipe
        // CHECK: warpspec.producer.commit %{{.*}}[%{{.*}}] : !warpspec.pipeline<4>
        warpspec.producer.commit %ring[%s] : !pipe
      }
    }
    warpspec.role "math" warps [4, 8) regs 232 mma {
      warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 {
        %z = warpspec.acc.zero : !acc
        %s = warpspec.consumer.wait %ring : !pipe
        // CHECK: warpspec.mma.block_scaled %{{.*}}, %{{.*}} stage %{{.*}} row %{{.*}} a_scales %{{.*}} b_scales %{{.*}} into %{{.*}} : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>, !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
        %t = warpspec.mma.block_scaled %a, %b stage %s row %c0 a_scales %sfa b_scales %sb into %z : !tile, !tile, !sfa, !acc
        // CHECK: warpspec.mma.block_scaled {{.*}} b_scales %{{.*}}, %{{.*}} b_scale_map #[[MAP]] into
        %t2 = warpspec.mma.block_scaled %a, %b stage %s row %c0 a_scales %sfa b_scales %sb, %sb b_scale_map affine_map<(c) -> ((c floordiv 8) mod 2)> into %t : !tile, !tile, !sfa, !acc
        // CHECK: warpspec.mma.block_scaled {{.*}} b_scales %{{.*}} rematerialize_k_steps into
        %t3 = warpspec.mma.block_scaled %a, %b stage %s row %c0 a_scales %sfa b_scales %sb rematerialize_k_steps into %t2 : !tile, !tile, !sfa, !acc
        // CHECK: warpspec.mma.block_scaled {{.*}} b_scales %{{.*}} turn %{{.*}} pass %{{.*}} into
        %t4 = warpspec.mma.block_scaled %a, %b stage %s row %c0 a_scales %sfa b_scales %sb turn %turn pass %epi into %t3 : !tile, !tile, !sfa, !acc
        warpspec.consumer.release %ring[%s] : !pipe
        warpspec.acc.store %t2 -> %d[%c0, %c0] : !acc, !dtile
        // CHECK: warpspec.tile.store %{{.*}}[%{{.*}}, %{{.*}}] rows 64 -> %{{.*}}[%{{.*}}, %{{.*}}] : !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>, !warpspec.tma_desc<64x64xbf16, swizzle = 128>
        warpspec.tile.store %d[%c0, %c0] rows 64 -> %dd[%c0i, %c0i] : !dtile, !panel
        // CHECK: warpspec.tile.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128> -> vector<4xi32>
        %v = warpspec.tile.load %d[%c0, %c0i, %c0i] : !dtile -> vector<4xi32>
      }
    }
  }
  warpspec.return
}

// Typed global pointers: kernel parameters, element offsets, loads and
// stores (16-byte vectors too), casts, relaxed atomics and fences; the counter
// and symmetric-memory ops take them too (their types printed after a colon).
// CHECK-LABEL: warpspec.kernel @typed_global
// CHECK-SAME: (%{{.*}}: !warpspec.global<f32>, %{{.*}}: !warpspec.global<i32>, %{{.*}}: !warpspec.global<i64>, %{{.*}}: i32, %{{.*}}: i64)
warpspec.kernel @typed_global(%x: !warpspec.global<f32>, %ctr: !warpspec.global<i32>,
                              %offsets: !warpspec.global<i64>, %i: i32, %j: i64)
    attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // CHECK: %[[P:.*]] = warpspec.global.offset %{{.*}}[%{{.*}}] : !warpspec.global<f32>, i32
  %p = warpspec.global.offset %x[%i] : !warpspec.global<f32>, i32
  // CHECK: warpspec.global.offset %[[P]][%{{.*}}] : !warpspec.global<f32>, i64
  %q = warpspec.global.offset %p[%j] : !warpspec.global<f32>, i64
  // CHECK: %[[V:.*]] = warpspec.global.load %[[P]] : !warpspec.global<f32>
  %v = warpspec.global.load %p : !warpspec.global<f32>
  // CHECK: warpspec.global.store %[[V]], %{{.*}} align 4 : !warpspec.global<f32>
  warpspec.global.store %v, %q align 4 : !warpspec.global<f32>
  // CHECK: %[[C:.*]] = warpspec.global.cast %[[P]] : !warpspec.global<f32> to !warpspec.global<vector<4xi32>>
  %c = warpspec.global.cast %p : !warpspec.global<f32> to !warpspec.global<vector<4xi32>>
  // CHECK: %[[W:.*]] = warpspec.global.load %[[C]] align 16 : !warpspec.global<vector<4xi32>>
  %w = warpspec.global.load %c align 16 : !warpspec.global<vector<4xi32>>
  // CHECK: warpspec.global.store %[[W]], %[[C]] align 16 : !warpspec.global<vector<4xi32>>
  warpspec.global.store %w, %c align 16 : !warpspec.global<vector<4xi32>>
  // CHECK: warpspec.global.cast %{{.*}} : !warpspec.global<i32> to !llvm.ptr<1>
  %raw = warpspec.global.cast %ctr : !warpspec.global<i32> to !llvm.ptr<1>
  // CHECK: warpspec.global.atomic add %{{.*}}, %{{.*}} : !warpspec.global<i32>
  %old = warpspec.global.atomic add %ctr, %i : !warpspec.global<i32>
  // CHECK: warpspec.global.atomic umax %{{.*}}, %{{.*}} : !warpspec.global<i32>
  %old2 = warpspec.global.atomic umax %ctr, %old : !warpspec.global<i32>
  // CHECK: warpspec.global.atomic or %{{.*}}, %{{.*}} : !warpspec.global<i32>
  %old3 = warpspec.global.atomic or %ctr, %old2 : !warpspec.global<i32>
  // CHECK: warpspec.global.atomic fadd %{{.*}}, %{{.*}} : !warpspec.global<f32>
  %oldf = warpspec.global.atomic fadd %x, %v : !warpspec.global<f32>
  // CHECK: warpspec.global.prefetch %[[P]], %{{.*}} : !warpspec.global<f32>
  warpspec.global.prefetch %p, %i : !warpspec.global<f32>
  // CHECK: warpspec.fence scope sys
  warpspec.fence scope sys
  // CHECK: warpspec.fence scope gpu
  warpspec.fence scope gpu
  // CHECK: warpspec.counter.add %{{.*}}, %{{.*}} scope gpu : !warpspec.global<i32>
  warpspec.counter.add %ctr, %i scope gpu : !warpspec.global<i32>
  // CHECK: warpspec.counter.wait %{{.*}}, %{{.*}} scope sys name "typed" : !warpspec.global<i32>
  warpspec.counter.wait %ctr, %i scope sys name "typed" : !warpspec.global<i32>
  // CHECK: warpspec.grid.sync %{{.*}}, %{{.*}} : !warpspec.global<i32>
  warpspec.grid.sync %ctr, %i : !warpspec.global<i32>
  // CHECK: warpspec.peer.ptr %{{.*}}, %{{.*}}, %{{.*}} : !warpspec.global<f32>, !warpspec.global<i64>
  %remote = warpspec.peer.ptr %x, %i, %offsets : !warpspec.global<f32>, !warpspec.global<i64>
  // CHECK: warpspec.peer.ptr %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>, !warpspec.global<i64>
  %remote_raw = warpspec.peer.ptr %raw, %i, %offsets : !llvm.ptr<1>, !warpspec.global<i64>
  // CHECK: warpspec.cross_rank.barrier %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scope sys : !warpspec.global<i32>, !warpspec.global<i64>
  warpspec.cross_rank.barrier %ctr, %i, %i, %offsets scope sys : !warpspec.global<i32>, !warpspec.global<i64>
  warpspec.return
}

// Element math with PTX-exact semantics.
// CHECK-LABEL: func.func @element_math
func.func @element_math(%x: f32, %y: f32) -> (f32, f32, i16) {
  // CHECK: warpspec.approx ex2 %{{.*}}
  %e = warpspec.approx ex2 %x
  // CHECK: warpspec.approx rcp %{{.*}}
  %r = warpspec.approx rcp %y
  // CHECK: warpspec.cvt.e4m3x2 %{{.*}}, %{{.*}}
  %p = warpspec.cvt.e4m3x2 %x, %y
  return %e, %r, %p : f32, f32, i16
}

// Epilogue math on accumulators (WarpSpecAccOps.td).
// CHECK-LABEL: func.func @acc_math
func.func @acc_math(%h: !warpspec.acc<64x128xf32>, %p: !warpspec.global<f32>, %xbuf: !warpspec.smem<64xf32, slots = 2, align = 16>) -> !warpspec.acc<64x64xf32> {
  // CHECK: %[[G:.*]], %[[U:.*]] = warpspec.acc.deinterleave %{{.*}} period 8 : !warpspec.acc<64x128xf32> -> !warpspec.acc<64x64xf32>
  %g, %u = warpspec.acc.deinterleave %h period 8 : !warpspec.acc<64x128xf32> -> !warpspec.acc<64x64xf32>
  // CHECK: warpspec.acc.slice %{{.*}} offset 64 : !warpspec.acc<64x128xf32> -> !warpspec.acc<64x32xf32>
  %sl = warpspec.acc.slice %h offset 64 : !warpspec.acc<64x128xf32> -> !warpspec.acc<64x32xf32>
  // CHECK: %[[W:.*]] = warpspec.acc_rows.load %{{.*}} : !warpspec.global<f32> -> !warpspec.acc_rows<64xf32>
  %w = warpspec.acc_rows.load %p : !warpspec.global<f32> -> !warpspec.acc_rows<64xf32>
  // CHECK: warpspec.acc.map %[[G]], %[[U]] rows(%[[W]]) : !warpspec.acc<64x64xf32>, !warpspec.acc<64x64xf32> rows !warpspec.acc_rows<64xf32> -> !warpspec.acc<64x64xf32> {
  // CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
  // CHECK: warpspec.acc.yield %{{.*}} : f32
  %a = warpspec.acc.map %g, %u rows(%w) : !warpspec.acc<64x64xf32>, !warpspec.acc<64x64xf32> rows !warpspec.acc_rows<64xf32> -> !warpspec.acc<64x64xf32> {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %v = arith.mulf %m, %z : f32
    warpspec.acc.yield %v : f32
  }
  // CHECK: warpspec.acc.map %{{.*}} : !warpspec.acc<64x64xf32> -> !warpspec.acc<64x64xf32> {
  %n = warpspec.acc.map %a : !warpspec.acc<64x64xf32> -> !warpspec.acc<64x64xf32> {
  ^bb0(%x: f32):
    %v = arith.negf %x : f32
    warpspec.acc.yield %v : f32
  }
  // CHECK: %[[AMAX:.*]] = warpspec.acc.row_reduce absmax %{{.*}}, %{{.*}} : !warpspec.acc<64x64xf32>, !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
  %amax = warpspec.acc.row_reduce absmax %a, %n : !warpspec.acc<64x64xf32>, !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
  // CHECK: warpspec.acc.row_reduce max %{{.*}} : !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
  %mx = warpspec.acc.row_reduce max %a : !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
  // CHECK: warpspec.acc.any %{{.*}}, %{{.*}} : !warpspec.acc<64x64xf32>, !warpspec.acc<64x64xf32>
  %any = warpspec.acc.any %a, %n : !warpspec.acc<64x64xf32>, !warpspec.acc<64x64xf32>
  // CHECK: %[[SF:.*]] = warpspec.acc_rows.map %[[AMAX]], %{{.*}} : !warpspec.acc_rows<64xf32>, !warpspec.acc_rows<64xf32> -> !warpspec.acc_rows<64xf32> {
  %sf = warpspec.acc_rows.map %amax, %mx : !warpspec.acc_rows<64xf32>, !warpspec.acc_rows<64xf32> -> !warpspec.acc_rows<64xf32> {
  ^bb0(%x: f32, %y: f32):
    %v = arith.maxnumf %x, %y : f32
    warpspec.acc.yield %v : f32
  }
  // CHECK: warpspec.acc_rows.store %[[SF]], %{{.*}} : !warpspec.acc_rows<64xf32>, !warpspec.global<f32>
  warpspec.acc_rows.store %sf, %p : !warpspec.acc_rows<64xf32>, !warpspec.global<f32>
  %c1 = arith.constant 1 : index
  // CHECK: warpspec.acc_rows.store_shared %[[SF]], %{{.*}}[%{{.*}}] : !warpspec.acc_rows<64xf32>, !warpspec.smem<64xf32, slots = 2, align = 16>
  warpspec.acc_rows.store_shared %sf, %xbuf[%c1] : !warpspec.acc_rows<64xf32>, !warpspec.smem<64xf32, slots = 2, align = 16>
  // CHECK: warpspec.acc_rows.load_shared %{{.*}}[%{{.*}}] : !warpspec.smem<64xf32, slots = 2, align = 16> -> !warpspec.acc_rows<64xf32>
  %back = warpspec.acc_rows.load_shared %xbuf[%c1] : !warpspec.smem<64xf32, slots = 2, align = 16> -> !warpspec.acc_rows<64xf32>
  // A K-split unit's partial sum through global memory (fragment order).
  // CHECK: warpspec.acc.spill %{{.*}}, %{{.*}} : !warpspec.acc<64x64xf32>, !warpspec.global<f32>
  warpspec.acc.spill %a, %p : !warpspec.acc<64x64xf32>, !warpspec.global<f32>
  // CHECK: warpspec.acc.fill %{{.*}} : !warpspec.global<f32> -> !warpspec.acc<64x64xf32>
  %filled = warpspec.acc.fill %p : !warpspec.global<f32> -> !warpspec.acc<64x64xf32>
  // Only the rows below %realRows (a decode tile's real rows).
  %realRows = arith.constant 1 : i32
  // CHECK: warpspec.acc.spill %{{.*}}, %{{.*}} rows %{{.*}} : !warpspec.acc<64x64xf32>, !warpspec.global<f32>
  warpspec.acc.spill %a, %p rows %realRows : !warpspec.acc<64x64xf32>, !warpspec.global<f32>
  // CHECK: warpspec.acc.fill %{{.*}} rows %{{.*}} : !warpspec.global<f32> -> !warpspec.acc<64x64xf32>
  %some = warpspec.acc.fill %p rows %realRows : !warpspec.global<f32> -> !warpspec.acc<64x64xf32>
  return %a : !warpspec.acc<64x64xf32>
}

// The phase profile's ops (WarpSpecProfileOps.td).
// CHECK-LABEL: warpspec.kernel @profile_ops
warpspec.kernel @profile_ops(%buf: !warpspec.global<i64>)
    attributes {chip = "sm_90a", maxnreg = 128 : i32, threads = 128 : i32} {
  // CHECK: %{{.*}} = warpspec.timestamp : i64
  %t = warpspec.timestamp : i64
  // CHECK: %{{.*}} = warpspec.sm_id : i32
  %sm = warpspec.sm_id : i32
  // CHECK: %{{.*}} = warpspec.sequence.next "profile" : i32
  %n = warpspec.sequence.next "profile" : i32
  warpspec.return
}

// Per-64 activation scales: [2, M] a_scales tiles, a promotion of one
// group, an MMA over one K range.
!tile64 = !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>
!sfa2 = !warpspec.smem<2x128xf32, slots = 2, align = 128>
// CHECK-LABEL: warpspec.kernel @scale_groups
warpspec.kernel @scale_groups(%sb: f32)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  %a = warpspec.smem.alloc "a" : !tile64
  %sfa = warpspec.smem.alloc "sfa" : !sfa2
  %c0 = arith.constant 0 : index
  warpspec.roles {
    warpspec.role "math" warps [0, 4) regs 168 mma {
      %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
      // CHECK: warpspec.mma.sm90 {{.*}} k_range [64, 64] : !warpspec.smem<128x128xf8E4M3FN
      %p = warpspec.mma.sm90 %a[%c0, %c0], %a[%c0], %z k_range [64, 64] : !tile64, !tile64, !warpspec.acc<64x128xf32>
      %r = warpspec.mma.wait 0, %p : !warpspec.acc<64x128xf32>
      // CHECK: warpspec.acc.promote %{{.*}} into %{{.*}} a_scales %{{.*}}[%{{.*}}, %{{.*}}] group 1 b_scales %{{.*}} : !warpspec.smem<2x128xf32, slots = 2, align = 128>
      %t = warpspec.acc.promote %r into %z a_scales %sfa[%c0, %c0] group 1 b_scales %sb : !sfa2, !warpspec.acc<64x128xf32>
      // CHECK: warpspec.acc.promote %{{.*}} into %{{.*}} a_scales %{{.*}}[%{{.*}}, %{{.*}}] b_scales
      %t0 = warpspec.acc.promote %r into %t a_scales %sfa[%c0, %c0] group 0 b_scales %sb : !sfa2, !warpspec.acc<64x128xf32>
      // CHECK: %[[RS0:.*]], %[[RS1:.*]] = warpspec.acc.row_scales %{{.*}}[%{{.*}}, %{{.*}}] group 1 : !warpspec.smem<2x128xf32, slots = 2, align = 128>
      %rs:2 = warpspec.acc.row_scales %sfa[%c0, %c0] group 1 : !sfa2
      // CHECK: warpspec.acc.promote {{.*}} group 1 b_scales %{{.*}} row_scales %[[RS0]], %[[RS1]] :
      %t1 = warpspec.acc.promote %r into %t0 a_scales %sfa[%c0, %c0] group 1 b_scales %sb row_scales %rs#0, %rs#1 : !sfa2, !warpspec.acc<64x128xf32>
      // CHECK: warpspec.mma.block_scaled {{.*}} : !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>, !warpspec.smem<128x128xf8E4M3FN, slots = 2, align = 1024, swizzle = 128>, !warpspec.smem<2x128xf32, slots = 2, align = 128>, !warpspec.acc<64x128xf32>
      %m = warpspec.mma.block_scaled %a, %a stage %c0 row %c0 a_scales %sfa b_scales %sb into %t0 : !tile64, !tile64, !sfa2, !warpspec.acc<64x128xf32>
    }
  }
  warpspec.return
}

// A K-split tail: the body's third argument is the split unit (i32, -1 for
// a whole tile).
// CHECK-LABEL: warpspec.kernel @k_split
warpspec.kernel @k_split(%mb: i32, %out: !warpspec.global<i32>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      // CHECK: warpspec.tile_loop (%{{.*}}, %{{.*}}, %[[U:.*]]) m_blocks(%{{.*}}) n_blocks 16 raster 16 k_split 4 tiles 99 {
      warpspec.tile_loop (%m, %n, %u) m_blocks(%mb) n_blocks 16 raster 16 k_split 4 tiles 99 {
        // CHECK: warpspec.global.store %[[U]]
        warpspec.global.store %u, %out align 4 : !warpspec.global<i32>
      }
    }
  }
  warpspec.return
}

// Two phases interleaved in waves of m-blocks: the body takes the phase,
// the m-block and the n-block.
// CHECK-LABEL: warpspec.kernel @wave_loop
warpspec.kernel @wave_loop(%mb: i32, %out: !warpspec.global<i32>)
    attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 128 : i32} {
  warpspec.roles {
    warpspec.role "r" warps [0, 4) regs 168 {
      // CHECK: warpspec.wave_loop (%[[P:.*]], %{{.*}}, %{{.*}}) m_blocks(%{{.*}}) n_blocks [16, 32] raster [16, 8] wave 8 lag 1 {
      warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32] raster [16, 8] wave 8 lag 1 {
        // CHECK: arith.index_cast %[[P]]
        %pi = arith.index_cast %p : index to i32
        warpspec.global.store %pi, %out align 4 : !warpspec.global<i32>
      }
    }
  }
  warpspec.return
}
