//===- WarpSpecAccOps.td - epilogue math on accumulators ---*- tablegen -*-===//
//
// What an epilogue computes from a finished accumulator before it stores
// it: element-wise maps, column deinterleaving, per-row reductions and
// per-row operands (`!warpspec.acc_rows`). The ops name no chip and no
// layout: the lowering knows which thread holds which element (SM90: the
// wgmma D fragment, LowerAccMathSm90.cpp), so a builder composes an
// epilogue (e.g. SwiGLU x router weight + per-row requantization) without
// fragment index arithmetic. Every op is collective over the accumulator's
// warpgroup: all its threads execute it.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECACCOPS_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECACCOPS_TD

def WarpSpec_AccYieldOp : WarpSpec_Op<"acc.yield", [
    Pure, Terminator, ParentOneOf<["AccMapOp", "AccRowsMapOp"]>]> {
  let summary = "the value of one element of an acc.map or acc_rows.map";
  let arguments = (ins F32:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def WarpSpec_AccMapOp : WarpSpec_Op<"acc.map", [
    SingleBlock, RecursiveMemoryEffects,
    AttrSizedOperandSegments]> {
  let summary = "an element-wise function of accumulators and per-row values";
  let description = [{
    `result[r, c] = body(accs[0][r, c], ..., rows[0][r], ...)` for every
    element of the `m x n` accumulators `accs` (all of one type) with the
    per-row values `rows` (`!warpspec.acc_rows<m x f32>`) broadcast along the
    row. The body takes one f32 per operand, in operand order, and yields
    one f32 with `warpspec.acc.yield`; it is pure element math (arith,
    math, warpspec element ops), evaluated once per element by the thread
    that holds it, so the same builder function as a kernel's scalar code
    gives bit-identical results.

    ```mlir
    %a = warpspec.acc.map %gate, %up rows(%w)
        : !warpspec.acc<64x64xf32>, !warpspec.acc<64x64xf32>
          rows !warpspec.acc_rows<64xf32> -> !warpspec.acc<64x64xf32> {
    ^bb0(%g: f32, %u: f32, %wr: f32):
      %p = arith.mulf %g, %u : f32
      %v = arith.mulf %p, %wr : f32
      warpspec.acc.yield %v : f32
    }
    ```
  }];
  let arguments = (ins Variadic<WarpSpec_AccType>:$accs,
                       Variadic<WarpSpec_AccRowsType>:$rows);
  let results = (outs WarpSpec_AccType:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $accs (`rows` `(` $rows^ `)`)? attr-dict `:` qualified(type($accs))
    (`rows` qualified(type($rows))^)? `->` qualified(type($result)) $body
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccDeinterleaveOp : WarpSpec_Op<"acc.deinterleave", [
    Pure, AllTypesMatch<["first", "second"]>]> {
  let summary = "split an accumulator's columns into two, alternating every `period` columns";
  let description = [{
    For an `m x n` accumulator whose columns alternate between two kinds
    every `period` columns (kind 0 in `[0, period)`, kind 1 in
    `[period, 2 period)`, kind 0 again, ...), the two `m x n/2`
    accumulators of each kind: `first[r, j] = acc[r, 2 period (j / period)
    + j % period]` and `second[r, j]` the same column plus `period`. E.g.
    weights whose rows interleave two matrices by 8 (a SwiGLU gate/up
    layout) give an accumulator whose gate and up halves this op separates.

    `period` must be a multiple of 8 (the column granularity at which a
    thread holds accumulator elements, so that the split moves no data) and
    `n` a multiple of `2 period`.

    ```mlir
    %g, %u = warpspec.acc.deinterleave %h period 8
        : !warpspec.acc<64x128xf32> -> !warpspec.acc<64x64xf32>
    ```
  }];
  let arguments = (ins WarpSpec_AccType:$acc,
                       ConfinedAttr<I64Attr, [IntPositive]>:$period);
  let results = (outs WarpSpec_AccType:$first, WarpSpec_AccType:$second);
  let assemblyFormat = [{
    $acc `period` $period attr-dict `:` qualified(type($acc)) `->` qualified(type($first))
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccSliceOp : WarpSpec_Op<"acc.slice", [Pure]> {
  let summary = "columns [offset, offset + n) of an accumulator";
  let description = [{
    The `m x n` accumulator of columns `[offset, offset + n)` of an
    `m x N` one: `result[r, j] = acc[r, offset + j]`. E.g. the three
    64-column panels of a 192-column tile that an epilogue stores in turn.

    `offset` and `n` must be multiples of 8 (a thread holds accumulator
    columns in groups of 8, so that the slice moves no data) and the slice
    must lie within the accumulator.

    ```mlir
    %p1 = warpspec.acc.slice %d offset 64
        : !warpspec.acc<64x192xf32> -> !warpspec.acc<64x64xf32>
    ```
  }];
  let arguments = (ins WarpSpec_AccType:$acc,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$offset);
  let results = (outs WarpSpec_AccType:$result);
  let assemblyFormat = [{
    $acc `offset` $offset attr-dict `:` qualified(type($acc)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccReduceKind : I32EnumAttr<"AccReduceKind",
    "a per-row reduction whose result does not depend on the order", [
      I32EnumAttrCase<"max", 0>,
      I32EnumAttrCase<"absmax", 1>]> {
  let cppNamespace = "::mlir::warpspec";
}

def WarpSpec_AccRowReduceOp : WarpSpec_Op<"acc.row_reduce", [Pure]> {
  let summary = "per-row max or max |x| over the columns of accumulators";
  let description = [{
    `result[r] = reduce over c and over the accumulators of accs[i][r, c]`,
    every thread of the warpgroup receiving the values of the rows it holds.
    `absmax` reduces `|x|`, `max` reduces `x`. Both are exact in any order,
    so the result is the same whichever threads hold the columns; a NaN is
    ignored when another operand is a number (PTX `max.f32`, C `fmaxf`).
    Several accumulators (all of one type) reduce together, e.g. the two
    halves of a block of columns computed as two tiles.

    ```mlir
    %amax = warpspec.acc.row_reduce absmax %a0, %a1
        : !warpspec.acc<64x64xf32> -> !warpspec.acc_rows<64xf32>
    ```
  }];
  let arguments = (ins WarpSpec_AccReduceKind:$kind,
                       Variadic<WarpSpec_AccType>:$accs);
  let results = (outs WarpSpec_AccRowsType:$result);
  let assemblyFormat = [{
    $kind $accs attr-dict `:` qualified(type($accs)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccAnyOp : WarpSpec_Op<"acc.any"> {
  let summary = "whether any element of accumulators held by the warp is nonzero";
  let description = [{
    `result` is true in every thread of a warp when some element of `accs`
    that a thread of that warp holds is nonzero (or NaN), false otherwise:
    a warp-uniform condition for a branch that chooses between two ways of
    computing the same values, e.g. an epilogue's fast path and the exact
    computation it falls back to (`flags` marking the elements where the
    fast path cannot be shown to be exact). Which warp holds which element
    is the lowering's business, so the result must not change what is
    computed, only how. Every thread of the warpgroup executes it (a warp
    vote); it is not Pure so that it is never moved into divergent code.

    ```mlir
    %slow = warpspec.acc.any %flags0, %flags1
        : !warpspec.acc<64x64xf32>, !warpspec.acc<64x64xf32>
    ```
  }];
  let arguments = (ins Variadic<WarpSpec_AccType>:$accs);
  let results = (outs I1:$result);
  let assemblyFormat = "$accs attr-dict `:` qualified(type($accs))";
  let hasVerifier = 1;
}

def WarpSpec_AccRowsMapOp : WarpSpec_Op<"acc_rows.map", [
    SingleBlock, RecursiveMemoryEffects]> {
  let summary = "an element-wise function of per-row values";
  let description = [{
    `result[r] = body(rows[0][r], ...)`, as `warpspec.acc.map` for
    `!warpspec.acc_rows` operands (all of one type), e.g. a requantization
    scale from a per-row amax.

    ```mlir
    %sf = warpspec.acc_rows.map %amax
        : !warpspec.acc_rows<64xf32> -> !warpspec.acc_rows<64xf32> {
    ^bb0(%a: f32):
      %c = arith.constant 448.0 : f32
      %s = arith.divf %a, %c : f32
      warpspec.acc.yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<WarpSpec_AccRowsType>:$rows);
  let results = (outs WarpSpec_AccRowsType:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $rows attr-dict `:` qualified(type($rows)) `->` qualified(type($result))
    $body
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccRowsLoadOp : WarpSpec_Op<"acc_rows.load"> {
  let summary = "per-row values from global memory: row r reads ptr[r]";
  let description = [{
    `result[r] = ptr[r]` for the accumulator rows `r` in `[0, m)`, read by
    the threads that hold row `r` (plain loads: order them after the writer
    with a barrier, counter or kernel boundary). `ptr` points at the value
    of the tile's first row, e.g. `warpspec.global.offset %w[%row0]`.

    ```mlir
    %w = warpspec.acc_rows.load %p : !warpspec.global<f32> -> !warpspec.acc_rows<64xf32>
    ```
  }];
  let arguments = (ins WarpSpec_GlobalType:$ptr);
  let results = (outs WarpSpec_AccRowsType:$result);
  let assemblyFormat = [{
    $ptr attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccRowsStoreOp : WarpSpec_Op<"acc_rows.store"> {
  let summary = "per-row values to global memory: row r writes ptr[r]";
  let description = [{
    `ptr[r] = rows[r]` for `r` in `[0, m)`, each row written once (by one of
    the threads that hold it).

    ```mlir
    warpspec.acc_rows.store %sf, %p : !warpspec.acc_rows<64xf32>, !warpspec.global<f32>
    ```
  }];
  let arguments = (ins WarpSpec_AccRowsType:$rows, WarpSpec_GlobalType:$ptr);
  let assemblyFormat = [{
    $rows `,` $ptr attr-dict `:` qualified(type($rows)) `,` qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccRowsStoreSharedOp : WarpSpec_Op<"acc_rows.store_shared"> {
  let summary = "per-row values into a slot of an SMEM buffer: row r writes slot[r]";
  let description = [{
    `buffer[stage][r] = rows[r]` for `r` in `[0, m)`, each row written once,
    into a 1-D f32 SMEM buffer of `m` elements per slot: how warpgroups that
    hold the same rows of different columns exchange per-row values (e.g.
    partial amaxes), with a barrier among them between the stores and the
    loads.

    ```mlir
    warpspec.acc_rows.store_shared %amax, %x[%c0] : !warpspec.acc_rows<64xf32>, !warpspec.smem<64xf32, slots = 2, align = 16>
    ```
  }];
  let arguments = (ins WarpSpec_AccRowsType:$rows, WarpSpec_SmemType:$buffer,
                       Index:$stage);
  let assemblyFormat = [{
    $rows `,` $buffer `[` $stage `]` attr-dict `:` qualified(type($rows)) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccRowsLoadSharedOp : WarpSpec_Op<"acc_rows.load_shared"> {
  let summary = "per-row values from a slot of an SMEM buffer: row r reads slot[r]";
  let description = [{
    `result[r] = buffer[stage][r]`, read by the threads that hold row `r`
    (the inverse of `warpspec.acc_rows.store_shared`).

    ```mlir
    %other = warpspec.acc_rows.load_shared %x[%c1] : !warpspec.smem<64xf32, slots = 2, align = 16> -> !warpspec.acc_rows<64xf32>
    ```
  }];
  let arguments = (ins WarpSpec_SmemType:$buffer, Index:$stage);
  let results = (outs WarpSpec_AccRowsType:$result);
  let assemblyFormat = [{
    $buffer `[` $stage `]` attr-dict `:` qualified(type($buffer)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Accumulators through global memory (split tiles' partial sums)
//===----------------------------------------------------------------------===//

def WarpSpec_AccSpillOp : WarpSpec_Op<"acc.spill"> {
  let summary = "a warpgroup's accumulator into global memory, in fragment order";
  let description = [{
    Writes the `m x n` accumulator to the `m * n` f32 at `ptr` in an order
    the lowering owns (each thread its own elements, 16-byte vectors
    interleaved over the warpgroup's threads so that each warp's store is
    contiguous), so that `warpspec.acc.fill` of the same type, run by a
    warpgroup of any CTA, reads the same accumulator back bit for bit. What
    a K-split tile's units use to hand their partial sums to the unit that
    finishes the tile (plain stores: publish them with a release, e.g.
    `warpspec.counter.add`, after a barrier of the warpgroup).

    With `rows` (i32) only the accumulator's rows below it need to reach
    memory (the lowering may write more, never outside the `m * n` floats):
    a tile whose rows past `rows` are padding hands on its real rows only
    (one 64-row decode tile holding one token moves 1/32 of the bytes).

    ```mlir
    warpspec.acc.spill %acc, %p : !warpspec.acc<64x128xf32>, !warpspec.global<f32>
    warpspec.acc.spill %acc, %p rows %n : !warpspec.acc<64x128xf32>, !warpspec.global<f32>
    ```
  }];
  let arguments = (ins WarpSpec_AccType:$acc, WarpSpec_GlobalType:$ptr,
                       Optional<I32>:$rows);
  let assemblyFormat = [{
    $acc `,` $ptr (`rows` $rows^)? attr-dict `:` qualified(type($acc)) `,`
    qualified(type($ptr))
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccFillOp : WarpSpec_Op<"acc.fill"> {
  let summary = "an accumulator that warpspec.acc.spill wrote";
  let description = [{
    Reads back the `m x n` accumulator `warpspec.acc.spill` of the same type
    wrote at `ptr` (plain loads: order them after the spill's release with
    an acquire, e.g. `warpspec.counter.wait`).

    With `rows` (i32) only the rows below it are read (pair it with a spill
    of the same `rows`); the others are zero.

    ```mlir
    %acc = warpspec.acc.fill %p : !warpspec.global<f32> -> !warpspec.acc<64x128xf32>
    %acc = warpspec.acc.fill %p rows %n : !warpspec.global<f32> -> !warpspec.acc<64x128xf32>
    ```
  }];
  let arguments = (ins WarpSpec_GlobalType:$ptr, Optional<I32>:$rows);
  let results = (outs WarpSpec_AccType:$result);
  let assemblyFormat = [{
    $ptr (`rows` $rows^)? attr-dict `:` qualified(type($ptr)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECACCOPS_TD
