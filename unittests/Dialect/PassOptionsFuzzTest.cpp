//===- PassOptionsFuzzTest.cpp - random megamoe-layer/plan options --------===//
//
// Seeded property test of megamoe-opt's option surface, in process: random
// and malformed option strings for --megamoe-layer and --megamoe-plan (known
// keys with extreme or non-numeric values, unknown keys, broken quoting) go
// through the pass-pipeline parser and, when it accepts them, run on an empty
// module. Each must either succeed (the module then holds a planned layer) or
// fail with at least one diagnostic; a crash or an assert fails the binary.
//
//===----------------------------------------------------------------------===//
#include "megamoe/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <iostream>
#include <random>

namespace {

const char *const kLayerKeys[] = {
    "name",       "hidden", "intermediate",  "experts", "topk",     "ranks",
    "max-tokens", "chip",   "requant-block", "clamp",   "fast-math"};
const char *const kPlanKeys[] = {
    "block-m",        "l1-block-n",       "l2-block-n", "block-k",
    "stages",         "experts-per-wave", "num-sms",    "producer-registers",
    "math-registers", "pool-tokens",      "schedule",   "math-mode"};

class Gen {
public:
  explicit Gen(uint32_t seed) : rng(seed) {}
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
  template <size_t N> const char *oneOf(const char *const (&list)[N]) {
    return list[rng() % N];
  }

  std::string value() {
    static const char *const kOdd[] = {"",
                                       "-1",
                                       "0",
                                       "9223372036854775807",
                                       "-9223372036854775808",
                                       "99999999999999999999",
                                       "1e3",
                                       "0x80",
                                       "abc",
                                       "12abc",
                                       "sm_80",
                                       "unfused",
                                       "fused",
                                       "split",
                                       "single",
                                       "cooperative-n",
                                       "nan",
                                       "inf",
                                       "-0.5",
                                       "true",
                                       "\"quoted\"",
                                       "'x'",
                                       "{",
                                       "}",
                                       "a b",
                                       "=",
                                       ",",
                                       "\\",
                                       "\xff\xfe"};
    static const char *const kTypical[] = {
        "128", "256", "1024", "4096", "7168", "2048", "64", "8",
        "2",   "1",   "6",    "132",  "66",   "33",   "40", "232"};
    return chance(0.6) ? kTypical[rng() % std::size(kTypical)]
                       : kOdd[rng() % std::size(kOdd)];
  }

  std::string options(const char *const *keys, size_t numKeys) {
    std::string s;
    int n = int(rng() % 8);
    for (int i = 0; i < n; ++i) {
      if (!s.empty())
        s += " ";
      s += chance(0.05) ? "no-such-option" : keys[rng() % numKeys];
      if (chance(0.95))
        s += "=" + value();
    }
    return s;
  }

  std::string layerOptions() {
    if (chance(0.3)) // a near-valid layer, so the planner gets work
      return "hidden=" + pickOf({"256", "1024", "4096"}) +
             " intermediate=" + pickOf({"128", "256", "2048"}) +
             " experts=" + pickOf({"4", "8", "256"}) +
             " topk=" + pickOf({"1", "2", "6"}) +
             " ranks=" + pickOf({"1", "2", "8"}) +
             " max-tokens=" + pickOf({"1", "64", "128", "8192"}) + " " +
             options(kLayerKeys, std::size(kLayerKeys));
    return options(kLayerKeys, std::size(kLayerKeys));
  }
  std::string planOptions() { return options(kPlanKeys, std::size(kPlanKeys)); }

private:
  std::string pickOf(std::initializer_list<const char *> list) {
    return *(list.begin() + rng() % list.size());
  }
  std::mt19937 rng;
};

struct Registered {
  Registered() {
    megamoe::registerAllDialects(registry);
    megamoe::registerAllPasses();
  }
  mlir::DialectRegistry registry;
};

TEST(PassOptionsFuzz, EveryOptionStringSucceedsOrSaysWhy) {
  static Registered reg;
  constexpr int kCases = 2000;
  int ran = 0, planned = 0;
  // LLVM's option parser also prints each bad value to stderr; thousands of
  // those lines would bury the test summary.
  ::testing::internal::CaptureStderr();
  for (uint32_t seed = 0; seed < kCases; ++seed) {
    Gen g(seed);
    // The text of `megamoe-opt --pass-pipeline=builtin.module(...)`.
    std::string pipeline = "megamoe-layer{" + g.layerOptions() +
                           "},megamoe-plan{" + g.planOptions() + "}";
    std::string who = "seed " + std::to_string(seed) + ": " + pipeline;

    mlir::MLIRContext context(reg.registry);
    std::string parseErrors;
    llvm::raw_string_ostream parseOs(parseErrors);
    mlir::PassManager manager(&context);
    if (mlir::failed(mlir::parsePassPipeline(pipeline, manager, parseOs))) {
      EXPECT_FALSE(parseErrors.empty())
          << who << ": rejected without a message";
      continue;
    }
    ++ran;
    std::vector<std::string> diagnostics;
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
        diagnostics.push_back(d.str());
      return mlir::success();
    });
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
    if (mlir::succeeded(manager.run(*module))) {
      EXPECT_TRUE(diagnostics.empty()) << who << ": " << diagnostics.front();
      // A successful run leaves exactly one layer with a plan.
      std::string text;
      llvm::raw_string_ostream os(text);
      module->print(os);
      EXPECT_NE(text.find(" plan = <chip"), std::string::npos) << who << "\n"
                                                               << text;
      ++planned;
    } else {
      EXPECT_FALSE(diagnostics.empty()) << who << ": failed without an error";
      for (const std::string &d : diagnostics)
        EXPECT_GT(d.size(), 10u) << who << ": a terse error \"" << d << "\"";
    }
    if (::testing::Test::HasFailure())
      break;
  }
  std::string stderrText = ::testing::internal::GetCapturedStderr();
  if (::testing::Test::HasFailure())
    std::cerr << stderrText.substr(
        stderrText.size() > 4000 ? stderrText.size() - 4000 : 0);
  // The generator must reach both outcomes of the passes.
  EXPECT_GT(ran, kCases / 10);
  EXPECT_GT(planned, 10);
}

} // namespace
