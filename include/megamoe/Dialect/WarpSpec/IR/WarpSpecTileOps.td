//===- WarpSpecTileOps.td - arch-neutral tile-level ops ----*- tablegen -*-===//
//
// The ops the collectives (lib/Kernels/Collectives) compose kernels from: the
// persistent tile loop every role walks, SMEM views, the block-scaled MMA on
// an opaque accumulator, and the epilogue's tile store / load. None of them
// names a chip: the lowering picks wgmma + registers (SM90) or tcgen05 + TMEM
// (SM100), and owns the swizzle and fragment layouts.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECTILEOPS_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECTILEOPS_TD

//===----------------------------------------------------------------------===//
// Persistent tile loop
//===----------------------------------------------------------------------===//

def WarpSpec_TileLoopOp : WarpSpec_Op<"tile_loop", [SingleBlock, NoTerminator]> {
  let summary = "the persistent tile loop that every role of a kernel walks";
  let description = [{
    Runs the body once per tile of an `m_blocks x n_blocks` grid of output
    tiles that this CTA owns: tiles `t = blockIdx.x, blockIdx.x + gridDim.x,
    ...` below `m_blocks * n_blocks`, with the block arguments bound to the
    tile's m-block and n-block (index). Tiles are ordered in rasters of
    `raster` n-blocks: raster `g = t / (m_blocks * raster)` holds n-blocks
    `[g * raster, (g + 1) * raster)`, m-blocks within a raster, n-blocks
    fastest; so the CTAs that run at once share `raster` B tiles and
    `gridDim / raster` A tiles in L2. `raster = n_blocks` is the m-major
    order. When `raster` does not divide `n_blocks`, the last raster holds
    the `n_blocks mod raster` n-blocks left, in the same order (the tail of
    a BLOCK_N 192 grid of 22 n-blocks in rasters of 8 is one of 6).

    Every role of a kernel that uses a tile loop must walk the same tiles in
    the same order (a producer that skipped a tile would deadlock its
    consumers): the verifier requires all tile loops of a kernel to have the
    same `m_blocks` value, `n_blocks`, `raster` and `cluster`. `m_blocks` is
    read once; a negative value runs no tile.

    `cluster C` (the kernel's `cluster` must be `[C, 1, 1]`): the tiles are
    handed out per cluster. The loop walks the tiles of an
    `ceil(m_blocks / C) x n_blocks` grid of m-block groups (same order and
    rasters) round-robin over the clusters (`%clusterid.x`, step
    `%nclusterid.x`), and the CTA of cluster rank r gets m-block
    `C x group + r`: the CTAs of a cluster get the same n-block and adjacent
    m-blocks, and all of them run the same number of iterations (what a
    pipeline shared by the cluster needs). In the last group of an
    `m_blocks` that is not a multiple of C the m-block can be `m_blocks` or
    more: the body must treat it as a tile it does not own.

    `k_split P` (no cluster): the last wave's tiles are split along K.
    With `T` tiles and `G = gridDim.x` CTAs, the `r = T mod G` tiles of the
    last, partial wave leave `G - r` CTAs idle; when `r * P <= (P - 1) * G`
    (so that the split units need fewer waves than P) the first `T - r`
    tiles run whole as above and the last `r` become `r * P` units, handed
    out round-robin after them: unit `u` is part `u mod P` of tile
    `T - r + u / P`. The body's third argument (i32) is -1 for a whole tile
    and `u` for a unit; the body computes K blocks `[part K / P, (part + 1)
    K / P)` of the tile and one of its units (the collectives make it part
    P - 1) sums the others' partial accumulators in part order. The choice
    depends only on `T` and `G`, so every kernel with the same tiles splits
    the same ones the same way. `tiles C` bounds the split tiles (the
    capacity of the partial sums' workspace): a last wave of more than `C`
    tiles runs whole.

    ```mlir
    warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 {
      ...
    }
    warpspec.tile_loop (%m, %n) m_blocks(%mb) n_blocks 32 raster 8 cluster 2 {
      ...
    }
    warpspec.tile_loop (%m, %n, %u) m_blocks(%mb) n_blocks 16 raster 16 k_split 4 tiles 99 {
      ...
    }
    ```
  }];
  let arguments = (ins I32:$m_blocks,
                       ConfinedAttr<I64Attr, [IntPositive]>:$n_blocks,
                       ConfinedAttr<I64Attr, [IntPositive]>:$raster,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>]>>:$cluster,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>]>>:$k_split,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$k_split_tiles);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getMBlock() { return getBody().getArgument(0); }
    ::mlir::Value getNBlock() { return getBody().getArgument(1); }
    /// With k_split: the split unit (i32, -1 for a whole tile); else null.
    ::mlir::Value getUnit() {
      return getKSplit() ? getBody().getArgument(2) : ::mlir::Value();
    }
  }];
}

