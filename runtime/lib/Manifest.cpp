//===- Manifest.cpp - the compiler -> runtime manifest --------------------===//
#include "megamoe/runtime/Manifest.h"
#include "megamoe/runtime/Error.h"

#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Print.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

namespace megamoe::rt {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string &where, const std::string &what) {
  fail(ErrorKind::Manifest, "manifest: " + where + ": " + what);
}

const json &field(const json &obj, const std::string &where, const char *key) {
  if (!obj.is_object())
    bad(where, "expected an object");
  auto it = obj.find(key);
  if (it == obj.end())
    bad(where, std::string("missing field '") + key + "'");
  return *it;
}

std::string getString(const json &obj, const std::string &where,
                      const char *key) {
  const json &v = field(obj, where, key);
  if (!v.is_string())
    bad(where + "." + key, "expected a string");
  return v.get<std::string>();
}

int64_t getInt(const json &v, const std::string &where, int64_t lo,
               int64_t hi) {
  if (!v.is_number_integer())
    bad(where, "expected an integer");
  int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    bad(where, "value " + std::to_string(x) + " outside [" +
                   std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

/// Why a launch field is not of the accepted form, for the messages below.
std::string gotText(const json &v) {
  if (v.is_string())
    return "got the string \"" + v.get<std::string>() +
           "\" (manifests hold no expressions)";
  return "got " + v.dump();
}

/// Checks that object `v` at `where` has no key but `known`.
void onlyKeys(const json &v, const std::string &where,
              std::initializer_list<const char *> known) {
  for (auto it = v.begin(); it != v.end(); ++it) {
    bool ok = false;
    std::string names;
    for (const char *k : known) {
      ok |= it.key() == k;
      names += (names.empty() ? "" : ", ") + std::string(k);
    }
    if (!ok)
      bad(where, "unknown key '" + it.key() + "' (known: " + names + ")");
  }
}

/// A grid dimension: a positive integer, or {"ctas": "num_sms"} with an
/// optional "max": N (min(num_sms, N)) (docs/Manifest.md, "Launch shapes").
LaunchDim parseGridDim(const json &v, const std::string &where) {
  const char *form = "expected a positive integer or {\"ctas\": \"num_sms\"} "
                     "(optionally with \"max\": N)";
  if (v.is_number_integer())
    return LaunchDim::constant(getInt(v, where, 1, INT32_MAX));
  if (!v.is_object())
    bad(where, std::string(form) + ", " + gotText(v));
  onlyKeys(v, where, {"ctas", "max"});
  auto ctas = v.find("ctas");
  if (ctas == v.end() || !ctas->is_string() || *ctas != "num_sms")
    bad(where, std::string(form) + ", " + gotText(v));
  auto max = v.find("max");
  return LaunchDim::numSms(
      max == v.end() ? 0 : getInt(*max, where + ".max", 1, INT32_MAX));
}

/// A TMA dimension or stride: a positive integer, or {"symbol": S} with an
/// optional "times": N, S one of `runtimeSymbols`.
LaunchDim parseShapeDim(const json &v, const std::string &where,
                        const std::vector<std::string> &runtimeSymbols) {
  const char *form = "expected a positive integer or {\"symbol\": NAME} "
                     "(optionally with \"times\": N)";
  if (v.is_number_integer())
    return LaunchDim::constant(getInt(v, where, 1, INT64_MAX));
  if (!v.is_object())
    bad(where, std::string(form) + ", " + gotText(v));
  onlyKeys(v, where, {"symbol", "times"});
  auto symbol = v.find("symbol");
  if (symbol == v.end() || !symbol->is_string())
    bad(where, std::string(form) + ", " + gotText(v));
  std::string name = symbol->get<std::string>();
  std::string listed;
  bool known = false;
  for (const std::string &s : runtimeSymbols) {
    known |= s == name;
    listed += (listed.empty() ? "" : ", ") + s;
  }
  if (!known)
    bad(where, "'" + name + "' is not a runtime symbol of this manifest " +
                   (listed.empty() ? std::string("(it lists none)")
                                   : "(runtime_symbols: " + listed + ")"));
  auto times = v.find("times");
  return LaunchDim::times(
      name,
      times == v.end() ? 1 : getInt(*times, where + ".times", 1, INT32_MAX));
}

template <typename Enum>
Enum getEnum(const json &obj, const std::string &where, const char *key,
             std::initializer_list<std::pair<const char *, Enum>> names,
             std::optional<Enum> dflt = std::nullopt) {
  if (dflt && !obj.contains(key))
    return *dflt;
  std::string s = getString(obj, where, key);
  std::string known;
  for (auto &[n, e] : names) {
    if (s == n)
      return e;
    known += known.empty() ? n : std::string(" | ") + n;
  }
  bad(where + "." + key, "unknown value '" + s + "' (known: " + known + ")");
}

const json &getArray(const json &obj, const std::string &where, const char *key,
                     std::optional<size_t> size) {
  const json &v = field(obj, where, key);
  if (!v.is_array())
    bad(where + "." + key, "expected an array");
  if (size && v.size() != *size)
    bad(where + "." + key, "expected " + std::to_string(*size) +
                               " entries, got " + std::to_string(v.size()));
  return v;
}

TmaSpec parseTma(const json &j, const std::string &where,
                 const std::vector<std::string> &runtimeSymbols) {
  TmaSpec t;
  t.name = getString(j, where, "name");
  std::string dtype = getString(j, where, "dtype");
  std::optional<DType> type = config::parseDType(dtype);
  if (!type)
    bad(where + ".dtype",
        "unknown element type '" + dtype +
            "' (known: e4m3, e5m2, bf16, f16, f32, u8, i32, u32, i64, u64)");
  t.dtype = *type;
  t.rank = (unsigned)getInt(field(j, where, "rank"), where + ".rank", 1, 5);
  const json &shape = getArray(j, where, "global_shape", t.rank);
  for (size_t i = 0; i < shape.size(); ++i)
    t.globalShape.push_back(parseShapeDim(
        shape[i], where + ".global_shape[" + std::to_string(i) + "]",
        runtimeSymbols));
  const json &strides = getArray(j, where, "global_strides_bytes", t.rank - 1);
  for (size_t i = 0; i < strides.size(); ++i)
    t.globalStridesBytes.push_back(parseShapeDim(
        strides[i], where + ".global_strides_bytes[" + std::to_string(i) + "]",
        runtimeSymbols));
  for (auto &e : getArray(j, where, "box", t.rank))
    t.box.push_back((uint32_t)getInt(e, where + ".box", 1, 256));
  if (j.contains("element_strides")) {
    for (auto &e : getArray(j, where, "element_strides", t.rank))
      t.elementStrides.push_back(
          (uint32_t)getInt(e, where + ".element_strides", 1, 8));
  } else {
    t.elementStrides.assign(t.rank, 1);
  }
  t.swizzle = getEnum<Swizzle>(j, where, "swizzle",
                               {{"none", Swizzle::None},
                                {"32B", Swizzle::B32},
                                {"64B", Swizzle::B64},
                                {"128B", Swizzle::B128}},
                               Swizzle::None);
  t.interleave = getEnum<Interleave>(j, where, "interleave",
                                     {{"none", Interleave::None},
                                      {"16B", Interleave::B16},
                                      {"32B", Interleave::B32}},
                                     Interleave::None);
  t.l2Promotion = getEnum<L2Promotion>(j, where, "l2_promotion",
                                       {{"none", L2Promotion::None},
                                        {"64B", L2Promotion::B64},
                                        {"128B", L2Promotion::B128},
                                        {"256B", L2Promotion::B256}},
                                       L2Promotion::None);
  t.oobFill = getEnum<OobFill>(j, where, "oob_fill",
                               {{"zero", OobFill::Zero}, {"nan", OobFill::NaN}},
                               OobFill::Zero);
  return t;
}

/// A bind can fill only some parameter kinds: addresses go to pointers and
/// TMA descriptors, the peer table to a pointer, values to integers.
void checkBindFitsKind(const ParamSpec &p, const std::string &where) {
  bool address =
      p.kind == ParamKind::Pointer || p.kind == ParamKind::TmaDescriptor;
  bool integer = p.kind == ParamKind::I32 || p.kind == ParamKind::I64 ||
                 p.kind == ParamKind::U32 || p.kind == ParamKind::U64;
  bool ok = true;
  const char *want = "";
  switch (p.bind.kind) {
  case BindKind::None:
    return;
  case BindKind::Region:
  case BindKind::Input:
    ok = address;
    want = "a pointer or tma_descriptor parameter";
    break;
  case BindKind::PeerOffsets:
  case BindKind::Profile:
    ok = p.kind == ParamKind::Pointer;
    want = "a pointer parameter";
    break;
  case BindKind::Value:
    ok = integer;
    want = "an integer (i32, i64, u32, u64) parameter";
    break;
  }
  if (!ok)
    bad(where, "'" + bindString(p.bind) + "' cannot fill parameter '" + p.name +
                   "' of kind " + paramKindName(p.kind) + "; it needs " + want);
}

/// Checks that the kernel names of a schedule at `where` can be launched from
/// the manifest: each is a kernel whose parameters all have a bind.
void checkScheduleKernels(const Manifest &m,
                          const std::vector<std::string> &names,
                          const std::string &where) {
  for (size_t i = 0; i < names.size(); ++i) {
    std::string w = where + "[" + std::to_string(i) + "]";
    const KernelSpec *k = m.findKernel(names[i]);
    if (!k)
      bad(w, "'" + names[i] + "' is not a kernel of this manifest");
    for (const ParamSpec &p : k->params)
      if (p.bind.kind == BindKind::None)
        bad(w, "kernel '" + k->name + "' parameter '" + p.name +
                   "' has no bind; the runtime cannot launch it from the "
                   "manifest");
  }
}

/// Checks what needs the whole manifest: bound regions exist, the schedules
/// name kernels whose parameters are all bound.
void checkBindsAndSchedule(const Manifest &m) {
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const KernelSpec &k = m.kernels[i];
    for (size_t j = 0; j < k.params.size(); ++j) {
      const ParamSpec &p = k.params[j];
      if (p.bind.kind == BindKind::Profile && m.profileBytes == 0)
        bad("kernels[" + std::to_string(i) + "].params[" + std::to_string(j) +
                "].bind",
            "'profile' needs the manifest's \"profile\" with its bytes");
      if (p.bind.kind != BindKind::Region)
        continue;
      std::string w = "kernels[" + std::to_string(i) + "].params[" +
                      std::to_string(j) + "].bind";
      if (!m.bufferLayout)
        bad(w, "'" + bindString(p.bind) +
                   "' needs a buffer_layout, and the manifest has none");
      if (!m.bufferLayout->find(p.bind.name))
        bad(w, "region '" + p.bind.name + "' (kernel '" + k.name +
                   "', parameter '" + p.name + "') is not in buffer_layout");
    }
  }
  checkScheduleKernels(m, m.schedule, "schedule");
  for (size_t i = 0; i < m.variants.size(); ++i)
    checkScheduleKernels(m, m.variants[i].schedule,
                         "variants[" + std::to_string(i) + "].schedule");
}

/// A list of kernel names (a "schedule" array) at `where`.
std::vector<std::string> parseKernelNames(const json &j,
                                          const std::string &where) {
  if (!j.is_array())
    bad(where, "expected an array of kernel names");
  if (j.empty())
    bad(where, "empty (omit it or list the kernels in launch order)");
  std::vector<std::string> names;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string())
      bad(where + "[" + std::to_string(i) + "]", "expected a kernel name");
    names.push_back(j[i].get<std::string>());
  }
  return names;
}

