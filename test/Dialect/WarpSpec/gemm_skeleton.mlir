// RUN: warpspec-opt %s | FileCheck %s
// RUN: warpspec-opt %s | warpspec-opt | FileCheck %s
// RUN: warpspec-opt %s --warpspec-plan-smem | FileCheck %s --check-prefix=PLAN
//
// The skeleton of a warp-specialized, persistent FP8 GEMM with per-128
// block scales, as in DeepGEMM's SM90 kernel:
//   D[M, N] (bf16) = (A[M, K] (e4m3) * sfa) x (B[N, K] (e4m3) * sfb)^T
// where sfa[K/128, M] (f32, M contiguous) scales 1 x 128 blocks of A and
// sfb[N/128, K/128] (f32) scales 128 x 128 blocks of B.
//
// 384 threads: warpgroup 0 is the producer (warp 0 issues the TMA loads,
// warps 1-3 idle with 40 registers), warpgroups 1 and 2 are the math
// warpgroups (232 registers each, 64 rows of the 128-row tile each).
// BLOCK_M = BLOCK_N = BLOCK_K = 128, a 4-stage A/B/sfa pipeline.
// Registers: 4 warps x 32 x 40 + 8 warps x 32 x 232 = 64,512 <= 65,536.

!tileA = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!tileB = !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
!tileSfa = !warpspec.smem<128xf32, slots = 4, align = 128>
!tileD = !warpspec.smem<128x128xbf16, slots = 1, align = 1024>
!descAB = !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
!descSfa = !warpspec.tma_desc<1x128xf32, swizzle = 0>
!descD = !warpspec.tma_desc<64x128xbf16, swizzle = 0>
!pipe = !warpspec.pipeline<4>
!acc = !warpspec.acc<64x128xf32>

// CHECK-LABEL: gpu.module @gemm_kernels
// CHECK: warpspec.kernel @fp8_gemm_bf16(
// CHECK-SAME: attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 384 : i32}
// CHECK: warpspec.role "tma" warps [0, 1) regs 40 {
// CHECK: warpspec.role "idle" warps [1, 4) regs 40 {
// CHECK: warpspec.role "math" warps [4, 12) regs 232 mma {
// CHECK: warpspec.mma.sm90
// CHECK: warpspec.acc.promote
// CHECK: warpspec.tma.store
// CHECK: warpspec.return

// The plan: A and B tiles (4 x 16 KiB each, 1 KiB aligned), then the bf16
// output tile (32 KiB), then the scales (4 x 512 B), then 2 x 4 mbarriers.
// PLAN: warpspec.kernel @fp8_gemm_bf16
// PLAN-SAME: smem_bytes = 165952 : i64
// PLAN: warpspec.smem.alloc "a" offset 0 :
// PLAN: warpspec.smem.alloc "b" offset 65536 :
// PLAN: warpspec.smem.alloc "sfa" offset 163840 :
// PLAN: warpspec.smem.alloc "d" offset 131072 :
// PLAN: warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 8 offset 165888 :

