//===- SmemModel.h - the one shared-memory layout rule ----------*- C++ -*-===//
//
// A kernel's dynamic shared memory is a list of regions placed in order, each
// at the next offset that is a multiple of its alignment. The planner sizes
// kernels with it (the grouped GEMM's KernelPlan, the fused layer's
// SharedMemoryUsage) and `warpspec-plan-smem` lays out the IR's buffers with
// the same function, so the bytes a plan reserves and the bytes the layout
// takes follow one rule. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONFIG_SMEMMODEL_H
#define MEGAMOE_CONFIG_SMEMMODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace megamoe::config {

/// One region of shared memory: `slots` copies of `bytesPerSlot` bytes (a
/// slot size that is already a multiple of the alignment when the slots must
/// each stay aligned), placed at a multiple of `alignment`.
struct SmemRegionPlan {
  std::string name;
  int64_t bytesPerSlot = 0;
  int64_t slots = 1;
  int64_t alignment = 1;
  /// One slot per pipeline stage (slots == the kernel's stages).
  bool perStage = false;
  /// Bytes from the start of dynamic shared memory, set by layoutSmem.
  int64_t offset = 0;

  int64_t bytes() const { return bytesPerSlot * slots; }
};

/// Places `regions` in order, each at the next multiple of its alignment
/// (an alignment < 1 counts as 1), sets their offsets, and returns the end of
/// the last one rounded up to `totalAlignment`.
int64_t layoutSmem(std::vector<SmemRegionPlan> &regions,
                   int64_t totalAlignment = 1);

/// An mbarrier: 8 bytes, 8-byte aligned.
constexpr int64_t kMbarrierBytes = 8;
/// The mbarriers of one pipeline stage: its full and its empty barrier
/// (warpspec.pipeline.create lays out 2 per stage).
constexpr int64_t kRingBarrierBytesPerStage = 2 * kMbarrierBytes;
/// The sm_100 TMEM state (warpspec-plan-smem's "tmem_state"): the TMEM base
/// address word (8 bytes) and one commit mbarrier per MMA warpgroup.
constexpr int64_t tmemStateBytes(int64_t mmaWarpgroups) {
  return mmaWarpgroups ? 8 + kMbarrierBytes * mmaWarpgroups : 0;
}

} // namespace megamoe::config

#endif // MEGAMOE_CONFIG_SMEMMODEL_H
