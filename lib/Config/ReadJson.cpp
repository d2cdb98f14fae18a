//===- ReadJson.cpp - config and plan back from planToJson's output -------===//
//
// Built with or without C++ exceptions (the compiler uses -fno-exceptions):
// every access checks the type first, so nlohmann-json never throws.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/Print.h"

#include <nlohmann/json.hpp>

namespace megamoe::config {

namespace {

using Json = nlohmann::json;

/// Field readers that record what is wrong instead of throwing.
class Reader {
public:
  explicit Reader(std::vector<std::string> &errors) : errors(errors) {}

  const Json *member(const Json &object, const char *key,
                     const std::string &where) {
    if (!object.is_object()) {
      errors.push_back(where + " must be a JSON object");
      return nullptr;
    }
    auto it = object.find(key);
    if (it == object.end()) {
      errors.push_back(where + "." + key + " is missing");
      return nullptr;
    }
    return &*it;
  }

  void integer(const Json &object, const char *key, const std::string &where,
               int64_t &out) {
    const Json *v = member(object, key, where);
    if (!v)
      return;
    if (!v->is_number_integer()) {
      errors.push_back(where + "." + key + " must be an integer");
      return;
    }
    out = v->get<int64_t>();
  }

  void boolean(const Json &object, const char *key, const std::string &where,
               bool &out) {
    const Json *v = member(object, key, where);
    if (!v)
      return;
    if (!v->is_boolean()) {
      errors.push_back(where + "." + key + " must be true or false");
      return;
    }
    out = v->get<bool>();
  }

  template <typename T, typename Parse>
  void name(const Json &object, const char *key, const std::string &where,
            T &out, Parse parse) {
    const Json *v = member(object, key, where);
    if (!v)
      return;
    if (!v->is_string()) {
      errors.push_back(where + "." + key + " must be a string");
      return;
    }
    std::string text = v->get<std::string>();
    std::optional<T> parsed = parse(text);
    if (!parsed) {
      errors.push_back(where + "." + key + ": unknown value \"" + text + "\"");
      return;
    }
    out = *parsed;
  }

