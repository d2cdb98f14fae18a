//===- TileOrder.h - the tile orders of tile_loop and wave_loop -*- C++ -*-===//
//
// The index arithmetic that maps a CTA's tile number t to the tile it runs,
// written once over an arithmetic policy: the lowering (LowerTiles.cpp)
// instantiates it with one that emits arith / scf ops, the unit tests with
// one over int64_t, so that the order the kernels walk is the order the
// tests check (every tile exactly once; every phase-1 tile after the
// phase-0 tiles of its m-block).
//
// A policy `A` has a value type `A::V` and
//   V c(int64_t);                 a constant
//   V add(V, V), sub, mul, div, rem (unsigned), max (unsigned);
//   P ult(V, V), uge(V, V);       predicates (A::P)
//   V select(P, V, V);
//   V fromPred(P);                0 or 1
//   template <size_t N> std::array<V, N> branch(P, F then, F otherwise);
// `branch` runs one of two builders that return N values (the lowering
// emits an scf.if, so that the two sides' temporaries are never live
// together).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONVERSION_WARPSPECTONVVM_TILEORDER_H
#define MEGAMOE_CONVERSION_WARPSPECTONVVM_TILEORDER_H

#include <array>
#include <cstdint>
#include <utility>

namespace megamoe::tileorder {

/// Tile `tile` of a grid of (tilesPerRaster / raster) m-blocks x `nBlocks`
/// n-blocks in rasters of `raster` n-blocks (warpspec.tile_loop's order):
/// raster g = tile / tilesPerRaster, i = tile % tilesPerRaster, m-block
/// i / R, n-block g R + i % R; past the F = nBlocks / R full rasters the
/// last one is W = nBlocks mod R wide: i = tile - F tilesPerRaster, m-block
/// i / W, n-block F R + i % W. Returns (m-block, n-block).
template <typename A>
std::pair<typename A::V, typename A::V>
rasterTile(A &a, typename A::V tile, typename A::V tilesPerRaster,
           int64_t nBlocks, int64_t raster) {
  using V = typename A::V;
  V r = a.c(raster);
  V g = a.div(tile, tilesPerRaster);
  V inRaster = a.rem(tile, tilesPerRaster);
  V m = a.div(inRaster, r);
  V n = a.add(a.mul(g, r), a.rem(inRaster, r));
  if (int64_t width = nBlocks % raster) {
    // The narrower last raster; `tail` is only used where it is >= 0.
    int64_t full = nBlocks / raster;
    V fullTiles = a.mul(tilesPerRaster, a.c(full));
    auto inTail = a.uge(tile, fullTiles);
    V tail = a.sub(tile, fullTiles);
    V w = a.c(width);
    V tailM = a.div(tail, w);
    V tailN = a.add(a.c(full * raster), a.rem(tail, w));
    m = a.select(inTail, tailM, m);
    n = a.select(inTail, tailN, n);
  }
  return {m, n};
}

/// warpspec.wave_loop's order (its description): the tile at position t of
/// the sequence, for M m-blocks (t < M (N0 + N1), so M >= 1). With
/// G = ceil(M / W) waves, the last of mL = M - (G - 1) W m-blocks, full
/// segments of S0 = W N0 and S1 = W N1 tiles, and a = max(0, G - 1 - lag):
///   - t < P = (G - 1) S0 + a S1: every segment before phase 0 of the last
///     wave is full: the first (lag + 1) S0 tiles are phase 0 of wave
///     t / S0, then the tiles come in pairs of segments, phase 1 of wave p
///     and phase 0 of wave lag + 1 + p;
///   - P <= t < Q = P + mL N0: phase 0 of the last wave;
///   - t >= Q: phase 1 of waves a, a + 1, ..., G - 1 (the last one short).
/// Returns (phase, m-block, n-block).
struct WaveShape {
  int64_t nBlocks[2];
  int64_t raster[2];
  int64_t wave;
  int64_t lag;
};

template <typename A>
std::array<typename A::V, 3>
waveTile(A &a, typename A::V t, typename A::V mBlocks, const WaveShape &s) {
  using V = typename A::V;
  int64_t s0 = s.wave * s.nBlocks[0], s1 = s.wave * s.nBlocks[1];
  V lastWave = a.div(a.sub(mBlocks, a.c(1)), a.c(s.wave)); // G - 1
  V lastMBlocks = a.sub(mBlocks, a.mul(lastWave, a.c(s.wave)));
  V after = a.sub(a.max(lastWave, a.c(s.lag)), a.c(s.lag)); // a
  V p = a.add(a.mul(lastWave, a.c(s0)), a.mul(after, a.c(s1)));
  V q = a.add(p, a.mul(lastMBlocks, a.c(s.nBlocks[0])));
  int64_t headTiles = (s.lag + 1) * s0;
  // (phase, wave, offset in the segment)
  std::array<V, 3> seg = a.template branch<3>(
      a.ult(t, p),
      [&] {
        return a.template branch<3>(
            a.ult(t, a.c(headTiles)),
            [&]() -> std::array<V, 3> {
              return {a.c(0), a.div(t, a.c(s0)), a.rem(t, a.c(s0))};
            },
            [&]() -> std::array<V, 3> {
              V u = a.sub(t, a.c(headTiles));
              V pair = a.div(u, a.c(s0 + s1));
              V inPair = a.rem(u, a.c(s0 + s1));
              auto second = a.ult(inPair, a.c(s1));
              return {a.fromPred(second),
                      a.select(second, pair, a.add(pair, a.c(s.lag + 1))),
                      a.select(second, inPair, a.sub(inPair, a.c(s1)))};
            });
      },
      [&] {
        return a.template branch<3>(
            a.ult(t, q),
            [&]() -> std::array<V, 3> {
              return {a.c(0), lastWave, a.sub(t, p)};
            },
            [&]() -> std::array<V, 3> {
              V u = a.sub(t, q);
              return {a.c(1), a.add(after, a.div(u, a.c(s1))),
                      a.rem(u, a.c(s1))};
            });
      });
  V phase = seg[0], w = seg[1], offset = seg[2];
  // The segment's grid: its wave's m-blocks x the phase's n-blocks in the
  // phase's rasters.
  V mCount = a.select(a.ult(w, lastWave), a.c(s.wave), lastMBlocks);
  auto grid = [&](int phase1) -> std::array<V, 3> {
    int64_t n = s.nBlocks[phase1], r = s.raster[phase1];
    // One raster (m-major, the layer's usual): no division by the
    // run-time raster size.
    auto [m, nb] =
        r == n ? std::pair<V, V>{a.div(offset, a.c(n)), a.rem(offset, a.c(n))}
               : rasterTile(a, offset, a.mul(mCount, a.c(r)), n, r);
    return {a.c(phase1), a.add(a.mul(w, a.c(s.wave)), m), nb};
  };
  return a.template branch<3>(
      a.ult(a.c(0), phase), [&] { return grid(1); }, [&] { return grid(0); });
}

} // namespace megamoe::tileorder

#endif // MEGAMOE_CONVERSION_WARPSPECTONVVM_TILEORDER_H