/// "variants": token ranges that start at 0, follow each other without gap
/// or overlap and end at the symbol T, so every num_tokens in [0, T] selects
/// exactly one.
std::vector<ScheduleVariant> parseVariants(const json &j,
                                           const SymbolTable &symbols) {
  if (!j.is_array())
    bad("variants", "expected an array of {min_tokens, max_tokens, "
                    "block_m, schedule} objects");
  if (j.empty())
    bad("variants", "empty (a layer needs at least one variant)");
  auto t = symbols.find("T");
  if (t == symbols.end())
    bad("variants", "the manifest has no symbol T (max tokens per rank), "
                    "which the token ranges must cover");
  std::vector<ScheduleVariant> out;
  for (size_t i = 0; i < j.size(); ++i) {
    std::string w = "variants[" + std::to_string(i) + "]";
    ScheduleVariant v;
    v.minTokens =
        getInt(field(j[i], w, "min_tokens"), w + ".min_tokens", 0, INT64_MAX);
    v.maxTokens =
        getInt(field(j[i], w, "max_tokens"), w + ".max_tokens", 0, INT64_MAX);
    v.blockM = getInt(field(j[i], w, "block_m"), w + ".block_m", 1, 1024);
    v.schedule = parseKernelNames(field(j[i], w, "schedule"), w + ".schedule");
    int64_t expectedMin = i == 0 ? 0 : out.back().maxTokens + 1;
    if (v.minTokens != expectedMin)
      bad(w + ".min_tokens",
          std::to_string(v.minTokens) + ", expected " +
              std::to_string(expectedMin) +
              (i == 0 ? " (the first range starts at 0 tokens)"
                      : " (the ranges must be ascending and contiguous: "
                        "variants[" +
                            std::to_string(i - 1) + "] ends at " +
                            std::to_string(out.back().maxTokens) + ")"));
    if (v.maxTokens < v.minTokens)
      bad(w + ".max_tokens", std::to_string(v.maxTokens) +
                                 " is below min_tokens " +
                                 std::to_string(v.minTokens));
    if (v.maxTokens > t->second)
      bad(w + ".max_tokens", std::to_string(v.maxTokens) +
                                 " is past T = " + std::to_string(t->second));
    out.push_back(std::move(v));
  }
  if (out.back().maxTokens != t->second)
    bad("variants[" + std::to_string(out.size() - 1) + "].max_tokens",
        std::to_string(out.back().maxTokens) +
            ": the last range must end at T = " + std::to_string(t->second));
  return out;
}

