//===- Print.cpp - text and JSON of a plan and its layout -----------------===//
#include "megamoe/Config/Print.h"
#include "megamoe/Config/Heuristics.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace megamoe::config {

using Json = nlohmann::ordered_json;

namespace {

Json toJson(const LayerConfig &c) {
  Json recipe = {{"activation", toString(c.recipe.activation)},
                 {"weight", toString(c.recipe.weight)},
                 {"output", toString(c.recipe.output)},
                 {"input_scale_block", c.recipe.inputScaleBlock},
                 {"weight_scale_block", c.recipe.weightScaleBlock},
                 {"requant_block", c.recipe.requantBlock}};
  Json j = {{"hidden", c.hidden},   {"intermediate", c.intermediate},
            {"experts", c.experts}, {"topk", c.topk},
            {"ranks", c.ranks},     {"max_tokens_per_rank", c.maxTokensPerRank},
            {"recipe", recipe},     {"activation", toString(c.activation)}};
  j["clamp"] = c.clamp ? Json(*c.clamp) : Json(nullptr);
  j["fast_math"] = c.fastMath;
  j["chip"] = toString(c.chip);
  return j;
}

Json toJson(const Variant &v) {
  return Json{
      {"min_tokens", v.minTokens},
      {"max_tokens", v.maxTokens},
      {"block_m", v.blockM},
      {"expert_align", v.expertAlign},
      {"l1_pull", v.l1Pull},
      {"l1_pair_stages", v.l1PairStages},
      {"l2_expert_blocks", v.l2ExpertBlocks},
      {"l1_cluster", v.l1Cluster},
      {"k_split", v.kSplit},
      {"wave_m_blocks", v.waveMBlocks},
      {"wave_lag", v.waveLag},
      // The variant's own schedule, or null: the plan's.
      {"schedule", v.schedule ? Json(toString(*v.schedule)) : Json(nullptr)},
      {"l1_block_n", v.l1BlockN},
      {"l2_block_n", v.l2BlockN},
      {"block_k", v.blockK},
      {"stages", v.stages},
      {"experts_per_wave", v.expertsPerWave},
      {"math_mode", toString(v.mathMode)},
      {"math_warpgroups", v.activeMathWarpgroups()},
      {"wgmma",
       {{"m", 64},
        {"l1_n", v.l1WarpgroupN()},
        {"l2_n", v.l2WarpgroupN()},
        {"k", 32}}},
      {"registers",
       {{"producer", v.registers.producer},
        {"math", v.registers.math},
        {"idle", v.registers.idle}}},
      {"smem_bytes", v.smemBytes}};
}

Json toJson(const Plan &p) {
  const RoleLayout &r = p.roles;
  Json roles = {
      {"threads", r.threads},
      {"dispatch_warps", {r.dispatchWarpBegin, r.dispatchWarpEnd}},
      {"tma_a_warp", r.tmaAWarp},
      {"tma_b_warp", r.tmaBWarp},
      {"math_warpgroups", {r.mathWarpgroupBegin, r.mathWarpgroupEnd}}};
  Json variants = Json::array();
  for (const Variant &v : p.variants)
    variants.push_back(toJson(v));
  return Json{{"chip", toString(p.chip)},
              {"num_sms", p.numSMs},
              {"schedule", toString(p.schedule)},
              {"roles", roles},
              {"entry_registers", p.entryRegisters},
              {"requant_block", p.requantBlock},
              {"pool_tokens", p.poolTokens},
              {"l1_weight_tiles", p.l1WeightTiles},
              {"variants", variants}};
}

Json toJsonLayout(const BufferLayout &l) {
  Json regions = Json::array();
  for (const Region &r : l.regions)
    regions.push_back(Json{{"name", r.name},
                           {"offset", r.offset},
                           {"bytes", r.bytes},
                           {"element", r.element},
                           {"shape", r.shape},
                           {"writer", r.writer}});
  return Json{{"alignment", BufferLayout::kAlignment},
              {"workspace_bytes", l.workspaceBytes},
              {"total_bytes", l.totalBytes},
              {"regions", regions}};
}

std::string withCommas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

} // namespace

std::string formatBytes(int64_t bytes) {
  char mib[32];
  std::snprintf(mib, sizeof(mib), "%.2f MiB", double(bytes) / (1 << 20));
  return withCommas(bytes) + " B (" + mib + ")";
}

std::string planToJson(const LayerConfig &c, const Plan &p, int indent) {
  Json j = {{"config", toJson(c)},
            {"plan", toJson(p)},
            {"buffer_layout", toJsonLayout(computeBufferLayout(c, p))}};
  return j.dump(indent);
}

std::string layoutToJson(const BufferLayout &layout, int indent) {
  return toJsonLayout(layout).dump(indent);
}

