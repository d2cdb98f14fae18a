//===- ScheduleTest.cpp - binds, schedules and their resolution -----------===//
//
// The fixture layer manifest of TestManifest.h, edited: binds, schedules,
// variants and their resolution for one rank.
//
//===----------------------------------------------------------------------===//
#include "megamoe/runtime/Schedule.h"
#include "TestManifest.h"
#include "TestUtil.h"
#include "megamoe/runtime/LayerContract.h"
#include "megamoe/runtime/Manifest.h"

using namespace megamoe::rt;

namespace {

// The fixture layer (TestManifest.h) with one schedule, T = 64.
const std::string kLayer = testmanifest::layerManifest(
    R"({"H": 256, "I": 128, "E": 4, "K": 2, "R": 2, "T": 64, "L": 2,
              "P": 256, "BM": 128})",
    R"("schedule": ["moe_route", "moe_l1_gemm", "moe_combine_barrier"],)",
    {testmanifest::barrierKernel(), testmanifest::routeKernel(),
     testmanifest::gemmKernel("moe_l1_gemm", 128)});

/// kLayer with the first match of `from` replaced by `to`.
std::string edited(const std::string &from, const std::string &to) {
  std::string s = kLayer;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

LayerConfig config() { return testmanifest::layerConfig(64); }

/// The launches of a single-schedule layer, in order.
std::vector<PlannedKernel> planSchedule(const Manifest &m, const LayerConfig &c,
                                        const ScheduleEnv &e) {
  PlannedLayer plan = planLayer(m, c, e);
  EXPECT_EQ(plan.variants.size(), 1u);
  return plan.launchOrder(0);
}

ScheduleEnv env() {
  ScheduleEnv e;
  e.symmBase = 0x7f0000000000;
  e.peerOffsets = 0x7e0000000000;
  e.rank = 1;
  e.numSms = 132;
  return e;
}

TEST(Bind, ParsesEveryKind) {
  ParamBind b = parseBind("region:l1_pool", "w");
  EXPECT_EQ(b.kind, BindKind::Region);
  EXPECT_EQ(b.name, "l1_pool");
  EXPECT_EQ(parseBind("peer_offsets", "w").kind, BindKind::PeerOffsets);
  b = parseBind("input:l2_scale", "w");
  EXPECT_EQ(b.kind, BindKind::Input);
  EXPECT_EQ(b.name, "l2_scale");
  b = parseBind("value:num_tokens", "w");
  EXPECT_EQ(b.kind, BindKind::Value);
  EXPECT_EQ(bindString(b), "value:num_tokens");
}

TEST(Bind, RejectsUnknownKindsAndNames) {
  EXPECT_RT_ERROR(parseBind("symbol:H", "p"), ErrorKind::Manifest,
                  "p: unknown bind 'symbol:H' (known: region:NAME");
  EXPECT_RT_ERROR(parseBind("region:", "p"), ErrorKind::Manifest,
                  "unknown bind 'region:'");
  EXPECT_RT_ERROR(parseBind("peer_offsets:x", "p"), ErrorKind::Manifest,
                  "unknown bind");
  EXPECT_RT_ERROR(parseBind("input:x", "p"), ErrorKind::Manifest,
                  "unknown input 'x' in 'input:x' (known: l1_weight, "
                  "l1_scale, l2_weight, l2_scale, y)");
  EXPECT_RT_ERROR(parseBind("value:num_sms", "p"), ErrorKind::Manifest,
                  "unknown value 'num_sms' in 'value:num_sms' (known: "
                  "num_tokens, rank)");
}

TEST(Manifest, ParsesScheduleAndBinds) {
  Manifest m = parseManifest(kLayer);
  ASSERT_EQ(m.schedule.size(), 3u);
  EXPECT_EQ(m.schedule[0], "moe_route");
  EXPECT_EQ(m.schedule[2], "moe_combine_barrier");
  const KernelSpec *k = m.findKernel("moe_l1_gemm");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->params[0].bind.kind, BindKind::Region);
  EXPECT_EQ(k->params[0].bind.name, "l1_pool");
  EXPECT_EQ(k->params[1].bind.kind, BindKind::Input);
  // No schedule, no bind: the grouped GEMM's manifests stay valid.
  Manifest plain = parseManifest(edited(
      R"("schedule": ["moe_route", "moe_l1_gemm", "moe_combine_barrier"],)",
      ""));
  EXPECT_TRUE(plain.schedule.empty());
}