KernelSpec parseKernel(const json &j, const std::string &where,
                       const std::vector<std::string> &runtimeSymbols) {
  KernelSpec k;
  k.name = getString(j, where, "name");
  const json &block = getArray(j, where, "block", 3);
  for (int i = 0; i < 3; ++i)
    k.block[i] = (uint32_t)getInt(block[i], where + ".block", 1, 1024);
  if ((uint64_t)k.block[0] * k.block[1] * k.block[2] > 1024)
    bad(where + ".block", "more than 1024 threads per block");
  const json &grid = getArray(j, where, "grid", 3);
  for (int i = 0; i < 3; ++i)
    k.grid[i] =
        parseGridDim(grid[i], where + ".grid[" + std::to_string(i) + "]");
  if (j.contains("cluster")) {
    const json &cluster = getArray(j, where, "cluster", 3);
    for (int i = 0; i < 3; ++i)
      k.cluster[i] = (uint32_t)getInt(cluster[i], where + ".cluster", 1, 16);
  }
  if (j.contains("dynamic_smem_bytes"))
    k.dynamicSmemBytes =
        (uint32_t)getInt(j["dynamic_smem_bytes"], where + ".dynamic_smem_bytes",
                         0, int64_t(1) << 30);
  if (j.contains("max_registers"))
    k.maxRegisters =
        (uint32_t)getInt(j["max_registers"], where + ".max_registers", 0, 255);
  if (j.contains("programmatic_launch")) {
    if (!j["programmatic_launch"].is_boolean())
      bad(where + ".programmatic_launch", "must be true or false");
    k.programmaticLaunch = j["programmatic_launch"].get<bool>();
  }
  const json &tmas = j.contains("tma_descriptors")
                         ? getArray(j, where, "tma_descriptors", std::nullopt)
                         : json::array();
  std::set<std::string> tmaNames;
  for (size_t i = 0; i < tmas.size(); ++i) {
    TmaSpec t =
        parseTma(tmas[i], where + ".tma_descriptors[" + std::to_string(i) + "]",
                 runtimeSymbols);
    if (!tmaNames.insert(t.name).second)
      bad(where + ".tma_descriptors", "duplicate name '" + t.name + "'");
    k.tmaDescriptors.push_back(std::move(t));
  }
  const json &params = getArray(j, where, "params", std::nullopt);
  std::set<std::string> paramNames;
  for (size_t i = 0; i < params.size(); ++i) {
    std::string w = where + ".params[" + std::to_string(i) + "]";
    ParamSpec p;
    p.name = getString(params[i], w, "name");
    p.kind = getEnum<ParamKind>(params[i], w, "kind",
                                {{"pointer", ParamKind::Pointer},
                                 {"i32", ParamKind::I32},
                                 {"i64", ParamKind::I64},
                                 {"u32", ParamKind::U32},
                                 {"u64", ParamKind::U64},
                                 {"f32", ParamKind::F32},
                                 {"tma_descriptor", ParamKind::TmaDescriptor}});
    if (p.kind == ParamKind::TmaDescriptor) {
      p.tma = getString(params[i], w, "tma");
      if (!k.findTma(p.tma))
        bad(w + ".tma", "no TMA descriptor named '" + p.tma + "' in " + where +
                            ".tma_descriptors");
    }
    if (params[i].contains("bind")) {
      const json &b = params[i]["bind"];
      if (!b.is_string())
        bad(w + ".bind", "expected a string");
      p.bind = parseBind(b.get<std::string>(), "manifest: " + w + ".bind");
      checkBindFitsKind(p, w + ".bind");
    }
    if (!paramNames.insert(p.name).second)
      bad(where + ".params", "duplicate parameter name '" + p.name + "'");
    k.params.push_back(std::move(p));
  }
  return k;
}

