//===- TileOrderTest.cpp - the orders of tile_loop and wave_loop ----------===//
//
// Runs the index arithmetic the lowering emits (TileOrder.h) over int64_t
// and compares it with the orders as the ops' descriptions state them,
// enumerated directly: every tile exactly once, in the stated sequence, and
// every phase-1 tile after the phase-0 tiles of its m-block (what keeps the
// fused GEMM kernel free of deadlock).
//
//===----------------------------------------------------------------------===//
#include "megamoe/Conversion/WarpSpecToNVVM/TileOrder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <vector>

using namespace megamoe::tileorder;

namespace {

/// The policy over int64_t (unsigned semantics are not needed: every value
/// the orders compute is non-negative).
struct IntArith {
  using V = int64_t;
  using P = bool;
  V c(int64_t v) { return v; }
  V add(V x, V y) { return x + y; }
  V sub(V x, V y) { return x - y; }
  V mul(V x, V y) { return x * y; }
  V div(V x, V y) { return x / y; }
  V rem(V x, V y) { return x % y; }
  V max(V x, V y) { return std::max(x, y); }
  P ult(V x, V y) { return x < y; }
  P uge(V x, V y) { return x >= y; }
  V select(P p, V x, V y) { return p ? x : y; }
  V fromPred(P p) { return p ? 1 : 0; }
  template <size_t N, typename Then, typename Else>
  std::array<V, N> branch(P cond, Then then, Else otherwise) {
    return cond ? then() : otherwise();
  }
};

using Tile = std::array<int64_t, 3>; // phase, m-block, n-block

/// tile_loop's raster order over m x n, enumerated: rasters of R n-blocks
/// (the last W = n mod R wide), m-blocks within a raster, n-blocks fastest.
std::vector<std::pair<int64_t, int64_t>> rasterOrder(int64_t m, int64_t n,
                                                     int64_t r) {
  std::vector<std::pair<int64_t, int64_t>> order;
  for (int64_t g = 0; g * r < n; ++g) {
    int64_t width = std::min(r, n - g * r);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < width; ++j)
        order.push_back({i, g * r + j});
  }
  return order;
}

/// wave_loop's sequence as its description states it: phase 0 of waves
/// 0..lag, then phase 1 of wave 0, phase 0 of wave lag + 1, phase 1 of wave
/// 1, ...; each segment its wave's m-blocks x the phase's n-blocks in the
/// phase's raster order.
std::vector<Tile> waveSequence(int64_t m, const WaveShape &s) {
  int64_t waves = (m + s.wave - 1) / s.wave;
  std::vector<std::pair<int64_t, int64_t>> segments; // (phase, wave)
  for (int64_t w = 0; w <= s.lag; ++w)
    segments.push_back({0, w});
  for (int64_t w = 0; w < waves; ++w) {
    segments.push_back({1, w});
    segments.push_back({0, w + s.lag + 1});
  }
  std::vector<Tile> order;
  for (auto [phase, w] : segments) {
    int64_t first = w * s.wave;
    int64_t count = std::clamp<int64_t>(m - first, 0, s.wave);
    for (auto [i, n] : rasterOrder(count, s.nBlocks[phase], s.raster[phase]))
      order.push_back({phase, first + i, n});
  }
  return order;
}

TEST(TileOrder, RasterTileIsTheRasterOrder) {
  IntArith a;
  for (int64_t m = 1; m <= 9; ++m)
    for (int64_t n = 1; n <= 12; ++n)
      for (int64_t r = 1; r <= n; ++r) {
        std::vector<std::pair<int64_t, int64_t>> want = rasterOrder(m, n, r);
        ASSERT_EQ(static_cast<int64_t>(want.size()), m * n);
        for (int64_t t = 0; t < m * n; ++t)
          ASSERT_EQ(rasterTile(a, t, m * r, n, r), want[t])
              << "m " << m << " n " << n << " raster " << r << " t " << t;
      }
}

TEST(TileOrder, WaveTileIsTheStatedSequence) {
  IntArith a;
  int64_t shapes = 0;
  for (int64_t n0 = 1; n0 <= 4; ++n0)
    for (int64_t n1 = 1; n1 <= 5; ++n1)
      for (int64_t r0 = 1; r0 <= n0; ++r0)
        for (int64_t r1 = 1; r1 <= n1; r1 += 2)
          for (int64_t wave = 1; wave <= 4; ++wave)
            for (int64_t lag = 0; lag <= 2; ++lag)
              for (int64_t m = 1; m <= 11; ++m) {
                WaveShape s{{n0, n1}, {r0, r1}, wave, lag};
                std::vector<Tile> want = waveSequence(m, s);
                ASSERT_EQ(static_cast<int64_t>(want.size()), m * (n0 + n1));
                for (int64_t t = 0; t < m * (n0 + n1); ++t)
                  ASSERT_EQ(waveTile(a, t, m, s), want[t])
                      << "N " << n0 << "/" << n1 << " raster " << r0 << "/"
                      << r1 << " wave " << wave << " lag " << lag << " M " << m
                      << " t " << t;
                ++shapes;
              }
  EXPECT_GT(shapes, 1000);
}

// Every tile once, and every phase-1 tile after all phase-0 tiles of its
// m-block and of the m-blocks of the `lag` waves after its own.
TEST(TileOrder, WaveOrderCoversEveryTileAndRespectsTheDependence) {
  IntArith a;
  for (int64_t wave : {1, 3, 8})
    for (int64_t lag : {0, 1, 2})
      for (int64_t m : {1, 7, 8, 9, 44, 131}) {
        WaveShape s{{16, 32}, {16, 8}, wave, lag};
        std::map<Tile, int64_t> at;
        int64_t total = m * 48;
        for (int64_t t = 0; t < total; ++t) {
          Tile tile = waveTile(a, t, m, s);
          ASSERT_TRUE(at.emplace(tile, t).second) << "tile repeated at " << t;
          ASSERT_LT(tile[1], m);
          ASSERT_LT(tile[2], s.nBlocks[tile[0]]);
        }
        ASSERT_EQ(static_cast<int64_t>(at.size()), total);
        // The last phase-0 position of each m-block.
        std::vector<int64_t> lastL1(m, -1);
        for (auto &[tile, t] : at)
          if (tile[0] == 0)
            lastL1[tile[1]] = std::max(lastL1[tile[1]], t);
        for (auto &[tile, t] : at) {
          if (tile[0] != 1)
            continue;
          int64_t w = tile[1] / wave;
          int64_t through = std::min(m, (w + lag + 1) * wave);
          for (int64_t mb = 0; mb < through; ++mb)
            ASSERT_LT(lastL1[mb], t)
                << "phase-1 tile of m-block " << tile[1] << " at " << t
                << " before phase 0 of m-block " << mb << " (wave " << wave
                << ", lag " << lag << ", M " << m << ")";
        }
      }
}

} // namespace