  void pair(const Json &object, const char *key, const std::string &where,
            int64_t &first, int64_t &second) {
    const Json *v = member(object, key, where);
    if (!v)
      return;
    if (!v->is_array() || v->size() != 2 || !(*v)[0].is_number_integer() ||
        !(*v)[1].is_number_integer()) {
      errors.push_back(where + "." + key + " must be [begin, end]");
      return;
    }
    first = (*v)[0].get<int64_t>();
    second = (*v)[1].get<int64_t>();
  }

private:
  std::vector<std::string> &errors;
};

void readConfig(Reader &r, const Json &j, LayerConfig &c) {
  const std::string w = "config";
  r.integer(j, "hidden", w, c.hidden);
  r.integer(j, "intermediate", w, c.intermediate);
  r.integer(j, "experts", w, c.experts);
  r.integer(j, "topk", w, c.topk);
  r.integer(j, "ranks", w, c.ranks);
  r.integer(j, "max_tokens_per_rank", w, c.maxTokensPerRank);
  r.name(j, "activation", w, c.activation, parseActivation);
  r.name(j, "chip", w, c.chip, parseChip);
  if (const Json *recipe = r.member(j, "recipe", w)) {
    const std::string rw = "config.recipe";
    r.name(*recipe, "activation", rw, c.recipe.activation, parseDType);
    r.name(*recipe, "weight", rw, c.recipe.weight, parseDType);
    r.name(*recipe, "output", rw, c.recipe.output, parseDType);
    r.integer(*recipe, "input_scale_block", rw, c.recipe.inputScaleBlock);
    r.integer(*recipe, "weight_scale_block", rw, c.recipe.weightScaleBlock);
    r.integer(*recipe, "requant_block", rw, c.recipe.requantBlock);
  }
  c.clamp.reset();
  auto clamp = j.is_object() ? j.find("clamp") : j.end();
  if (j.is_object() && clamp != j.end() && clamp->is_number())
    c.clamp = clamp->get<double>();
  auto fast = j.is_object() ? j.find("fast_math") : j.end();
  if (j.is_object() && fast != j.end() && fast->is_boolean())
    c.fastMath = fast->get<bool>();
}

void readVariant(Reader &r, const Json &j, const std::string &w, Variant &v) {
  r.integer(j, "min_tokens", w, v.minTokens);
  r.integer(j, "max_tokens", w, v.maxTokens);
  r.integer(j, "block_m", w, v.blockM);
  // Older plans have no expert_align: their segments are BLOCK_M-aligned.
  v.expertAlign = v.blockM;
  if (j.is_object() && j.contains("expert_align"))
    r.integer(j, "expert_align", w, v.expertAlign);
  // Older plans have no l1_pull: moe_pull fills the pool.
  v.l1Pull = false;
  if (j.is_object() && j.contains("l1_pull"))
    r.boolean(j, "l1_pull", w, v.l1Pull);
  // Older plans have no l1_pair_stages: two passes per L1 pair.
  v.l1PairStages = false;
  if (j.is_object() && j.contains("l1_pair_stages"))
    r.boolean(j, "l1_pair_stages", w, v.l1PairStages);
  // Older plans have no l2_expert_blocks: 128-row L2 m-blocks.
  v.l2ExpertBlocks = false;
  if (j.is_object() && j.contains("l2_expert_blocks"))
    r.boolean(j, "l2_expert_blocks", w, v.l2ExpertBlocks);
  // Older plans have no l1_cluster: one CTA per L1 tile.
  v.l1Cluster = false;
  if (j.is_object() && j.contains("l1_cluster"))
    r.boolean(j, "l1_cluster", w, v.l1Cluster);
  // Older plans have no k_split: no tile is split.
  v.kSplit = 1;
  if (j.is_object() && j.contains("k_split"))
    r.integer(j, "k_split", w, v.kSplit);
  // Older plans have no wave order: every L1 tile before every L2 tile.
  v.waveMBlocks = 0;
  v.waveLag = 1;
  if (j.is_object() && j.contains("wave_m_blocks"))
    r.integer(j, "wave_m_blocks", w, v.waveMBlocks);
  if (j.is_object() && j.contains("wave_lag"))
    r.integer(j, "wave_lag", w, v.waveLag);
  // Older plans and variants without one of their own: the plan's schedule.
  // (Read into a Schedule: Reader::name into the optional itself would wrap
  // an unknown name's nullopt as a value and report nothing.)
  v.schedule.reset();
  if (j.is_object() && j.contains("schedule") && !j["schedule"].is_null()) {
    Schedule own = Schedule::Unfused;
    r.name(j, "schedule", w, own, parseSchedule);
    v.schedule = own;
  }
  r.integer(j, "l1_block_n", w, v.l1BlockN);
  r.integer(j, "l2_block_n", w, v.l2BlockN);
  r.integer(j, "block_k", w, v.blockK);
  r.integer(j, "stages", w, v.stages);
  r.integer(j, "experts_per_wave", w, v.expertsPerWave);
  r.name(j, "math_mode", w, v.mathMode, parseMathMode);
  if (const Json *regs = r.member(j, "registers", w)) {
    r.integer(*regs, "producer", w + ".registers", v.registers.producer);
    r.integer(*regs, "math", w + ".registers", v.registers.math);
    r.integer(*regs, "idle", w + ".registers", v.registers.idle);
  }
  r.integer(j, "smem_bytes", w, v.smemBytes);
}

void readPlan(Reader &r, std::vector<std::string> &errors, const Json &j,
              Plan &p) {
  const std::string w = "plan";
  r.name(j, "chip", w, p.chip, parseChip);
  r.integer(j, "num_sms", w, p.numSMs);
  r.name(j, "schedule", w, p.schedule, parseSchedule);
  if (const Json *roles = r.member(j, "roles", w)) {
    const std::string rw = "plan.roles";
    r.integer(*roles, "threads", rw, p.roles.threads);
    r.pair(*roles, "dispatch_warps", rw, p.roles.dispatchWarpBegin,
           p.roles.dispatchWarpEnd);
    r.integer(*roles, "tma_a_warp", rw, p.roles.tmaAWarp);
    r.integer(*roles, "tma_b_warp", rw, p.roles.tmaBWarp);
    r.pair(*roles, "math_warpgroups", rw, p.roles.mathWarpgroupBegin,
           p.roles.mathWarpgroupEnd);
  }
  r.integer(j, "entry_registers", w, p.entryRegisters);
  r.integer(j, "requant_block", w, p.requantBlock);
  r.integer(j, "pool_tokens", w, p.poolTokens);
  // Older plans have no l1_weight_tiles: the row-major L1 weights.
  p.l1WeightTiles = false;
  if (j.is_object() && j.contains("l1_weight_tiles"))
    r.boolean(j, "l1_weight_tiles", w, p.l1WeightTiles);
  p.variants.clear();
  if (const Json *variants = r.member(j, "variants", w)) {
    if (!variants->is_array()) {
      errors.push_back("plan.variants must be an array");
      return;
    }
    for (size_t i = 0; i < variants->size(); ++i) {
      Variant v;
      readVariant(r, (*variants)[i], "plan.variants[" + std::to_string(i) + "]",
                  v);
      p.variants.push_back(v);
    }
  }
}

} // namespace

std::vector<std::string> planFromJson(const std::string &text,
                                      LayerConfig &config, Plan &plan) {
  std::vector<std::string> errors;
  Json j = Json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    errors.push_back("not valid JSON");
    return errors;
  }
  Reader r(errors);
  config = LayerConfig();
  plan = Plan();
  if (const Json *c = r.member(j, "config", "document"))
    readConfig(r, *c, config);
  if (const Json *p = r.member(j, "plan", "document"))
    readPlan(r, errors, *p, plan);
  return errors;
}

} // namespace megamoe::config