BufferLayout parseBufferLayout(const json &j) {
  const std::string where = "buffer_layout";
  BufferLayout layout;
  layout.totalBytes = (uint64_t)getInt(field(j, where, "total_bytes"),
                                       where + ".total_bytes", 0, INT64_MAX);
  if (j.contains("workspace_bytes"))
    layout.workspaceBytes =
        (uint64_t)getInt(j["workspace_bytes"], where + ".workspace_bytes", 0,
                         (int64_t)layout.totalBytes);
  const json &regions = getArray(j, where, "regions", std::nullopt);
  for (size_t i = 0; i < regions.size(); ++i) {
    std::string w = where + ".regions[" + std::to_string(i) + "]";
    BufferRegion r;
    r.name = getString(regions[i], w, "name");
    r.offset = (uint64_t)getInt(field(regions[i], w, "offset"), w + ".offset",
                                0, INT64_MAX);
    r.bytes = (uint64_t)getInt(field(regions[i], w, "bytes"), w + ".bytes", 0,
                               INT64_MAX);
    if (r.offset + r.bytes > layout.totalBytes)
      bad(w, "region '" + r.name + "' [" + std::to_string(r.offset) + ", " +
                 std::to_string(r.offset + r.bytes) +
                 ") ends past total_bytes " +
                 std::to_string(layout.totalBytes));
    if (layout.find(r.name))
      bad(w, "duplicate region name '" + r.name + "'");
    layout.regions.push_back(std::move(r));
  }
  return layout;
}

