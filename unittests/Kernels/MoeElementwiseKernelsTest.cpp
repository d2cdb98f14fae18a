//===- MoeElementwiseKernelsTest.cpp - moe_activation and the combine ----===//
//
// Builds the element-wise kernels of the unfused schedule into a gpu.module
// and checks what the runtime relies on: the module verifies, every
// parameter is named and bound, the grids, and that bad layers are refused
// with a message. The generated code itself is checked by the lit tests
// (test/Kernels/moe-activation.mlir, moe-combine.mlir) and on the GPU.
//
//===----------------------------------------------------------------------===//
#include "megamoe/InitAll.h"
#include "megamoe/Kernels/KernelBuilder.h"
#include "megamoe/Kernels/MoeKernels.h"
#include "megamoe/Kernels/MoeMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace mlir;

namespace {

namespace cfg = megamoe::config;

cfg::LayerConfig smallLayer() {
  cfg::LayerConfig c;
  c.hidden = 512;
  c.intermediate = 256;
  c.experts = 8;
  c.topk = 2;
  c.ranks = 2;
  c.maxTokensPerRank = 64;
  return c;
}

/// A module with an empty gpu.module and a builder inside it, plus the
/// layer's plan and buffer layout.
struct Fixture {
  explicit Fixture(cfg::LayerConfig layer) : config(std::move(layer)) {
    DialectRegistry registry;
    megamoe::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    cfg::PlanOverrides overrides;
    overrides.schedule = cfg::Schedule::Unfused;
    overrides.poolTokens = 0; // the worst-case pool
    errors = cfg::makePlan(config, overrides, plan);
    layout = cfg::computeBufferLayout(config, plan);
    OpBuilder b(&context);
    module = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToEnd(module->getBody());
    gpuModule = gpu::GPUModuleOp::create(b, b.getUnknownLoc(), "megamoe_layer");
  }
  megamoe::MoeKernelContext kernelContext() const {
    return {config, plan, layout};
  }
  /// Runs `build` at the end of the gpu.module; returns the diagnostics.
  template <typename Fn> std::string build(Fn build) {
    std::string messages;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      messages += d.str() + "\n";
      return success();
    });
    OpBuilder b(&context);
    b.setInsertionPointToEnd(gpuModule.getBody());
    build(b, b.getUnknownLoc(), kernelContext());
    return messages;
  }
  warpspec::KernelOp kernel(StringRef name) {
    return dyn_cast_or_null<warpspec::KernelOp>(
        SymbolTable::lookupSymbolIn(gpuModule, name));
  }

  MLIRContext context;
  cfg::LayerConfig config;
  cfg::Plan plan;
  cfg::BufferLayout layout;
  std::vector<std::string> errors;
  OwningOpRef<ModuleOp> module;
  gpu::GPUModuleOp gpuModule;
};

/// name -> bind of every parameter of `kernel`.
std::map<std::string, std::string> binds(warpspec::KernelOp kernel) {
  std::map<std::string, std::string> result;
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    auto name =
        kernel.getArgAttrOfType<StringAttr>(i, ::megamoe::manifest::kParamName);
    auto bind =
        kernel.getArgAttrOfType<StringAttr>(i, ::megamoe::manifest::kParamBind);
    result[name ? name.str() : "?"] = bind ? bind.str() : "";
  }
  return result;
}

std::string gridOf(warpspec::KernelOp kernel) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << kernel->getAttr(::megamoe::manifest::kGrid);
  return s;
}