TEST(Manifest, RejectsBadSchedules) {
  EXPECT_RT_ERROR(parseManifest(edited("\"moe_l1_gemm\", \"moe_combine",
                                       "\"moe_l1_gem\", \"moe_combine")),
                  ErrorKind::Manifest,
                  "schedule[1]: 'moe_l1_gem' is not a kernel of this manifest");
  EXPECT_RT_ERROR(
      parseManifest(edited(
          R"(["moe_route", "moe_l1_gemm", "moe_combine_barrier"])", "[]")),
      ErrorKind::Manifest, "schedule: empty");
  EXPECT_RT_ERROR(parseManifest(edited("\"moe_route\", \"moe_l1", "7, \"x")),
                  ErrorKind::Manifest, "schedule[0]: expected a kernel name");
  // A scheduled kernel with an unbound parameter cannot be launched.
  EXPECT_RT_ERROR(
      parseManifest(edited(R"(, "bind": "value:num_tokens")", "")),
      ErrorKind::Manifest,
      "schedule[0]: kernel 'moe_route' parameter 'num_tokens' has no bind");
}

TEST(Manifest, RejectsBadBinds) {
  EXPECT_RT_ERROR(parseManifest(edited("\"region:errors\"", "\"errors\"")),
                  ErrorKind::Manifest,
                  "kernels[1].params[1].bind: unknown bind 'errors'");
  EXPECT_RT_ERROR(parseManifest(edited("\"region:errors\"", "7")),
                  ErrorKind::Manifest,
                  "kernels[1].params[1].bind: expected a string");
  EXPECT_RT_ERROR(
      parseManifest(edited("\"region:errors\"", "\"region:error\"")),
      ErrorKind::Manifest,
      "kernels[1].params[1].bind: region 'error' (kernel 'moe_route', "
      "parameter 'errors') is not in buffer_layout");
  EXPECT_RT_ERROR(parseManifest(edited("\"input:y\"", "\"input:x\"")),
                  ErrorKind::Manifest, "unknown input 'x'");
  EXPECT_RT_ERROR(
      parseManifest(edited(R"("kind": "i32", "bind": "value:rank")",
                           R"("kind": "f32", "bind": "value:rank")")),
      ErrorKind::Manifest,
      "'value:rank' cannot fill parameter 'rank' of kind f32; it needs an "
      "integer");
  EXPECT_RT_ERROR(
      parseManifest(edited(R"("kind": "pointer", "bind": "peer_offsets")",
                           R"("kind": "i64", "bind": "peer_offsets")")),
      ErrorKind::Manifest,
      "'peer_offsets' cannot fill parameter 'peer_offsets' of kind i64");
  EXPECT_RT_ERROR(
      parseManifest(edited(R"("kind": "pointer", "bind": "region:topk_idx")",
                           R"("kind": "u32", "bind": "region:topk_idx")")),
      ErrorKind::Manifest, "it needs a pointer or tma_descriptor parameter");
  // A region bind needs a buffer layout.
  std::string noLayout = kLayer;
  noLayout = noLayout.substr(0, noLayout.find(",\n  \"buffer_layout\"")) + "}";
  EXPECT_RT_ERROR(parseManifest(noLayout), ErrorKind::Manifest,
                  "needs a buffer_layout, and the manifest has none");
}