/// "config" and "plan": read with the compiler's reader, then checked
/// against everything else the manifest says about the layer, so that a
/// manifest whose parts disagree is rejected before any launch.
void parsePlan(Manifest &m, const std::string &planText) {
  config::LayerConfig c;
  config::Plan p;
  std::vector<std::string> problems = config::planFromJson(planText, c, p);
  if (!problems.empty())
    bad(problems.front().rfind("config", 0) == 0 ? "config" : "plan",
        problems.front());
  problems = config::validate(c);
  if (!problems.empty())
    bad("config", problems.front());
  problems = config::validatePlan(c, p);
  if (!problems.empty())
    bad("plan", problems.front());
  if (config::toString(c.chip) != m.chip)
    bad("config.chip", std::string(config::toString(c.chip)) +
                           " but the manifest's chip is " + m.chip);

  // The buffer layout is a function of (config, plan): the one the manifest
  // lists must be that function's result.
  if (!m.bufferLayout)
    bad("buffer_layout", "missing; a manifest with a plan has the layout "
                         "computeBufferLayout(config, plan) gives");
  config::BufferLayout want = config::computeBufferLayout(c, p);
  const BufferLayout &got = *m.bufferLayout;
  auto mismatch = [&](const std::string &field, int64_t w, uint64_t g) {
    bad("buffer_layout." + field,
        std::to_string(g) + " but computeBufferLayout(config, plan) gives " +
            std::to_string(w));
  };
  if ((uint64_t)want.totalBytes != got.totalBytes)
    mismatch("total_bytes", want.totalBytes, got.totalBytes);
  if ((uint64_t)want.workspaceBytes != got.workspaceBytes)
    mismatch("workspace_bytes", want.workspaceBytes, got.workspaceBytes);
  if (want.regions.size() != got.regions.size())
    mismatch("regions (count)", want.regions.size(), got.regions.size());
  for (size_t i = 0; i < want.regions.size(); ++i) {
    const config::Region &w = want.regions[i];
    const BufferRegion &g = got.regions[i];
    std::string where = "regions[" + std::to_string(i) + "]";
    if (w.name != g.name)
      bad("buffer_layout." + where, "'" + g.name + "' but computeBufferLayout "
                                    "gives '" + w.name + "'");
    if ((uint64_t)w.offset != g.offset)
      mismatch(where + ".offset", w.offset, g.offset);
    if ((uint64_t)w.bytes != g.bytes)
      mismatch(where + ".bytes", w.bytes, g.bytes);
  }

  // The variants the manifest schedules are the plan's.
  if (!m.variants.empty()) {
    if (m.variants.size() != p.variants.size())
      bad("variants", std::to_string(m.variants.size()) +
                          " variants but the plan has " +
                          std::to_string(p.variants.size()));
    for (size_t i = 0; i < p.variants.size(); ++i) {
      const ScheduleVariant &v = m.variants[i];
      const config::Variant &w = p.variants[i];
      if (v.minTokens != w.minTokens || v.maxTokens != w.maxTokens ||
          v.blockM != w.blockM)
        bad("variants[" + std::to_string(i) + "]",
            "[" + std::to_string(v.minTokens) + ", " +
                std::to_string(v.maxTokens) + "] block_m " +
                std::to_string(v.blockM) + " but the plan's variant is [" +
                std::to_string(w.minTokens) + ", " +
                std::to_string(w.maxTokens) + "] block_m " +
                std::to_string(w.blockM));
    }
  } else if (!m.schedule.empty() && p.variants.size() != 1) {
    bad("schedule", "one schedule but the plan has " +
                        std::to_string(p.variants.size()) + " variants");
  }

  // The short symbols of a layer schedule name the config.
  const std::pair<const char *, int64_t> shortNames[] = {
      {"H", c.hidden}, {"I", c.intermediate}, {"E", c.experts},
      {"K", c.topk},   {"R", c.ranks},        {"T", c.maxTokensPerRank}};
  for (auto &[name, value] : shortNames) {
    auto it = m.symbols.find(name);
    if (it != m.symbols.end() && it->second != value)
      bad(std::string("symbols.") + name,
          std::to_string(it->second) + " but config gives " +
              std::to_string(value));
  }
  m.config = c;
  m.plan = p;
}

} // namespace