def WarpSpec_WaveLoopOp : WarpSpec_Op<"wave_loop", [SingleBlock, NoTerminator]> {
  let summary = "the persistent tile loop of two dependent GEMMs, interleaved in waves of m-blocks";
  let description = [{
    Runs the body once per tile of two tile grids over the same `m_blocks`
    row blocks, phase 0 with `n_blocks[0]` column blocks and phase 1 with
    `n_blocks[1]`, where a phase-1 tile of m-block m depends on the phase-0
    tiles of m (the fused L1 + L2 kernel: L2 reads what L1 stored). The
    block arguments are the tile's phase (0 or 1), m-block and n-block
    (index).

    The m-blocks are cut into waves of `wave` (the last may be shorter), and
    the tiles are laid out in segments, each the tiles of one phase of one
    wave: phase 0 of waves 0, 1, ..., `lag`, then phase 1 of wave 0, phase
    0 of wave `lag` + 1, phase 1 of wave 1, phase 0 of wave `lag` + 2, ...
    (segments of waves past the last are empty). Inside a segment the tiles
    are ordered as `warpspec.tile_loop` orders a grid of the wave's m-blocks
    x the phase's n-blocks in rasters of `raster[phase]`. The CTAs take the
    tiles of the whole sequence round-robin: `t = blockIdx.x, blockIdx.x +
    gridDim.x, ...` below `m_blocks * (n_blocks[0] + n_blocks[1])`.

    So every phase-1 tile comes after all phase-0 tiles of its wave and of
    the `lag` waves after it: with one resident CTA per SM, a phase-1 tile
    waiting for its m-block's phase-0 tiles waits only for tiles of smaller
    index, which (by induction on the index) all finish, and with `lag` >= 1
    they were issued a wave earlier, so the wait is short. `lag` 0 puts a
    wave's phase-1 tiles right behind its phase-0 tiles.

    As for `warpspec.tile_loop`, every role of a kernel must walk the same
    loops in the same order (the verifier compares them); `m_blocks` is read
    once, a negative value runs no tile. No cluster and no K split.

    ```mlir
    warpspec.wave_loop (%p, %m, %n) m_blocks(%mb) n_blocks [16, 32] raster [16, 8] wave 8 lag 1 {
      ...
    }
    ```
  }];
  let arguments = (ins I32:$m_blocks, DenseI64ArrayAttr:$n_blocks,
                       DenseI64ArrayAttr:$raster,
                       ConfinedAttr<I64Attr, [IntPositive]>:$wave,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$lag);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getPhase() { return getBody().getArgument(0); }
    ::mlir::Value getMBlock() { return getBody().getArgument(1); }
    ::mlir::Value getNBlock() { return getBody().getArgument(2); }
  }];
}

//===----------------------------------------------------------------------===//
// SMEM views
//===----------------------------------------------------------------------===//

def WarpSpec_SmemViewOp : WarpSpec_Op<"smem.view", [Pure]> {
  let summary = "see one shared-memory allocation with another type";
  let description = [{
    The same bytes as `source`, seen as a buffer of another element type,
    shape, slot count or swizzle: phases of a kernel that never use the
    buffer at the same time share one allocation (e.g. an epilogue tile of
    FP8 rows in one phase and BF16 rows in the next). The view starts at the
    source's first byte, so it must fit inside the source
    (`slots x slot stride` bytes) and ask for no more alignment than the
    source has. The source is a `warpspec.smem.alloc` or another view. The
    kernel orders the phases (a barrier between the last use of one view
    and the first of the next); the op itself moves no data.

    ```mlir
    %bf16 = warpspec.smem.view %tiles
        : !warpspec.smem<128x256xf8E4M3FN, slots = 1, align = 1024, swizzle = 128>
        -> !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>
    ```
  }];
  let arguments = (ins WarpSpec_SmemType:$source);
  let results = (outs WarpSpec_SmemType:$result);
  let assemblyFormat = [{
    $source attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The allocation this view (through any chain of views) starts at.
    SmemAllocOp getAllocation();
  }];
}

//===----------------------------------------------------------------------===//
// Block-scaled MMA
//===----------------------------------------------------------------------===//