TEST(Schedule, ResolvesFixedValuesOnce) {
  Manifest m = parseManifest(kLayer);
  std::vector<PlannedKernel> plan = planSchedule(m, config(), env());
  ASSERT_EQ(plan.size(), 3u);
  // Launch order is the schedule's, not the kernels' order in the manifest.
  EXPECT_EQ(plan[0].name, "moe_route");
  EXPECT_EQ(plan[0].kernelIndex, 1u);
  EXPECT_EQ(plan[0].grid, (std::array<uint32_t, 3>{132, 1, 1}));
  EXPECT_EQ(plan[2].name, "moe_combine_barrier");
  EXPECT_EQ(plan[2].kernelIndex, 0u);
  EXPECT_EQ(plan[2].grid, (std::array<uint32_t, 3>{1, 1, 1}));

  const std::vector<PlannedParam> &route = plan[0].params;
  ASSERT_EQ(route.size(), 5u);
  EXPECT_EQ(route[0].source, PlannedParam::Source::Fixed);
  EXPECT_EQ(route[0].bits, env().symmBase + 4096);
  EXPECT_EQ(route[1].bits, env().symmBase + 256);
  EXPECT_EQ(route[2].source, PlannedParam::Source::Input);
  EXPECT_EQ(route[2].input, ForwardInput::Y);
  EXPECT_EQ(route[3].source, PlannedParam::Source::Fixed);
  EXPECT_EQ(route[3].bits, 1u);
  EXPECT_EQ(route[4].source, PlannedParam::Source::NumTokens);
  EXPECT_EQ(plan[2].params[1].bits, env().peerOffsets);

  const std::vector<PlannedParam> &gemm = plan[1].params;
  EXPECT_EQ(gemm[0].source, PlannedParam::Source::Fixed);
  EXPECT_EQ(gemm[0].tma.globalAddress, env().symmBase + 65536);
  EXPECT_EQ(gemm[0].tma.globalDim[0], 256u);
  EXPECT_EQ(gemm[0].tma.globalDim[1], 256u);
  EXPECT_EQ(gemm[0].tmaName, "a");
  EXPECT_EQ(gemm[1].source, PlannedParam::Source::Input);
  EXPECT_EQ(gemm[1].input, ForwardInput::L1Weight);
  EXPECT_EQ(gemm[1].tma.globalDim[1], 512u);
  EXPECT_EQ(gemm[2].input, ForwardInput::L1Scale);
}

TEST(Schedule, FillsPerCallValues) {
  Manifest m = parseManifest(kLayer);
  std::vector<PlannedKernel> plan = planSchedule(m, config(), env());
  ForwardArgs a;
  a.numTokens = 37;
  a.y.address = 0x5000;
  a.l1Scale.address = 0x6000;
  EXPECT_EQ(paramBits(plan[0].params[4], a), 37u);
  EXPECT_EQ(paramBits(plan[0].params[2], a), 0x5000u);
  EXPECT_EQ(paramBits(plan[0].params[3], a), 1u);
  EXPECT_EQ(paramBits(plan[1].params[2], a), 0x6000u);
  EXPECT_EQ(&forwardInput(a, ForwardInput::L1Scale), &a.l1Scale);
}

TEST(Schedule, ChecksDescriptorsAgainstRegionsAndInputs) {
  // The pool region is smaller than the descriptor addresses.
  EXPECT_RT_ERROR(
      planSchedule(parseManifest(edited(R"("offset": 65536, "bytes": 65536)",
                                        R"("offset": 65536, "bytes": 65535)")),
                   config(), env()),
      ErrorKind::Manifest,
      "kernel 'moe_l1_gemm' parameter 'a' (region:l1_pool): TMA descriptor "
      "'a': addresses 65536 bytes but the tensor holds 65535");
  // l1_weight of the config holds L * 2I * H = 131072 bytes; a descriptor
  // over 600 rows would read past it.
  EXPECT_RT_ERROR(
      planSchedule(parseManifest(edited("\"global_shape\": [256, 512]",
                                        "\"global_shape\": [256, 600]")),
                   config(), env()),
      ErrorKind::Manifest,
      "parameter 'b' (input:l1_weight): TMA descriptor 'b': addresses 153600 "
      "bytes but the tensor holds 131072");
  EXPECT_RT_ERROR(
      planSchedule(parseManifest(edited("\"input:l1_weight\"", "\"input:y\"")),
                   config(), env()),
      ErrorKind::Manifest, "y has a per-call size");
}

TEST(Schedule, RejectsRuntimeSymbols) {
  // A layer's grids and descriptors are fixed at creation: a manifest that
  // lists a runtime symbol (and so could size a descriptor by it) is not a
  // layer the runtime can plan.
  std::string withM =
      edited("\"cubin\": \"layer.cubin\",", "\"cubin\": \"layer.cubin\", "
                                            "\"runtime_symbols\": [\"M\"],");
  EXPECT_RT_ERROR(planSchedule(parseManifest(withM), config(), env()),
                  ErrorKind::Manifest,
                  "runtime symbol 'M': a layer's grids and descriptors are "
                  "fixed when it is created");
  // The SM count, capped or not, is resolved once for the layer.
  std::vector<PlannedKernel> plan = planSchedule(
      parseManifest(edited("\"grid\": [1, 1, 1]",
                           R"("grid": [{"ctas": "num_sms", "max": 2}, 3, 1])")),
      config(), env());
  EXPECT_EQ(plan[2].grid, (std::array<uint32_t, 3>{2, 3, 1}));
  plan =
      planSchedule(parseManifest(edited(
                       "\"grid\": [1, 1, 1]",
                       R"("grid": [{"ctas": "num_sms", "max": 500}, 1, 1])")),
                   config(), env());
  EXPECT_EQ(plan[2].grid, (std::array<uint32_t, 3>{132, 1, 1}));
  EXPECT_RT_ERROR(planSchedule(parseManifest(kLayer), config(), ScheduleEnv{}),
                  ErrorKind::InvalidArgument,
                  "the symmetric buffer or its offset table is null");
  Manifest plain = parseManifest(edited(
      R"("schedule": ["moe_route", "moe_l1_gemm", "moe_combine_barrier"],)",
      ""));
  EXPECT_RT_ERROR(planSchedule(plain, config(), env()), ErrorKind::Manifest,
                  "the manifest has no schedule (nor variants)");
}