const char *paramKindName(ParamKind k) {
  switch (k) {
  case ParamKind::Pointer:
    return "pointer";
  case ParamKind::I32:
    return "i32";
  case ParamKind::I64:
    return "i64";
  case ParamKind::U32:
    return "u32";
  case ParamKind::U64:
    return "u64";
  case ParamKind::F32:
    return "f32";
  case ParamKind::TmaDescriptor:
    return "tma_descriptor";
  }
  return "?";
}

ParamBind parseBind(const std::string &text, const std::string &where) {
  auto oneOf = [&](const std::string &name, const char *const *names, size_t n,
                   const char *what) {
    std::string known;
    for (size_t i = 0; i < n; ++i) {
      if (name == names[i])
        return;
      known += (i ? ", " : "") + std::string(names[i]);
    }
    fail(ErrorKind::Manifest, where + ": unknown " + what + " '" + name +
                                  "' in '" + text + "' (known: " + known + ")");
  };
  ParamBind b;
  size_t colon = text.find(':');
  std::string kind = text.substr(0, colon);
  b.name = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kind == "peer_offsets" && colon == std::string::npos) {
    b.kind = BindKind::PeerOffsets;
  } else if (kind == "profile" && colon == std::string::npos) {
    b.kind = BindKind::Profile;
  } else if (kind == "region" && !b.name.empty()) {
    b.kind = BindKind::Region;
  } else if (kind == "input" && colon != std::string::npos) {
    b.kind = BindKind::Input;
    oneOf(b.name, kBindInputs, std::size(kBindInputs), "input");
  } else if (kind == "value" && colon != std::string::npos) {
    b.kind = BindKind::Value;
    oneOf(b.name, kBindValues, std::size(kBindValues), "value");
  } else {
    fail(ErrorKind::Manifest,
         where + ": unknown bind '" + text +
             "' (known: region:NAME, peer_offsets, input:NAME, value:NAME, "
             "profile)");
  }
  return b;
}