std::string planToText(const LayerConfig &c, const Plan &p) {
  std::ostringstream os;
  os << "layer: H=" << c.hidden << " I=" << c.intermediate << " E=" << c.experts
     << " K=" << c.topk << " R=" << c.ranks << " T=" << c.maxTokensPerRank
     << " chip=" << toString(c.chip) << " requant=" << c.recipe.requantBlock
     << "\n";
  if (buildsStageKernels(p.schedule)) {
    // One kernel per stage (docs/UnfusedSchedule.md), or the split
    // schedule's L1 + activation kernel in their place
    // (docs/SplitSchedule.md); the GEMM tiles per token-count bucket are
    // the plan's only choices.
    bool split = p.schedule == Schedule::Split;
    bool allFuse = split;
    bool allPull = true, anyPull = false;
    for (const Variant &v : p.variants) {
      allFuse = allFuse && splitFusesActivation(c, v);
      allPull = allPull && v.l1Pull;
      anyPull = anyPull || v.l1Pull;
    }
    // With l1-pull the L1 kernel fills the pool: no pull kernel.
    os << "plan: schedule=" << toString(p.schedule) << " sms=" << p.numSMs
       << " kernels: route, layout, "
       << (allPull ? "" : anyPull ? "pull (per variant), " : "pull, ")
       << (p.schedule == Schedule::FusedGemm
               ? "L1 grouped GEMM + SwiGLU + requant and L2 grouped GEMM + "
                 "combine scatter in one persistent kernel"
           : allFuse ? "L1 grouped GEMM + SwiGLU + requant, L2 grouped GEMM + "
                       "combine scatter"
           : split   ? "L1 grouped GEMM + SwiGLU + requant or L1 grouped "
                       "GEMM, activation (per variant), L2 grouped GEMM + "
                       "combine scatter"
                     : "L1 grouped GEMM, activation, L2 grouped GEMM + "
                       "combine scatter")
       << ", combine barrier, combine reduce\n";
    if (poolWraps(c, p))
      os << "pool: " << p.poolTokens << " rows (ring of the layout's "
         << poolLayoutRows(c, p)
         << " rows: the fused GEMM kernel's dispatch warps refill a slot "
            "once its L2 tiles are done)\n";
    else
      os << "pool: " << p.poolTokens << " rows (worst case, never wraps)\n";
    for (const Variant &v : p.variants)
      os << "variant tokens " << v.minTokens << ".." << v.maxTokens
         << (v.schedule ? std::string(" schedule=") + toString(*v.schedule) +
                              " (its own)"
                        : std::string())
         << ": grouped GEMMs BLOCK_M=" << v.blockM
         << (v.halfBlocks() ? " (experts padded to 64: half blocks)" : "")
         << " L1 BLOCK_N=" << v.l1BlockN << " L2 BLOCK_N=" << v.l2BlockN
         << " BLOCK_K=" << v.blockK << " stages="
         << (v.stages ? std::to_string(v.stages)
                      : std::string("as many as fit"))
         << " math=" << toString(v.mathMode)
         << " registers=" << v.registers.producer << "/" << v.registers.math
         << (scheduleOf(p, v) == Schedule::Split
                 ? (splitFusesActivation(c, v)
                        ? " L1+SwiGLU epilogue"
                        : " L1 then activation (splitFusesActivation)")
                 : "")
         << (v.l1Pull ? " l1-pull (the L1 kernel pulls its pool rows)" : "")
         << (v.l1PairStages ? " l1-pair-stages (an L1 pair is one BLOCK_N "
                              "256 mainloop pass)"
                            : "")
         << (v.l2ExpertBlocks ? " l2-expert-blocks (the L2 GEMM in 256-row "
                                "expert blocks)"
                              : "")
         << (v.l1Cluster ? " l1-cluster (the L1 kernel in clusters of 2, "
                           "an expert's m-blocks sharing its weight tiles)"
                         : "")
         << (v.kSplit > 1 ? " k-split=" + std::to_string(v.kSplit) +
                                " (the last wave's tiles split along K)"
                          : std::string())
         << (v.waveMBlocks > 0
                 ? " wave=" + std::to_string(v.waveMBlocks) +
                       " lag=" + std::to_string(v.waveLag) +
                       " (L1 and L2 tiles interleaved in waves of m-blocks)"
                 : std::string())
         << "\n";
    BufferLayout layout = computeBufferLayout(c, p);
    os << "symmetric buffer: " << formatBytes(layout.totalBytes)
       << ", workspace " << formatBytes(layout.workspaceBytes) << "\n";
    return os.str();
  }
  const RoleLayout &r = p.roles;
  os << "plan: schedule=" << toString(p.schedule) << " sms=" << p.numSMs
     << " threads=" << r.threads << " (warps " << r.dispatchWarpBegin << "-"
     << r.dispatchWarpEnd - 1 << " dispatch, warp " << r.tmaAWarp
     << " TMA-A, warp " << r.tmaBWarp << " TMA-B, warpgroups "
     << r.mathWarpgroupBegin << "-" << r.mathWarpgroupEnd - 1
     << " math) entry-registers=" << p.entryRegisters << "\n";
  os << "pool: " << p.poolTokens << " rows "
     << (poolWraps(c, p) ? "(ring)" : "(worst case, never wraps)") << "\n";
  for (const Variant &v : p.variants) {
    os << "variant tokens " << v.minTokens << ".." << v.maxTokens
       << ": BLOCK_M=" << v.blockM << " L1 BLOCK_N=" << v.l1BlockN
       << " L2 BLOCK_N=" << v.l2BlockN << " BLOCK_K=" << v.blockK
       << " stages=" << v.stages << " experts/wave=" << v.expertsPerWave
       << " math=" << toString(v.mathMode) << " (" << v.activeMathWarpgroups()
       << " WG, wgmma m64n" << v.l1WarpgroupN() << "/m64n" << v.l2WarpgroupN()
       << ") registers=" << v.registers.producer << "/" << v.registers.math
       << "/" << v.registers.idle << " smem=" << v.smemBytes << " B\n";
  }
  BufferLayout layout = computeBufferLayout(c, p);
  os << "symmetric buffer: " << formatBytes(layout.totalBytes) << ", workspace "
     << formatBytes(layout.workspaceBytes) << "\n";
  return os.str();
}

} // namespace megamoe::config
