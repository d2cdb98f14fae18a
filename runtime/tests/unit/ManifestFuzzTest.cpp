//===- ManifestFuzzTest.cpp - mutated and truncated manifests -------------===//
//
// Seeded property tests of the manifest reader: every prefix of a layer
// manifest, thousands of byte-level mutations and thousands of structural
// mutations (a value replaced by an extreme number, a string, null, an array
// or an object; a key removed) go through parseManifest and, when it accepts
// one, through the layer contract and planLayer. Each must either succeed or
// throw megamoe::rt::Error with a message; any other exception fails the test,
// and a crash or (under MEGAMOE_SANITIZE) a sanitizer report fails the binary.
//
//===----------------------------------------------------------------------===//
#include "TestManifest.h"
#include "TestUtil.h"
#include "megamoe/runtime/LayerContract.h"
#include "megamoe/runtime/Manifest.h"
#include "megamoe/runtime/Schedule.h"

#include "megamoe/Config/Plan.h"
#include "megamoe/Config/Print.h"

#include <nlohmann/json.hpp>

#include <random>

using namespace megamoe::rt;
using json = nlohmann::json;

namespace {

// The fixture layer (TestManifest.h) with T = 256 and two GEMM kernels (one
// per BLOCK_M; the seed below gives it the plan's variants).
const std::string kLayer = testmanifest::layerManifest(
    R"({"H": 256, "I": 128, "E": 4, "K": 2, "R": 2, "T": 256, "L": 2,
              "P": 256})",
    R"("variants": [],)",
    {testmanifest::barrierKernel(), testmanifest::routeKernel(),
     testmanifest::gemmKernel("moe_l1_gemm_bm64", 64),
     testmanifest::gemmKernel("moe_l1_gemm_bm128", 128,
                              R"([{"ctas": "num_sms", "max": 64}, 2, 1])")});

LayerConfig config() { return testmanifest::layerConfig(256); }

/// The seed: kLayer's kernels around the compiler's own description of
/// config() (planToJson: config, plan, buffer_layout), with one schedule per
/// plan variant, so that the reader accepts it and every mutation below
/// starts from a manifest that is valid.
const std::string &seedText() {
  static const std::string text = [] {
    LayerConfig c = config();
    megamoe::config::PlanOverrides o;
    o.schedule = megamoe::config::Schedule::Unfused;
    megamoe::config::Plan plan;
    std::vector<std::string> problems = megamoe::config::makePlan(c, o, plan);
    EXPECT_TRUE(problems.empty()) << problems.front();
    json doc = json::parse(kLayer);
    json compiled = json::parse(megamoe::config::planToJson(c, plan));
    for (const char *member : {"config", "plan", "buffer_layout"})
      doc[member] = compiled[member];
    json variants = json::array();
    for (const megamoe::config::Variant &v : plan.variants)
      variants.push_back(
          {{"min_tokens", v.minTokens},
           {"max_tokens", v.maxTokens},
           {"block_m", v.blockM},
           {"schedule",
            {"moe_route", "moe_l1_gemm_bm" + std::to_string(v.blockM),
             "moe_combine_barrier"}}});
    doc.erase("variants");
    if (variants.size() == 1)
      doc["schedule"] = variants[0]["schedule"];
    else
      doc["variants"] = variants;
    return doc.dump(1);
  }();
  return text;
}

ScheduleEnv env() {
  ScheduleEnv e;
  e.symmBase = 0x7f0000000000;
  e.peerOffsets = 0x7e0000000000;
  e.rank = 1;
  e.numSms = 132;
  return e;
}

/// What the reader did with one input: "ok", or the error message.
std::string outcome(const std::string &text, const std::string &who) {
  try {
    Manifest m = parseManifest(text, "/cache/x");
    if (m.hasLayerSchedule() && m.bufferLayout) {
      checkConfigMatches(*m.config, config(), "/cache/x");
      planLayer(m, config(), env());
    }
    return "ok";
  } catch (const Error &e) {
    EXPECT_GT(std::string(e.what()).size(), 8u) << who << ": " << e.what();
    return e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << who
                  << ": an exception that is not a runtime Error: " << e.what()
                  << "\ninput:\n"
                  << text;
  } catch (...) {
    ADD_FAILURE() << who << ": a non-std exception\ninput:\n" << text;
  }
  return "bad";
}