gpu.module @gemm_kernels [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] {
  warpspec.kernel @fp8_gemm_bf16(%desc_a: !descAB, %desc_b: !descAB,
                                 %desc_sfa: !descSfa, %desc_d: !descD,
                                 %sfb: !llvm.ptr<1>,
                                 %m: i32, %n: i32, %k: i32)
      attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 384 : i32} {
    %a = warpspec.smem.alloc "a" : !tileA
    %b = warpspec.smem.alloc "b" : !tileB
    %sfa = warpspec.smem.alloc "sfa" : !tileSfa
    %d = warpspec.smem.alloc "d" : !tileD
    // One TMA warp commits each stage; each of the 8 math warps releases it.
    %ab = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 8 : !pipe
    %epilogue = warpspec.named_barrier 1 roles ["math"]

    // Tile bookkeeping shared by all roles (uniform values).
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %m_idx = arith.index_cast %m : i32 to index
    %n_idx = arith.index_cast %n : i32 to index
    %k_idx = arith.index_cast %k : i32 to index
    %m_up = arith.addi %m_idx, %c127 : index
    %num_m_blocks = arith.divui %m_up, %c128 : index
    %n_up = arith.addi %n_idx, %c127 : index
    %num_n_blocks = arith.divui %n_up, %c128 : index
    %k_up = arith.addi %k_idx, %c127 : index
    %num_k_blocks = arith.divui %k_up, %c128 : index
    %num_tiles = arith.muli %num_m_blocks, %num_n_blocks : index
    %cta_i32 = nvvm.read.ptx.sreg.ctaid.x : i32
    %num_ctas_i32 = nvvm.read.ptx.sreg.nctaid.x : i32
    %first_tile = arith.index_cast %cta_i32 : i32 to index
    %tile_step = arith.index_cast %num_ctas_i32 : i32 to index

    warpspec.roles {
      // Producer: walks the same persistent tile schedule as the math
      // warpgroups and streams A, B and the A scales of each K block.
      warpspec.role "tma" warps [0, 1) regs 40 {
        warpspec.tma.prefetch %desc_a : !descAB
        warpspec.tma.prefetch %desc_b : !descAB
        warpspec.tma.prefetch %desc_sfa : !descSfa
        scf.for %tile = %first_tile to %num_tiles step %tile_step {
          %m_block = arith.divui %tile, %num_n_blocks : index
          %n_block = arith.remui %tile, %num_n_blocks : index
          %m_row = arith.muli %m_block, %c128 : index
          %n_row = arith.muli %n_block, %c128 : index
          %m_row_i32 = arith.index_cast %m_row : index to i32
          %n_row_i32 = arith.index_cast %n_row : index to i32
          scf.for %kb = %c0 to %num_k_blocks step %c1 {
            %k_col = arith.muli %kb, %c128 : index
            %k_col_i32 = arith.index_cast %k_col : index to i32
            %kb_i32 = arith.index_cast %kb : index to i32
            %s = warpspec.producer.acquire %ab : !pipe
            // 16 KiB of A + 16 KiB of B + 512 B of A scales per stage.
            warpspec.producer.commit %ab[%s] tx_bytes 33280 : !pipe
            warpspec.tma.load %desc_a[%k_col_i32, %m_row_i32] -> %a[%s], %ab
                : !descAB, !tileA, !pipe
            warpspec.tma.load %desc_b[%k_col_i32, %n_row_i32] -> %b[%s], %ab
                : !descAB, !tileB, !pipe
            warpspec.tma.load %desc_sfa[%m_row_i32, %kb_i32] -> %sfa[%s], %ab
                : !descSfa, !tileSfa, !pipe
          }
        }
      }

      // The rest of the producer warpgroup gives its registers away.
      warpspec.role "idle" warps [1, 4) regs 40 {
      }

      // Two math warpgroups; warpgroup g owns rows [64 g, 64 g + 64) of the
      // 128-row tile.
      warpspec.role "math" warps [4, 12) regs 232 mma {
        %warp = warpspec.role.warp_id
        %wg = arith.divui %warp, %c4 : index
        %row = arith.muli %wg, %c64 : index
        %warp_in_wg = arith.remui %warp, %c4 : index
        %is_store_warp = arith.cmpi eq, %warp_in_wg, %c0 : index
        %zero = warpspec.acc.zero : !acc
        scf.for %tile = %first_tile to %num_tiles step %tile_step {
          %m_block = arith.divui %tile, %num_n_blocks : index
          %n_block = arith.remui %tile, %num_n_blocks : index
          %sfb_row = arith.muli %n_block, %num_k_blocks : index
          %total = scf.for %kb = %c0 to %num_k_blocks step %c1
              iter_args(%sum = %zero) -> (!acc) {
            // sfb[n_block, kb]: one scale for the whole 128 x 128 B block.
            %sfb_idx = arith.addi %sfb_row, %kb : index
            %sfb_idx_i64 = arith.index_cast %sfb_idx : index to i64
            %sfb_ptr = llvm.getelementptr %sfb[%sfb_idx_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
            %scale_b = llvm.load %sfb_ptr : !llvm.ptr<1> -> f32
            %s = warpspec.consumer.wait %ab : !pipe
            %partial = warpspec.mma.sm90 %a[%s, %row], %b[%s], %zero
                : !tileA, !tileB, !acc
            %ready = warpspec.mma.wait 0, %partial : !acc
            // total += partial * sfa[row] * sfb, on CUDA cores.
            %next = warpspec.acc.promote %ready into %sum
                a_scales %sfa[%s, %row] b_scales %scale_b : !tileSfa, !acc
            warpspec.consumer.release %ab[%s] : !pipe
            scf.yield %next : !acc
          }
          // Epilogue: registers -> SMEM (bf16) -> TMA store of 64 x 128.
          warpspec.acc.store %total -> %d[%c0, %row] : !acc, !tileD
          warpspec.fence.async_shared
          warpspec.barrier.sync %epilogue
          scf.if %is_store_warp {
            %tile_base = warpspec.smem.slot %d[%c0] : !tileD -> !llvm.ptr<3>
            %row_bytes = arith.constant 256 : index
            %wg_offset = arith.muli %row, %row_bytes : index
            %wg_offset_i64 = arith.index_cast %wg_offset : index to i64
            %wg_rows = llvm.getelementptr %tile_base[%wg_offset_i64] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
            %m_row = arith.muli %m_block, %c128 : index
            %m_wg_row = arith.addi %m_row, %row : index
            %n_col = arith.muli %n_block, %c128 : index
            %m_wg_row_i32 = arith.index_cast %m_wg_row : index to i32
            %n_col_i32 = arith.index_cast %n_col : index to i32
            warpspec.tma.store %wg_rows -> %desc_d[%n_col_i32, %m_wg_row_i32] : !descD
            // The D tile is rewritten by the next tile's epilogue.
            warpspec.tma.store.wait pending 0 read
          }
          warpspec.barrier.sync %epilogue
        }
        // Global writes complete before the kernel exits.
        scf.if %is_store_warp {
          warpspec.tma.store.wait pending 0
        }
      }
    }
    warpspec.return
  }
}