TEST(MoeElementwiseKernels, BuildBoundVerifiedKernels) {
  Fixture f(smallLayer());
  ASSERT_TRUE(f.errors.empty()) << f.errors.front();
  EXPECT_EQ(f.build(megamoe::buildMoeActivationKernel), "");
  EXPECT_EQ(f.build(megamoe::buildMoeCombineBarrierKernel), "");
  EXPECT_EQ(f.build(megamoe::buildMoeCombineReduceKernel), "");
  ASSERT_TRUE(succeeded(verify(*f.module)));

  auto activation = f.kernel(megamoe::kActivationKernel);
  ASSERT_TRUE(activation);
  EXPECT_EQ(binds(activation), (std::map<std::string, std::string>{
                                   {"pool_info", "region:pool_info"},
                                   {"l1_out", "region:l1_out"},
                                   {"l1_pool_weight", "region:l1_pool_weight"},
                                   {"l2_pool", "region:l2_pool"},
                                   {"l2_pool_sf", "region:l2_pool_sf"}}));
  EXPECT_EQ(gridOf(activation), "[{ctas = \"num_sms\"}, 1, 1]");

  auto barrier = f.kernel(megamoe::kCombineBarrierKernel);
  ASSERT_TRUE(barrier);
  EXPECT_EQ(binds(barrier), (std::map<std::string, std::string>{
                                {"barriers", "region:barriers"},
                                {"peer_offsets", "peer_offsets"},
                                {"rank", "value:rank"}}));
  EXPECT_EQ(gridOf(barrier), "[1, 1, 1]");

  auto reduce = f.kernel(megamoe::kCombineReduceKernel);
  ASSERT_TRUE(reduce);
  EXPECT_EQ(binds(reduce), (std::map<std::string, std::string>{
                               {"topk_idx", "region:topk_idx"},
                               {"combine", "region:combine"},
                               {"y", "input:y"},
                               {"num_tokens", "value:num_tokens"}}));

  // Every region a kernel binds exists in the buffer layout (the L2 GEMM
  // scatters its rows into combine: no l2_out).
  EXPECT_FALSE(f.layout.find("l2_out"));
  for (auto kernel : {activation, barrier, reduce})
    for (auto &[name, bind] : binds(kernel)) {
      if (StringRef(bind).starts_with("region:")) {
        EXPECT_TRUE(f.layout.find(bind.substr(7)))
            << kernel.getName().str() << " binds the missing " << bind;
      }
    }
}

TEST(MoeElementwiseKernels, ExpIsMathExpWithoutDeclarations) {
  // The builders emit math.exp (megamoe-convert-to-llvm calls libdevice's
  // __nv_expf for it) and declare no function themselves.
  Fixture f(smallLayer());
  ASSERT_TRUE(f.errors.empty());
  f.build(megamoe::buildMoeActivationKernel);
  // A second SwiGLU user in the same module (the fused epilogue's case).
  f.build([](OpBuilder &b, Location loc, const megamoe::MoeKernelContext &) {
    megamoe::buildExpF32(
        b, loc, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1)));
  });
  int exps = 0, declarations = 0;
  f.gpuModule.walk([&](Operation *op) {
    exps += isa<math::ExpOp>(op);
    declarations += isa<LLVM::LLVMFuncOp>(op);
  });
  EXPECT_GE(exps, 2);
  EXPECT_EQ(declarations, 0);
}

TEST(MoeElementwiseKernels, FastMathUsesApproximateExp) {
  cfg::LayerConfig layer = smallLayer();
  layer.fastMath = true;
  Fixture f(layer);
  ASSERT_TRUE(f.errors.empty());
  EXPECT_EQ(f.build(megamoe::buildMoeActivationKernel), "");
  bool libdevice = false, ex2 = false;
  f.gpuModule.walk([&](Operation *op) {
    libdevice |= isa<math::ExpOp>(op);
    if (auto approx = dyn_cast<warpspec::ApproxOp>(op))
      ex2 |= approx.getKind() == warpspec::ApproxKind::ex2;
  });
  EXPECT_FALSE(libdevice);
  EXPECT_TRUE(ex2);
}

// Per 64: each half warp reduces its own amax (butterfly offsets 8..1, none
// of 16); any other block is refused with a message.
TEST(MoeElementwiseKernels, ActivationRequantizesPer64WithHalfWarps) {
  cfg::LayerConfig layer = smallLayer();
  layer.recipe.requantBlock = 64;
  Fixture f(layer);
  EXPECT_EQ(f.build(megamoe::buildMoeActivationKernel), "");
  ASSERT_TRUE(f.kernel(megamoe::kActivationKernel));
  std::vector<int64_t> offsets;
  f.gpuModule.walk([&](gpu::ShuffleOp op) {
    if (std::optional<int64_t> c = getConstantIntValue(op.getOffset()))
      offsets.push_back(*c);
  });
  EXPECT_EQ(offsets, (std::vector<int64_t>{8, 4, 2, 1}));

  cfg::LayerConfig bad = smallLayer();
  bad.recipe.requantBlock = 32;
  Fixture g(bad);
  std::string messages = g.build(megamoe::buildMoeActivationKernel);
  EXPECT_NE(messages.find("requantizes per 128 or 64 columns; the layer asks "
                          "for per 32"),
            std::string::npos)
      << messages;
  EXPECT_FALSE(g.kernel(megamoe::kActivationKernel));
}

} // namespace
