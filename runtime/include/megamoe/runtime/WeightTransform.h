//===- WeightTransform.h - user weight layout -> kernel layout --*- C++ -*-===//
//
// The SwiGLU epilogue wants each gate column next to its up column, so the L1
// weight's rows are interleaved at a granularity of 8 (as DeepGEMM's
// transform_weights_for_mega_moe does):
//
//   user   W1[e] rows: gate 0..I-1, up 0..I-1             ([E_local, 2I, H])
//   kernel W1[e] rows: gate 0..7, up 0..7, gate 8..15, up 8..15, ...
//
// Kernel row r = 16 g + j holds user row 8 g + j (j < 8, gate) or
// I + 8 g + j - 8 (j >= 8, up).
//
// A 128-row block b of the interleaved weight holds gate rows [64 b, 64 b + 64)
// and up rows [I + 64 b, I + 64 b + 64), which come from two different 128x128
// scale blocks. The L1 scales are therefore re-laid out as
//
//   user   sf1 [E_local, 2I/128, H/128]          (128x128 blocks)
//   kernel sf1 [E_local, 2I/128, H/128, 2]       ([..., 0] gate, [..., 1] up)
//
// with kernel sf1[e, b, k, 0] = sf1[e, b / 2, k] and
//      kernel sf1[e, b, k, 1] = sf1[e, I/128 + b / 2, k]
// so that one 8-byte load gives both scales of an (N block, K block) tile.
// L2 weights and scales keep the user layout.
//
// With the plan's l1_weight_tiles (config::Plan::l1WeightTiles) the
// interleaved weight is also tiled: the 128 x 128 byte tile of rows
// [128 t, 128 t + 128) of the [E_local x 2I, H] matrix and columns
// [128 c, 128 c + 128) is contiguous, at tile index t * (H / 128) + c, rows
// inside it row-major (tiledWeightOffset); the L1 GEMMs' B descriptor is
// then rank 4 (docs/UnfusedSchedule.md, "Tiled L1 weights").
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_WEIGHTTRANSFORM_H
#define MEGAMOE_RUNTIME_WEIGHTTRANSFORM_H

#include "megamoe/Config/KernelPlan.h"

#include <cstdint>

// The layout functions below are the one definition of the kernel layout,
// used by the host transform and by the device kernel (DeviceKernels.cu).
#ifdef __CUDACC__
#define MEGAMOE_HOST_DEVICE __host__ __device__
#else
#define MEGAMOE_HOST_DEVICE
#endif

namespace megamoe::rt {

/// Gate and up rows alternate in groups of this many rows (the compiler's
/// config::kGateUpInterleave, which its SwiGLU epilogue and weight-scale map
/// read: one definition).
constexpr int64_t kGateUpGranularity = config::kGateUpInterleave;

struct L1WeightShape {
  int64_t localExperts = 0; // E_local
  int64_t intermediate = 0; // I
  int64_t hidden = 0;       // H

  int64_t weightBytes() const {
    return localExperts * 2 * intermediate * hidden;
  }
  int64_t userScaleCount() const {
    return localExperts * (2 * intermediate / 128) * (hidden / 128);
  }
  int64_t kernelScaleCount() const { return 2 * userScaleCount(); }
};

/// Throws Error(InvalidArgument) unless E_local >= 1, I % 128 == 0 and
/// H % 128 == 0, naming the broken rule and the values.
void checkL1WeightShape(const L1WeightShape &s);

/// The user row that kernel row `r` of one expert holds (I = intermediate).
MEGAMOE_HOST_DEVICE inline int64_t interleavedSourceRow(int64_t r,
                                                        int64_t intermediate) {
  int64_t g = r / (2 * kGateUpGranularity);
  int64_t j = r % (2 * kGateUpGranularity);
  return j < kGateUpGranularity
             ? g * kGateUpGranularity + j
             : intermediate + g * kGateUpGranularity + (j - kGateUpGranularity);
}

/// Rows and columns of one tile of the tiled layout: the compiler's
/// config::kWeightTileRows x kWeightTileK (its rank-4 B descriptor's box).
constexpr int64_t kWeightTile = config::kWeightTileRows;
static_assert(config::kWeightTileRows == config::kWeightTileK,
              "tiledWeightOffset assumes square weight tiles");

/// Byte offset of element (row, column) of a [rows, hidden] matrix in the
/// tiled layout (rows and hidden multiples of kWeightTile).
MEGAMOE_HOST_DEVICE inline int64_t tiledWeightOffset(int64_t row,
                                                     int64_t column,
                                                     int64_t hidden) {
  int64_t tile = (row / kWeightTile) * (hidden / kWeightTile) +
                 column / kWeightTile;
  return (tile * kWeightTile + row % kWeightTile) * kWeightTile +
         column % kWeightTile;
}

/// Host implementations (the definition of the layout; the GPU version in
/// DeviceKernels.cu is tested against them). `out` must not alias. With
/// `tiled` the interleaved rows are stored tiled (tiledWeightOffset).
void interleaveL1WeightsHost(const L1WeightShape &s, const uint8_t *w,
                             uint8_t *out, bool tiled = false);
void relayoutL1ScalesHost(const L1WeightShape &s, const float *sf, float *out);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_WEIGHTTRANSFORM_H