std::string bindString(const ParamBind &b) {
  switch (b.kind) {
  case BindKind::None:
    return "";
  case BindKind::Region:
    return "region:" + b.name;
  case BindKind::PeerOffsets:
    return "peer_offsets";
  case BindKind::Profile:
    return "profile";
  case BindKind::Input:
    return "input:" + b.name;
  case BindKind::Value:
    return "value:" + b.name;
  }
  return "";
}

const TmaSpec *KernelSpec::findTma(const std::string &n) const {
  for (const TmaSpec &t : tmaDescriptors)
    if (t.name == n)
      return &t;
  return nullptr;
}

const BufferRegion *BufferLayout::find(const std::string &n) const {
  for (const BufferRegion &r : regions)
    if (r.name == n)
      return &r;
  return nullptr;
}

const KernelSpec *Manifest::findKernel(const std::string &n) const {
  for (const KernelSpec &k : kernels)
    if (k.name == n)
      return &k;
  return nullptr;
}

std::vector<ScheduleVariant> Manifest::scheduleVariants() const {
  if (!variants.empty() || schedule.empty())
    return variants;
  ScheduleVariant v;
  v.schedule = schedule;
  if (plan) { // parseManifest checked: the plan has this one variant
    v.minTokens = plan->variants.front().minTokens;
    v.maxTokens = plan->variants.front().maxTokens;
    v.blockM = plan->variants.front().blockM;
    return {v};
  }
  auto t = symbols.find("T");
  v.maxTokens = t == symbols.end() ? INT64_MAX : t->second;
  auto bm = symbols.find("BM");
  v.blockM = bm == symbols.end() ? 0 : bm->second;
  return {v};
}

std::string Manifest::cubinPath() const {
  if (directory.empty() || (!cubin.empty() && cubin[0] == '/'))
    return cubin;
  return directory + "/" + cubin;
}