TEST(ManifestFuzz, TheSeedIsAcceptedOrRejectedCleanly) {
  // The seed itself must go through (or the mutations test nothing).
  try {
    Manifest m = parseManifest(seedText(), "/cache/x");
    EXPECT_EQ(m.variants.size(), 2u);
    planLayer(m, config(), env());
  } catch (const Error &e) {
    FAIL() << "the seed manifest is rejected: " << e.what();
  }
}

TEST(ManifestFuzz, EveryPrefixIsAnError) {
  std::string seed = seedText();
  for (size_t n = 0; n < seed.size(); ++n) {
    std::string result =
        outcome(seed.substr(0, n), "prefix " + std::to_string(n));
    // Only whitespace may follow the closing brace.
    if (seed.find_first_not_of(" \n", n) != std::string::npos)
      EXPECT_NE(result, "ok") << "prefix of " << n << " bytes accepted";
    if (::testing::Test::HasFailure())
      return;
  }
}

TEST(ManifestFuzz, ByteMutationsGiveMessages) {
  const std::string seed = seedText();
  static const char kBytes[] = "{}[]\":,0123456789-+.eE \\/ntfu\x01\xff";
  std::mt19937 rng(19);
  for (int i = 0; i < 4000; ++i) {
    std::string s = seed;
    int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % s.size();
      switch (rng() % 3) {
      case 0:
        s[at] = kBytes[rng() % (sizeof(kBytes) - 1)];
        break;
      case 1:
        s.erase(at, 1 + rng() % 8);
        break;
      case 2:
        s.insert(at, 1, kBytes[rng() % (sizeof(kBytes) - 1)]);
        break;
      }
      if (s.empty())
        s = "{";
    }
    outcome(s, "byte mutation " + std::to_string(i));
    if (::testing::Test::HasFailure())
      return;
  }
}

/// Every JSON node of `j` (pointers into it), depth first.
void collect(json &j, std::vector<json *> &nodes) {
  nodes.push_back(&j);
  if (j.is_object() || j.is_array())
    for (json &child : j)
      collect(child, nodes);
}

json replacement(std::mt19937 &rng) {
  switch (rng() % 16) {
  case 0:
    return -1;
  case 1:
    return 0;
  case 2:
    return 1;
  case 3:
    return int64_t(1) << 31;
  case 4:
    return int64_t(1) << 32;
  case 5:
    return std::numeric_limits<int64_t>::max();
  case 6:
    return std::numeric_limits<int64_t>::min();
  case 7:
    return std::numeric_limits<uint64_t>::max();
  case 8:
    return 1e300;
  case 9:
    return 0.5;
  case 10:
    return "";
  case 11:
    return "H * P * 1000000000000";
  case 12:
    return nullptr;
  case 13:
    return json::array();
  case 14:
    return json::object();
  default:
    return true;
  }
}

TEST(ManifestFuzz, StructuralMutationsGiveMessages) {
  const json seed = json::parse(seedText());
  std::mt19937 rng(1919);
  int accepted = 0;
  for (int i = 0; i < 6000; ++i) {
    json j = seed;
    int edits = 1 + int(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      std::vector<json *> nodes;
      collect(j, nodes);
      json *node = nodes[rng() % nodes.size()];
      if (node->is_object() && !node->empty() && rng() % 3 == 0) {
        auto it = node->begin();
        std::advance(it, rng() % node->size());
        node->erase(it.key()); // a missing field
      } else if (node->is_array() && !node->empty() && rng() % 3 == 0) {
        node->erase(node->begin() + long(rng() % node->size()));
      } else if (node->is_array() && rng() % 4 == 0) {
        node->push_back(replacement(rng)); // one entry too many
      } else {
        *node = replacement(rng);
      }
    }
    if (outcome(j.dump(), "structural mutation " + std::to_string(i)) == "ok")
      ++accepted;
    if (::testing::Test::HasFailure())
      return;
  }
  // Most mutations break a rule; some (a kernel's unused field) do not.
  EXPECT_LT(accepted, 6000 / 2);
}

} // namespace