// --- variants: one schedule per token range ---------------------------------

const char *kSchedule =
    R"("schedule": ["moe_route", "moe_l1_gemm", "moe_combine_barrier"],)";
// T = 64: BLOCK_M 64 up to 31 tokens (without the GEMM, to tell them apart),
// 128 from 32 on.
const char *kVariants = R"("variants": [
    {"min_tokens": 0, "max_tokens": 31, "block_m": 64,
     "schedule": ["moe_route", "moe_combine_barrier"]},
    {"min_tokens": 32, "max_tokens": 64, "block_m": 128,
     "schedule": ["moe_route", "moe_l1_gemm", "moe_combine_barrier"]}],)";

/// kLayer with variants instead of its schedule, then `from` -> `to` in them.
std::string withVariants(const std::string &from = "",
                         const std::string &to = "") {
  std::string v = kVariants;
  if (!from.empty()) {
    size_t at = v.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    v.replace(at, from.size(), to);
  }
  return edited(kSchedule, v);
}

TEST(Variants, ParsesRangesBlockAndSchedules) {
  Manifest m = parseManifest(withVariants());
  EXPECT_TRUE(m.schedule.empty());
  EXPECT_TRUE(m.hasLayerSchedule());
  ASSERT_EQ(m.variants.size(), 2u);
  EXPECT_EQ(m.variants[0].minTokens, 0);
  EXPECT_EQ(m.variants[0].maxTokens, 31);
  EXPECT_EQ(m.variants[0].blockM, 64);
  EXPECT_EQ(m.variants[0].schedule,
            (std::vector<std::string>{"moe_route", "moe_combine_barrier"}));
  EXPECT_EQ(m.variants[1].minTokens, 32);
  EXPECT_EQ(m.variants[1].maxTokens, 64);
  EXPECT_EQ(m.variants[1].blockM, 128);
  EXPECT_EQ(m.variants[1].schedule.size(), 3u);
  EXPECT_EQ(m.scheduleVariants().size(), 2u);
  // A single variant over all of [0, T] is a valid list too.
  Manifest one =
      parseManifest(withVariants(R"("max_tokens": 31, "block_m": 64,
     "schedule": ["moe_route", "moe_combine_barrier"]},
    {"min_tokens": 32, "max_tokens": 64, "block_m": 128,)",
                                 R"("max_tokens": 64, "block_m": 128,)"));
  ASSERT_EQ(one.variants.size(), 1u);
  EXPECT_EQ(one.variants[0].schedule.size(), 3u);
}

TEST(Variants, ASingleScheduleIsOneVariantOverZeroToT) {
  Manifest m = parseManifest(kLayer);
  EXPECT_TRUE(m.variants.empty());
  std::vector<ScheduleVariant> v = m.scheduleVariants();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].minTokens, 0);
  EXPECT_EQ(v[0].maxTokens, 64);
  EXPECT_EQ(v[0].blockM, 128); // the symbol BM
  EXPECT_EQ(v[0].schedule, m.schedule);
  Manifest plain = parseManifest(edited(kSchedule, ""));
  EXPECT_FALSE(plain.hasLayerSchedule());
  EXPECT_TRUE(plain.scheduleVariants().empty());
}

