//===- BufferLayout.cpp - placing the symmetric buffer's regions ----------===//
#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Heuristics.h"
#include <algorithm>

namespace megamoe::config {

namespace {

int64_t alignUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

/// Bytes of an element named by toString(DType) (a builder's own names).
int64_t elementBytes(const std::string &element) {
  std::optional<DType> type = parseDType(element);
  return type ? bytesOf(*type) : 0;
}

/// Appends regions at aligned offsets.
class Placer {
public:
  explicit Placer(BufferLayout &layout) : layout(layout) {}

  void add(std::string name, std::string element, std::vector<int64_t> shape,
           std::string writer) {
    Region r;
    r.name = std::move(name);
    r.elementBytes = elementBytes(element);
    r.element = std::move(element);
    r.bytes = r.elementBytes;
    for (int64_t d : shape)
      r.bytes *= d;
    r.shape = std::move(shape);
    r.writer = std::move(writer);
    r.offset = end;
    end = alignUp(r.offset + r.bytes, BufferLayout::kAlignment);
    layout.regions.push_back(std::move(r));
  }
  int64_t offset() const { return end; }

private:
  BufferLayout &layout;
  int64_t end = 0;
};

} // namespace

const Region *BufferLayout::find(const std::string &name) const {
  for (const Region &r : regions)
    if (r.name == name)
      return &r;
  return nullptr;
}

namespace {

/// Whether some variant's L1 GEMM stores h for moe_activation: every
/// variant of the unfused schedule, those of the split schedule whose
/// epilogue does not requantize (splitFusesActivation).
bool storesH(const LayerConfig &c, const Plan &p) {
  for (const Variant &v : p.variants) {
    Schedule s = scheduleOf(p, v);
    if (s == Schedule::Unfused ||
        (s == Schedule::Split && !splitFusesActivation(c, v)))
      return true;
  }
  return false;
}

/// The unfused schedule's regions (docs/UnfusedSchedule.md): one kernel per
/// stage, so the intermediates h and the requantized activation live in
/// memory (o does not: the L2 GEMM stores its rows straight into the source
/// ranks' combine buffers), and the pool has the worst-case size. The split
/// schedule (docs/SplitSchedule.md) has the same regions but h where every
/// variant's L1 kernel requantizes the activation from the accumulator.
BufferLayout stageKernelsBufferLayout(const LayerConfig &c, const Plan &p) {
  const int64_t H = c.hidden, I = c.intermediate, E = c.experts, K = c.topk;
  const int64_t R = c.ranks, T = c.maxTokensPerRank, L = c.localExperts();
  // The block tables are indexed by the smallest segment alignment: the
  // BLOCK_M 64 variant's blocks, or the 64-row units of a variant with half
  // blocks.
  // The pool's data rows (P) and its rows as moe_layout numbers them (PL,
  // the block tables' extent): P < PL is a ring (poolWraps).
  const int64_t P = p.poolTokens, PL = poolLayoutRows(c, p);
  int64_t BM = p.variants.front().blockM;
  bool halfBlocks = false, expertBlocks = false, l1Pull = false;
  // K-split tails (Variant::kSplit): the most split tiles, and the floats of
  // the largest tile of either GEMM (a SwiGLU pair is two L1 blocks).
  int64_t splitTiles = 0, splitParts = 0, splitTileFloats = 0;
  for (const Variant &v : p.variants) {
    BM = std::min(BM, v.expertAlign > 0 ? v.expertAlign : v.blockM);
    halfBlocks |= v.halfBlocks();
    expertBlocks |= v.l2ExpertBlocks;
    l1Pull |= v.l1Pull;
    if (v.kSplit > 1) {
      splitTiles = std::max(splitTiles, kSplitTiles(p.numSMs, v.kSplit));
      splitParts = std::max(splitParts, v.kSplit);
      int64_t columns = std::max(splitFusesActivation(c, v) &&
                                         scheduleOf(p, v) == Schedule::Split
                                     ? 2 * v.l1BlockN
                                     : v.l1BlockN,
                                 v.l2BlockN);
      splitTileFloats = std::max(splitTileFloats, v.blockM * columns);
    }
  }

  BufferLayout layout;
  Placer place(layout);
  // Workspace, zero between calls: the cross-rank barrier phase counters
  // ([0] before the pull, [1] before the combine reduce), the per-expert send
  // counts (zeroed again by moe_layout) and the error counters (cleared by
  // the runtime's error check).
  place.add("barriers", "u32", {32}, "kernel+peers");
  place.add("send_count", "u32", {E}, "kernel");
  place.add("errors", "u32", {4}, "kernel");
  if (anyVariantRuns(p, Schedule::FusedGemm)) {
    // The fused GEMM kernel's L2 arrivals (L1 tiles done with the m-block's
    // activation) and the L2 tiles that have waited on them, per m-block
    // (sized for the smallest BLOCK_M); the last waiter zeroes both
    // (docs/FusedSchedule.md).
    place.add("l2_arrivals", "u32", {PL / kMinBlockM}, "kernel");
    place.add("l2_waits", "u32", {PL / kMinBlockM}, "kernel");
  }
  if (P < PL) {
    // The ring's flow control, per slot of kMinBlockM rows: the L2 tiles
    // done with the slot's m-block, summed over its laps (the dispatch
    // warps wait for lap x tiles before a refill); the slot's last
    // m-block zeroes it (docs/FusedSchedule.md, "The dispatch warps and the pool ring").
    place.add("pool_ring_done", "u32", {P / kMinBlockM}, "kernel");
  }
  if (l1Pull) {
    // The L1 kernel's pull arrivals (rows of each 64-row unit -- the
    // smallest segment alignment BM -- copied into the pool) and the L1
    // tiles that have waited on them; the last waiter zeroes both
    // (docs/SplitSchedule.md).
    place.add("pull_arrivals", "u32", {PL / BM}, "kernel");
    place.add("pull_waits", "u32", {PL / BM}, "kernel");
  }
  if (splitTiles > 0) {
    // The K-split tails' arrivals: per split tile and math warpgroup, the
    // units whose partial sums have landed; the tile's last unit waits for
    // them and zeroes its counter (GroupedGemm.cpp, "K-split tail").
    place.add("split_counts", "u32", {2 * splitTiles}, "kernel");
  }
  layout.workspaceBytes = place.offset();
  if (splitTiles > 0) {
    // Their partial sums: one slot per unit of each split tile (the first
    // kSplit - 1 units' accumulators, and the last unit's second column
    // block while it sums the first; acc.spill's fragment order), reused by
    // every GEMM kernel.
    place.add("split_partials", "f32", {splitTiles * splitParts, splitTileFloats},
              "kernel");
  }

  place.add("x", "e4m3", {T, H}, "caller");
  place.add("x_sf", "f32", {T, H / c.recipe.inputScaleBlock}, "caller");
  place.add("topk_idx", "i64", {T, K}, "caller");
  place.add("topk_weights", "f32", {T, K}, "caller");

  place.add("recv_count", "i32", {R, L}, "peers");
  place.add("src_token_index", "i32", {L, R, T * K}, "peers");
  place.add("pool_row_start", "i32", {L, R + 1}, "kernel");
  place.add("pool_block_expert", "i32", {PL / BM}, "kernel");
  // With half blocks: each m-block's first row, bit 31 set on a 64-row one
  // (moe_layout writes it; the grouped GEMMs read it).
  if (halfBlocks)
    place.add("pool_block_row", "i32", {PL / BM}, "kernel");
  // With expert blocks: the L2 GEMM's blocks of up to 256 rows, each one's
  // first row and units (at most one per 64-row unit).
  if (expertBlocks)
    place.add("pool_expert_block", "i32", {PL / kHalfBlockRows}, "kernel");
  place.add("pool_info", "i32", {4}, "kernel");
  place.add("l1_pool", "e4m3", {P, H}, "kernel");
  place.add("l1_pool_sf", "f32", {H / c.recipe.inputScaleBlock, P}, "kernel");
  place.add("l1_pool_weight", "f32", {P}, "kernel");
  place.add("pool_source", "i32", {P, 3}, "kernel");
  if (storesH(c, p))
    place.add("l1_out", "f32", {P, 2 * I}, "kernel");
  place.add("l2_pool", "e4m3", {P, I}, "kernel");
  place.add("l2_pool_sf", "f32", {I / c.recipe.requantBlock, P}, "kernel");
  place.add("combine", "bf16", {K, T, H}, "peers");
  layout.totalBytes = place.offset();
  return layout;
}

} // namespace

BufferLayout computeBufferLayout(const LayerConfig &c, const Plan &p) {
  if (buildsStageKernels(p.schedule))
    return stageKernelsBufferLayout(c, p);
  const int64_t H = c.hidden, I = c.intermediate, E = c.experts, K = c.topk;
  const int64_t R = c.ranks, T = c.maxTokensPerRank, L = c.localExperts();
  const int64_t P = p.poolTokens;
  const int64_t ringBlocks = P / kMinBlockM;

  BufferLayout layout;
  Placer place(layout);

  // Workspace: counters only, first, so one contiguous range is zeroed at
  // allocation (the kernel restores zero before it returns).
  // grid-sync counters (4), NVLink-barrier counter and phase signals (3),
  // spare to a cache line.
  place.add("barriers", "u32", {32}, "kernel+peers");
  // Each SM adds 2^32 + its count per global expert: the returned value is
  // its slot offset and the high half counts arrived SMs.
  place.add("expert_send_count", "u64", {E}, "kernel");
  // Tokens each source rank sends to each local expert (a remote store).
  place.add("expert_recv_count", "u64", {R, L}, "peers");
  // Sum over source ranks (atom.add.sys); complete when the high half is
  // numSMs * R.
  place.add("expert_recv_count_sum", "u64", {L}, "peers");
  // Ring flow control, per block of kMinBlockM pool rows: rows arrived (L1
  // may start), L1 N-tiles done reading (L1 rows reusable), L1 N-tiles
  // written (L2 may start), L2 N-tiles done reading (L2 rows reusable).
  place.add("l1_full", "u32", {ringBlocks}, "kernel");
  place.add("l1_empty", "u32", {ringBlocks}, "kernel");
  place.add("l2_full", "u32", {ringBlocks}, "kernel");
  place.add("l2_empty", "u32", {ringBlocks}, "kernel");
  layout.workspaceBytes = place.offset();

  // Inputs, staged by the caller each call; peers pull x, x_sf and the
  // weights of their slots.
  place.add("x", "e4m3", {T, H}, "caller");
  place.add("x_sf", "f32", {T, H / c.recipe.inputScaleBlock}, "caller");
  place.add("topk_idx", "i64", {T, K}, "caller");
  place.add("topk_weights", "f32", {T, K}, "caller");

  // For each local expert and source rank, the source's (token * K + k) of
  // every slot it sends, written remotely during dispatch.
  place.add("src_token_index", "i32", {L, R, T}, "peers");

  // The token pool (rank-local, in the symmetric allocation so one
  // allocation serves everything): per-expert segments padded to BLOCK_M,
  // a ring of P rows.
  place.add("l1_pool", "e4m3", {P, H}, "kernel");
  // MN-major: one column of P scales per 128 channels, as TMA loads them.
  place.add("l1_pool_sf", "f32", {H / c.recipe.inputScaleBlock, P}, "kernel");
  place.add("l1_pool_weight", "f32", {P}, "kernel");
  // {source rank, token, slot} of every pool row, for the combine write-back.
  place.add("pool_source", "i32", {P, 3}, "kernel");
  place.add("l2_pool", "e4m3", {P, I}, "kernel");
  place.add("l2_pool_sf", "f32", {I / c.recipe.requantBlock, P}, "kernel");

  // Combine: the L2 output of each (token, slot), written by the rank that
  // owns the expert, reduced locally in slot order.
  place.add("combine", "bf16", {K, T, H}, "peers");

  layout.totalBytes = place.offset();
  return layout;
}

} // namespace megamoe::config
