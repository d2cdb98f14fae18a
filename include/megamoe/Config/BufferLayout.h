//===- BufferLayout.h - the symmetric buffer, computed in one place -*- C++
//-*-===//
//
// Every rank allocates one symmetric buffer of identical size and layout; a
// peer's copy of a region is at the same offset from the peer's base. This is
// the only function that places the regions: the compiler writes its result
// into the manifest ("buffer_layout") and the runtime allocates from it.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONFIG_BUFFERLAYOUT_H
#define MEGAMOE_CONFIG_BUFFERLAYOUT_H

#include "megamoe/Config/Plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace megamoe::config {

/// One region of the symmetric buffer.
struct Region {
  std::string name;    // e.g. "x", "l1_pool", "l1_full"
  int64_t offset = 0;  // bytes from the buffer base
  int64_t bytes = 0;   // size (the next region starts aligned after)
  std::string element; // "e4m3" "bf16" "f32" "i32" "i64" "u32" "u64"
  int64_t elementBytes = 0;
  std::vector<int64_t> shape; // row-major, outermost first
  std::string writer;         // who writes it: "caller" "kernel" "peers"
};

struct BufferLayout {
  /// Every region starts at a multiple of this (TMA needs 16 B; 128 B keeps
  /// counters and rows on their own cache lines).
  static constexpr int64_t kAlignment = 128;

  std::vector<Region> regions; // in address order, non-overlapping
  /// Regions [0, workspaceBytes) hold counters: zeroed once at allocation and
  /// returned to zero by the kernel itself at the end of every call.
  int64_t workspaceBytes = 0;
  int64_t totalBytes = 0; // bytes to allocate per rank (aligned)

  /// The region called `name`, or nullptr.
  const Region *find(const std::string &name) const;
};

/// The layout for (config, plan). `config` and `plan` must be valid
/// (validatePlan(config, plan) is empty).
BufferLayout computeBufferLayout(const LayerConfig &config, const Plan &plan);

/// Counters of the token-pool ring are kept per block of the smallest
/// BLOCK_M, so that every variant finds its blocks' counters.
constexpr int64_t kMinBlockM = 32;

/// Half blocks (Variant::halfBlocks): a 128-row variant pads each expert to
/// kHalfBlockRows rows, and `pool_block_row` holds one i32 per m-block, its
/// first pool row with kHalfBlockBit set when it is a half block of
/// kHalfBlockRows rows (moe_layout writes it, the grouped GEMMs and the
/// profile check read it).
constexpr int64_t kHalfBlockRows = 64;
constexpr uint32_t kHalfBlockBit = 1u << 31;

/// Expert blocks (Variant::l2ExpertBlocks): the L2 GEMM's m-blocks are up
/// to kExpertBlockRows rows of one expert, its 64-row units (the half-block
/// layout's) taken four at a time, so that each tile reads an expert's
/// weight tile once for up to 256 rows. `pool_expert_block` holds one i32
/// per block: its first pool row | (units - 1) << kExpertBlockUnitsShift;
/// pool_info[kExpertBlocksInfoIndex] counts the blocks (moe_layout writes
/// both, the L2 GEMM reads them).
constexpr int64_t kExpertBlockRows = 256;
constexpr int kExpertBlockUnitsShift = 30;
constexpr int64_t kExpertBlocksInfoIndex = 2;

} // namespace megamoe::config

#endif // MEGAMOE_CONFIG_BUFFERLAYOUT_H