TEST(Variants, RejectsBadLists) {
  EXPECT_RT_ERROR(
      parseManifest(edited(kSchedule, std::string(kSchedule) + kVariants)),
      ErrorKind::Manifest,
      "variants: the manifest has both \"schedule\" and \"variants\"");
  EXPECT_RT_ERROR(parseManifest(edited(kSchedule, R"("variants": [],)")),
                  ErrorKind::Manifest, "manifest: variants: empty");
  EXPECT_RT_ERROR(parseManifest(edited(kSchedule, R"("variants": {},)")),
                  ErrorKind::Manifest, "variants: expected an array");
  EXPECT_RT_ERROR(
      parseManifest(withVariants(R"("min_tokens": 0,)", R"("min_tokens": 1,)")),
      ErrorKind::Manifest,
      "variants[0].min_tokens: 1, expected 0 (the first range starts at 0 "
      "tokens)");
  // A gap and an overlap between the ranges.
  EXPECT_RT_ERROR(
      parseManifest(withVariants(R"("min_tokens": 32)", R"("min_tokens": 33)")),
      ErrorKind::Manifest,
      "variants[1].min_tokens: 33, expected 32 (the ranges must be ascending "
      "and contiguous: variants[0] ends at 31)");
  EXPECT_RT_ERROR(
      parseManifest(withVariants(R"("min_tokens": 32)", R"("min_tokens": 20)")),
      ErrorKind::Manifest, "variants[1].min_tokens: 20, expected 32");
  // Not covering T, or past it.
  EXPECT_RT_ERROR(
      parseManifest(withVariants(R"("max_tokens": 64)", R"("max_tokens": 63)")),
      ErrorKind::Manifest,
      "variants[1].max_tokens: 63: the last range must end at T = 64");
  EXPECT_RT_ERROR(
      parseManifest(withVariants(R"("max_tokens": 64)", R"("max_tokens": 65)")),
      ErrorKind::Manifest, "variants[1].max_tokens: 65 is past T = 64");
  EXPECT_RT_ERROR(
      parseManifest(withVariants(R"("max_tokens": 31)", R"("max_tokens": -1)")),
      ErrorKind::Manifest, "variants[0].max_tokens: value -1 outside");
  EXPECT_RT_ERROR(
      parseManifest(withVariants(R"("min_tokens": 32, "max_tokens": 64)",
                                 R"("min_tokens": 32, "max_tokens": 30)")),
      ErrorKind::Manifest, "variants[1].max_tokens: 30 is below min_tokens 32");
  std::string noT = withVariants();
  const std::string t = R"("T": 64, )";
  noT.replace(noT.find(t), t.size(), "");
  EXPECT_RT_ERROR(parseManifest(noT), ErrorKind::Manifest,
                  "variants: the manifest has no symbol T");
}

TEST(Variants, RejectsBadEntries) {
  EXPECT_RT_ERROR(parseManifest(withVariants(R"("block_m": 64,)", "")),
                  ErrorKind::Manifest, "variants[0]: missing field 'block_m'");
  EXPECT_RT_ERROR(
      parseManifest(withVariants(R"("block_m": 64,)", R"("block_m": 0,)")),
      ErrorKind::Manifest, "variants[0].block_m: value 0 outside [1, 1024]");
  EXPECT_RT_ERROR(parseManifest(withVariants(
                      R"(["moe_route", "moe_combine_barrier"])", "[]")),
                  ErrorKind::Manifest, "variants[0].schedule: empty");
  EXPECT_RT_ERROR(parseManifest(withVariants("\"moe_l1_gemm\"", "\"gemm\"")),
                  ErrorKind::Manifest,
                  "variants[1].schedule[1]: 'gemm' is not a kernel of this "
                  "manifest");
  EXPECT_RT_ERROR(parseManifest(withVariants(
                      R"("schedule": ["moe_route", "moe_combine_barrier"])",
                      R"("schedule": "moe_route")")),
                  ErrorKind::Manifest,
                  "variants[0].schedule: expected an array of kernel names");
  EXPECT_RT_ERROR(parseManifest(withVariants(R"({"min_tokens": 32, )", R"({)")),
                  ErrorKind::Manifest,
                  "variants[1]: missing field 'min_tokens'");
  // Every kernel of every variant must be launchable from its binds.
  std::string unbound = withVariants();
  const std::string bind = R"(, "bind": "value:num_tokens")";
  unbound.replace(unbound.find(bind), bind.size(), "");
  EXPECT_RT_ERROR(parseManifest(unbound), ErrorKind::Manifest,
                  "variants[0].schedule[0]: kernel 'moe_route' parameter "
                  "'num_tokens' has no bind");
}