Manifest parseManifest(const std::string &jsonText,
                       const std::string &directory) {
  json j;
  try {
    j = json::parse(jsonText, nullptr, /*allow_exceptions=*/true,
                    /*ignore_comments=*/true);
  } catch (const json::exception &e) {
    // parse_error, and out_of_range for a number beyond double (1E999).
    fail(ErrorKind::Manifest,
         std::string("manifest: not valid JSON: ") + e.what());
  }
  const std::string top = "manifest";
  if (getString(j, top, "format") != "megamoe-manifest")
    bad("format", "expected \"megamoe-manifest\", got \"" +
                      j["format"].get<std::string>() + "\"");
  Manifest m;
  m.directory = directory;
  m.version = (int)getInt(field(j, top, "version"), "version", 0, INT32_MAX);
  if (m.version != 2)
    bad("version", "this runtime reads schema version 2, the manifest has " +
                       std::to_string(m.version));
  m.chip = getString(j, top, "chip");
  m.cubin = getString(j, top, "cubin");
  if (j.contains("ptx") && j["ptx"].is_string())
    m.ptx = j["ptx"].get<std::string>();
  if (j.contains("symbols")) {
    const json &syms = j["symbols"];
    if (!syms.is_object())
      bad("symbols", "expected an object of name: integer");
    for (auto it = syms.begin(); it != syms.end(); ++it)
      m.symbols[it.key()] =
          getInt(it.value(), "symbols." + it.key(), INT64_MIN, INT64_MAX);
  }
  if (j.contains("runtime_symbols")) {
    for (auto &s : getArray(j, top, "runtime_symbols", std::nullopt)) {
      if (!s.is_string())
        bad("runtime_symbols", "expected strings");
      std::string name = s.get<std::string>();
      if (m.symbols.count(name))
        bad("runtime_symbols", "'" + name + "' is also a compile-time symbol");
      m.runtimeSymbols.push_back(name);
    }
  }
  const json &kernels = getArray(j, top, "kernels", std::nullopt);
  if (kernels.empty())
    bad("kernels", "the manifest lists no kernel");
  for (size_t i = 0; i < kernels.size(); ++i) {
    KernelSpec k = parseKernel(kernels[i], "kernels[" + std::to_string(i) + "]",
                               m.runtimeSymbols);
    if (m.findKernel(k.name))
      bad("kernels", "duplicate kernel name '" + k.name + "'");
    m.kernels.push_back(std::move(k));
  }
  if (j.contains("buffer_layout") && !j["buffer_layout"].is_null())
    m.bufferLayout = parseBufferLayout(j["buffer_layout"]);
  if (j.contains("profile") && !j["profile"].is_null()) {
    const json &p = j["profile"];
    if (!p.is_object() || !p.contains("bytes") ||
        !p["bytes"].is_number_unsigned() || p["bytes"].get<uint64_t>() == 0)
      bad("profile", "expected an object with a positive integer \"bytes\"");
    m.profileBytes = p["bytes"].get<uint64_t>();
  }
  bool hasSchedule = j.contains("schedule") && !j["schedule"].is_null();
  bool hasVariants = j.contains("variants") && !j["variants"].is_null();
  if (hasSchedule && hasVariants)
    bad("variants", "the manifest has both \"schedule\" and \"variants\"; "
                    "a layer gives one of them");
  if (hasSchedule)
    m.schedule = parseKernelNames(j["schedule"], "schedule");
  if (hasVariants)
    m.variants = parseVariants(j["variants"], m.symbols);
  checkBindsAndSchedule(m);
  bool hasConfig = j.contains("config") && !j["config"].is_null();
  bool hasPlan = j.contains("plan") && !j["plan"].is_null();
  if (hasConfig != hasPlan)
    bad(hasConfig ? "plan" : "config",
        "missing; a layer manifest has both \"config\" and \"plan\"");
  if (hasPlan)
    parsePlan(m, json{{"config", j["config"]}, {"plan", j["plan"]}}.dump());
  return m;
}

std::string readFileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(ErrorKind::Io, "cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    fail(ErrorKind::Io, "cannot read '" + path + "'");
  return ss.str();
}

Manifest loadManifestFile(const std::string &path) {
  std::string text = readFileBytes(path);
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  return parseManifest(text, dir);
}

} // namespace megamoe::rt