def WarpSpec_MmaBlockScaledOp : WarpSpec_Op<"mma.block_scaled", [
    AllTypesMatch<["total", "result"]>, AttrSizedOperandSegments]> {
  let summary = "total += (A x B^T) * a_scale[row] * b_scale[col]: one K block of a block-scaled GEMM";
  let description = [{
    Collective over the MMA group of an `mma` role (on SM90 a warpgroup).
    For the K block held in slot `stage` of the tiles `a` (rows
    `[row, row + m)` of a `[M, K]` tile) and `b` (an `[n, K]` tile), the
    same stage of the ring feeding all three operands:
    `result[r, c] = total[r, c] + (A B^T)[r, c] * a_scales[row + r] *
    b_scales[map(c)]`, where `a_scales` is slot `stage` of an f32 buffer of
    per-row scales and `map` is `b_scale_map` (default: the `n` columns
    split evenly among the `b_scales`, `c floordiv (n / nb)`). This is the
    recipe of FP8 GEMMs with per-(row, K block) activation scales and
    per-(column block, K block) weight scales: the product of one K block
    is formed at full precision, then promoted.

    When the result is available, the op's reads of the stage (A, B and the
    A scales) are complete: the stage may be released (with
    `reads_retired` once a later op consumed the result).

    `b_scale_map` is an affine map `(c) -> (i)` from an accumulator column to
    an index into `b_scales`. It must be constant over each group of 8
    columns (the finest column granularity of an accumulator fragment) and
    stay in `[0, nb)`; e.g. `affine_map<(c) -> ((c floordiv 8) mod 2)>`
    alternates two scales every 8 columns.

    The accumulator is opaque: where it lives is the lowering's choice (SM90:
    wgmma with a fresh register accumulator per K block, `wgmma.wait_group 0`
    and the promotion FMAs on CUDA cores; SM100: `tcgen05.mma` issued by one
    thread into the warpgroup's TMEM partial, `tcgen05.commit` to an
    mbarrier, `tcgen05.ld` and the same promotion, docs/SM100.md). On
    sm_100 the partials of all MMA warpgroups must fit the CTA's 512 TMEM
    columns (the kernel verifier checks it), and the MMAs of one role share
    one accumulator width.

    `a_scales` may also hold 2-d `[G, M]` tiles: G activation scales per
    row and K block, group g covering K `[g K / G, (g + 1) K / G)` (an
    activation requantized per 64 channels is the A of a K block of 128
    with G = 2): the product of each group's K range is formed and promoted
    on its own, in group order. K / G must be a multiple of the MMA k. SM90
    expands it to G wgmma / wait / promote rounds on one scratch
    accumulator; sm_100 has no lowering for G > 1.

    `a_scale_groups G` uses only the first G rows of a `[G', M]` tile
    (G <= G'): a ring shared by two GEMMs whose activations are scaled at
    different granularities (the fused L1 + L2 kernel with per-64
    activations: L1 reads one scale per row and K block, L2 two) has slots
    of the larger shape, and the GEMM with fewer groups fills and reads
    only the first of them. Without it, every row of the tile is a group.

    `rematerialize_k_steps` is passed to the SM90 wgmma it expands to
    (warpspec.mma.sm90): for K loops unrolled over constant stages.

    `turn %mine pass %next` orders the MMA issue of the warpgroups that
    share the tensor cores: the op's MMAs are issued after a
    `warpspec.barrier.sync %mine` and followed, before waiting for them, by
    a `warpspec.barrier.arrive %next`. Two math warpgroups handing the turn
    to each other so (each one's `mine` the other's `next`, the second
    arriving once on the first's `mine` before its first MMA and the first
    syncing once more after its last) issue their K blocks alternately, so
    one's promotion runs while the other's MMAs keep the tensor cores busy
    instead of both promoting at once. Both barriers or neither; SM90 only
    (on sm_100 one thread issues a CTA's MMAs).

    `swap_ab` exchanges the roles of the operands in the MMA (for a few
    activation rows, decode: the weights fill the MMA's 64-row M side and
    the activation rows are its narrow n): the accumulator is the transposed
    product, its rows the `b` rows `[row, row + m)` and its columns all of
    `a`'s rows (n = the `a` tile's rows),
    `result[r, c] = total[r, c] + (B A^T)[row + r, c] * a_scales[c] *
    b_scales[0]`. The promotion then scales columns by the activation
    scales (`warpspec.acc.promote ... column_scales`); the products and
    their order per element are those of the unswapped op, so the totals
    are the same numbers, transposed. One b scale (the `m` weight rows lie
    in one scale block), `[M]` a_scales only, no issue turns; SM90 only.

    ```mlir
    %t1 = warpspec.mma.block_scaled %a, %b stage %s row %row a_scales %sfa
        b_scales %sb into %t0
        : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
          !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
          !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    ```
  }];
  // `total` precedes the variadic `b_scales` so that the result type is
  // inferred from it at a fixed operand position.
  let arguments = (ins WarpSpec_SmemType:$a, Index:$stage, Index:$row,
                       WarpSpec_SmemType:$b, WarpSpec_SmemType:$a_scales,
                       WarpSpec_AccType:$total, Variadic<F32>:$b_scales,
                       Optional<WarpSpec_BarrierType>:$turn,
                       Optional<WarpSpec_BarrierType>:$pass,
                       OptionalAttr<AffineMapAttr>:$b_scale_map,
                       UnitAttr:$rematerialize_k_steps,
                       UnitAttr:$swap_ab,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$a_scale_groups);
  let results = (outs WarpSpec_AccType:$result);
  let extraClassDeclaration = [{
    /// The activation-scale groups per row and K block this op promotes:
    /// `a_scale_groups` when given, else G of [G, M] a_scales tiles and 1
    /// of [M] ones.
    int64_t getAScaleGroupCount();
  }];
  let assemblyFormat = [{
    $a `,` $b `stage` $stage `row` $row `a_scales` $a_scales
    `b_scales` $b_scales (`b_scale_map` $b_scale_map^)?
    (`rematerialize_k_steps` $rematerialize_k_steps^)?
    (`swap_ab` $swap_ab^)?
    (`a_scale_groups` $a_scale_groups^)?
    (`turn` $turn^ `pass` $pass)? `into` $total attr-dict
    `:` qualified(type($a)) `,` qualified(type($b)) `,`
    qualified(type($a_scales)) `,` qualified(type($total))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Epilogue tiles
//===----------------------------------------------------------------------===//

def WarpSpec_TileStoreOp : WarpSpec_Op<"tile.store"> {
  let summary = "TMA store of rows of an SMEM tile, panel by panel";
  let description = [{
    Issued once per executing warp (lane 0): stores rows `[row, row + rows)`
    of slot `stage` of the 2-D tile `buffer` to global memory through `desc`,
    the tile's column 0 landing at element coordinates `(col, m)`
    (innermost first). A swizzled tile whose rows are wider than the swizzle
    span is laid out as column panels of one swizzle span each (the layout
    `warpspec.acc.store` writes); the op issues one TMA store per panel at
    column `col + p * panel columns`, each followed by
    `cp.async.bulk.commit_group`. The panel layout is the lowering's: the
    caller never computes a panel address.

    The descriptor's box must be `[rows, panel columns]` of the tile's
    element type and swizzle. Generic-proxy writes of the tile must be made
    visible first (`warpspec.fence.async_shared` and a barrier among the
    writers); wait with `warpspec.tma.store.wait`.

    ```mlir
    warpspec.tile.store %d[%c0, %row] rows 64 -> %desc[%n0, %m0]
        : !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128>,
          !warpspec.tma_desc<64x64xbf16, swizzle = 128>
    ```
  }];
  let arguments = (ins WarpSpec_SmemType:$buffer, Index:$stage, Index:$row,
                       ConfinedAttr<I64Attr, [IntPositive]>:$rows,
                       WarpSpec_TmaDescType:$desc, I32:$col, I32:$m);
  let assemblyFormat = [{
    $buffer `[` $stage `,` $row `]` `rows` $rows `->` $desc `[` $col `,` $m `]`
    attr-dict `:` qualified(type($buffer)) `,` qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def WarpSpec_TileLoadOp : WarpSpec_Op<"tile.load"> {
  let summary = "load one 16-byte chunk of a row of an SMEM tile";
  let description = [{
    Per thread: the 16 bytes at byte column `16 * chunk` of row `row` of
    slot `stage` of the 2-D tile `buffer`, read through the tile's swizzle
    and column panels (the layout `warpspec.acc.store` writes), so an
    epilogue can read a tile back row by row without knowing the layout.
    `row` and `chunk` are i32; out-of-range values are undefined behaviour
    (the caller bounds them). A generic-proxy read: a barrier must order the
    tile's writers before it.

    ```mlir
    %v = warpspec.tile.load %d[%c0, %r, %chunk]
        : !warpspec.smem<128x128xbf16, slots = 1, align = 1024, swizzle = 128> -> vector<4xi32>
    ```
  }];
  let arguments = (ins WarpSpec_SmemType:$buffer, Index:$stage, I32:$row,
                       I32:$chunk);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let assemblyFormat = [{
    $buffer `[` $stage `,` $row `,` $chunk `]` attr-dict `:`
    qualified(type($buffer)) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECTILEOPS_TD