TEST(Variants, PlanEachKernelOnceAndEachVariantsLaunchOrder) {
  PlannedLayer plan = planLayer(parseManifest(withVariants()), config(), env());
  // moe_route and moe_combine_barrier are shared: three kernels in all.
  ASSERT_EQ(plan.kernels.size(), 3u);
  ASSERT_EQ(plan.variants.size(), 2u);
  EXPECT_EQ(plan.variants[0].minTokens, 0);
  EXPECT_EQ(plan.variants[0].maxTokens, 31);
  EXPECT_EQ(plan.variants[0].blockM, 64);
  EXPECT_EQ(plan.variants[1].blockM, 128);
  EXPECT_EQ(plan.variants[0].launches, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(plan.variants[1].launches, (std::vector<size_t>{0, 2, 1}));
  std::vector<PlannedKernel> big = plan.launchOrder(1);
  ASSERT_EQ(big.size(), 3u);
  EXPECT_EQ(big[0].name, "moe_route");
  EXPECT_EQ(big[1].name, "moe_l1_gemm");
  EXPECT_EQ(big[2].name, "moe_combine_barrier");
  // Shared kernels are bound as in a single schedule.
  std::vector<PlannedKernel> single =
      planSchedule(parseManifest(kLayer), config(), env());
  EXPECT_EQ(big[0].params[0].bits, single[0].params[0].bits);
  EXPECT_EQ(big[1].params[0].tma.globalAddress,
            single[1].params[0].tma.globalAddress);
  EXPECT_EQ(big[2].grid, single[2].grid);
  // A variant's kernel is checked like a scheduled one.
  std::string smallRegion = withVariants();
  const std::string region = R"("offset": 65536, "bytes": 65536)";
  smallRegion.replace(smallRegion.find(region), region.size(),
                      R"("offset": 65536, "bytes": 65535)");
  EXPECT_RT_ERROR(planLayer(parseManifest(smallRegion), config(), env()),
                  ErrorKind::Manifest,
                  "kernel 'moe_l1_gemm' parameter 'a' (region:l1_pool)");
}

} // namespace

// The phase profile (docs/Profile.md): a "profile" bind needs the manifest's
// "profile" with its bytes, and gets the layer's profile buffer.
TEST(Profile, BindGetsTheLayersProfileBuffer) {
  EXPECT_EQ(parseBind("profile", "w").kind, BindKind::Profile);
  EXPECT_EQ(bindString(parseBind("profile", "w")), "profile");
  EXPECT_RT_ERROR(parseBind("profile:x", "p"), ErrorKind::Manifest,
                  "unknown bind 'profile:x'");
  const std::string bind = R"("kind": "pointer", "bind": "peer_offsets")";
  const std::string profiled = R"("kind": "pointer", "bind": "profile")";
  EXPECT_RT_ERROR(parseManifest(edited(bind, profiled)), ErrorKind::Manifest,
                  "'profile' needs the manifest's \"profile\" with its bytes");
  auto withProfile = [&](const std::string &value) {
    std::string s = edited(bind, profiled);
    size_t at = s.find("\"schedule\"");
    return s.insert(at, "\"profile\": " + value + ",\n  ");
  };
  EXPECT_RT_ERROR(parseManifest(withProfile(R"({"bytes": 0})")),
                  ErrorKind::Manifest,
                  "profile: expected an object with a positive integer");
  Manifest m = parseManifest(withProfile(R"({"bytes": 4096, "phases": []})"));
  EXPECT_EQ(m.profileBytes, 4096u);
  EXPECT_EQ(parseManifest(kLayer).profileBytes, 0u);
  // The layer allocates the buffer; without it the schedule cannot bind.
  EXPECT_RT_ERROR(planSchedule(m, config(), env()), ErrorKind::InvalidArgument,
                  "the layer allocated no phase-profile buffer");
  ScheduleEnv e = env();
  e.profileBase = 0x7d0000000000;
  std::vector<PlannedKernel> plan = planSchedule(m, config(), e);
  EXPECT_EQ(plan[2].params[1].bits, e.profileBase);
  EXPECT_EQ(plan[2].params[1].source, PlannedParam::Source::Fixed);
}

TEST(Schedule, PersistentGridsTakeThePlansSms) {
  // The plan's num_sms caps the persistent grids (megamoe-plan num-sms, the
  // one-GPU multi-rank mode's 132 / R); never above the device's SMs.
  megamoe::config::Plan plan;
  plan.numSMs = 66;
  EXPECT_EQ(layerGridSms(132, plan), 66);
  plan.numSMs = 132;
  EXPECT_EQ(layerGridSms(114, plan), 114);
  EXPECT_EQ(layerGridSms(132, std::nullopt), 132);
}
