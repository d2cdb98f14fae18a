//===- WeightTransformTest.cpp - gate/up interleave and scale re-layout ---===//
#include "megamoe/runtime/WeightTransform.h"
#include "TestUtil.h"

#include <vector>

using namespace megamoe::rt;

namespace {

TEST(WeightTransform, SourceRowsOfTheFirstGroups) {
  const int64_t I = 256;
  // [gate 0..7, up 0..7, gate 8..15, up 8..15, ...]
  const int64_t expected[] = {
      0,     1,     2,      3,      4,      5,      6,      7,
      I + 0, I + 1, I + 2,  I + 3,  I + 4,  I + 5,  I + 6,  I + 7,
      8,     9,     10,     11,     12,     13,     14,     15,
      I + 8, I + 9, I + 10, I + 11, I + 12, I + 13, I + 14, I + 15};
  for (int64_t r = 0; r < 32; ++r)
    EXPECT_EQ(interleavedSourceRow(r, I), expected[r]) << "row " << r;
  EXPECT_EQ(interleavedSourceRow(2 * I - 1, I), 2 * I - 1);
  EXPECT_EQ(interleavedSourceRow(2 * I - 9, I), I - 1);
}

TEST(WeightTransform, InterleaveIsAPermutationOfRows) {
  L1WeightShape s{2, 128, 128};
  const int64_t rows = 2 * s.intermediate, h = s.hidden;
  std::vector<uint8_t> w(s.weightBytes()), out(s.weightBytes(), 0xee);
  // Row (e, r) holds a signature in its first two bytes, filler elsewhere.
  for (int64_t e = 0; e < s.localExperts; ++e)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < h; ++c)
        w[(e * rows + r) * h + c] = c == 0   ? (uint8_t)e
                                    : c == 1 ? (uint8_t)r
                                             : (uint8_t)(r ^ c);
  interleaveL1WeightsHost(s, w.data(), out.data());
  std::vector<int> seen(rows, 0);
  for (int64_t e = 0; e < s.localExperts; ++e)
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t *row = &out[(e * rows + r) * h];
      EXPECT_EQ(row[0], e);
      int64_t src = row[1];
      // Kernel row r: block of 16 = 8 gate rows then 8 up rows.
      int64_t g = r / 16, j = r % 16;
      int64_t want = j < 8 ? 8 * g + j : 128 + 8 * g + (j - 8);
      EXPECT_EQ(src, want) << "expert " << e << " row " << r;
      for (int64_t c = 2; c < h; ++c)
        ASSERT_EQ(row[c], (uint8_t)(src ^ c));
      if (e == 0)
        seen[src]++;
    }
  for (int64_t r = 0; r < rows; ++r)
    EXPECT_EQ(seen[r], 1) << "user row " << r;
}

TEST(WeightTransform, ScalesPairGateAndUpBlocks) {
  // I = 256: user scale blocks along N: 0,1 gate, 2,3 up; H = 256: 2 K blocks.
  L1WeightShape s{1, 256, 256};
  std::vector<float> sf(s.userScaleCount()), out(s.kernelScaleCount(), -1);
  ASSERT_EQ(sf.size(), 8u);
  for (size_t i = 0; i < sf.size(); ++i)
    sf[i] = 10.0f * (i / 2) + (i % 2); // block n, k -> 10 n + k
  relayoutL1ScalesHost(s, sf.data(), out.data());
  // Interleaved 128-row block b holds gate rows [64b, 64b+64) (user block
  // b/2) and up rows 256 + [64b, 64b+64) (user block 2 + b/2).
  const float expected[4][2][2] = {{{0, 20}, {1, 21}},
                                   {{0, 20}, {1, 21}},
                                   {{10, 30}, {11, 31}},
                                   {{10, 30}, {11, 31}}};
  for (int b = 0; b < 4; ++b)
    for (int k = 0; k < 2; ++k)
      for (int gu = 0; gu < 2; ++gu)
        EXPECT_EQ(out[(b * 2 + k) * 2 + gu], expected[b][k][gu])
            << "block " << b << " k " << k << (gu ? " up" : " gate");
}

TEST(WeightTransform, ScaleOfEveryInterleavedRowMatchesItsSourceRow) {
  // Cross-check the two layouts: the scale the kernel picks for interleaved
  // row r (gate/up half of its 128-row block) is the user scale of the user
  // row that r came from.
  L1WeightShape s{3, 384, 256};
  const int64_t nb = 2 * s.intermediate / 128, kb = s.hidden / 128;
  std::vector<float> sf(s.userScaleCount()), out(s.kernelScaleCount());
  for (size_t i = 0; i < sf.size(); ++i)
    sf[i] = (float)i;
  relayoutL1ScalesHost(s, sf.data(), out.data());
  for (int64_t e = 0; e < s.localExperts; ++e)
    for (int64_t r = 0; r < 2 * s.intermediate; ++r)
      for (int64_t k = 0; k < kb; ++k) {
        int64_t src = interleavedSourceRow(r, s.intermediate);
        bool up = (r % 16) >= 8;
        float kernel = out[((e * nb + r / 128) * kb + k) * 2 + (up ? 1 : 0)];
        float user = sf[(e * nb + src / 128) * kb + k];
        ASSERT_EQ(kernel, user) << "e " << e << " row " << r << " k " << k;
      }
}

TEST(WeightTransform, RejectsBadShapes) {
  EXPECT_RT_ERROR(checkL1WeightShape({1, 100, 128}), ErrorKind::InvalidArgument,
                  "intermediate = 100 must be a positive multiple of 128");
  EXPECT_RT_ERROR(checkL1WeightShape({1, 128, 96}), ErrorKind::InvalidArgument,
                  "hidden = 96");
  EXPECT_RT_ERROR(checkL1WeightShape({0, 128, 128}), ErrorKind::InvalidArgument,
                  "local experts = 0");
}

} // namespace

TEST(WeightTransform, TiledLayoutStoresEach128x128TileContiguously) {
  // The offset of the tiled layout (l1_weight_tiles): tile (row / 128,
  // column / 128) at index row_tile * (H / 128) + column_tile, rows inside
  // it row-major.
  EXPECT_EQ(tiledWeightOffset(0, 0, 512), 0);
  EXPECT_EQ(tiledWeightOffset(0, 127, 512), 127);
  EXPECT_EQ(tiledWeightOffset(1, 0, 512), 128);
  EXPECT_EQ(tiledWeightOffset(0, 128, 512), 128 * 128);
  EXPECT_EQ(tiledWeightOffset(128, 0, 512), 4 * 128 * 128);
  EXPECT_EQ(tiledWeightOffset(130, 260, 512),
            (1 * 4 + 2) * 128 * 128 + 2 * 128 + 4);
  // The tiled transform is the row-major one, moved tile by tile.
  L1WeightShape s{2, 128, 384};
  const int64_t rows = 2 * s.intermediate, h = s.hidden;
  std::vector<uint8_t> w(s.weightBytes()), flat(w.size()), tiled(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = (uint8_t)(i * 131 + (i >> 9));
  interleaveL1WeightsHost(s, w.data(), flat.data());
  interleaveL1WeightsHost(s, w.data(), tiled.data(), /*tiled=*/true);
  for (int64_t row = 0; row < s.localExperts * rows; ++row)
    for (int64_t c = 0; c < h; ++c)
      ASSERT_EQ(tiled[tiledWeightOffset(row, c, h)], flat[row * h + c])
          << "row " << row << " column " << c;
}
