//===- GroupedGemmKernelTest.cpp - buildGroupedGemmKernel -----------------===//
//
// The grouped GEMM built into an existing gpu.module under a given name, with
// every parameter bound as the unfused schedule's two GEMM stages bind them
// (docs/UnfusedSchedule.md).
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Config/Plan.h"
#include "megamoe/Conversion/TargetAttr.h"
#include "megamoe/InitAll.h"
#include "megamoe/Kernels/GroupedGemm.h"
#include "megamoe/Kernels/KernelBuilder.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

struct Fixture : ::testing::Test {
  Fixture() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
    module = ModuleOp::create(UnknownLoc::get(&context));
    OpBuilder b(&context);
    b.setInsertionPointToEnd(module->getBody());
    (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                       b.getUnitAttr());
    auto target = megamoe::nvvmTargetForChip(&context, "sm_90a");
    gpuModule = gpu::GPUModuleOp::create(b, b.getUnknownLoc(), "layer",
                                         b.getArrayAttr({target}));
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    megamoe::registerAllDialects(registry);
    return registry;
  }
  /// The unfused schedule's L1 GEMM (8 local experts, I = 256, H = 512, a
  /// pool of 1024 rows) and its bindings.
  static megamoe::GroupedGemmConfig l1Config() {
    megamoe::GroupedGemmConfig c;
    c.experts = 8;
    c.n = 512;
    c.k = 512;
    c.out = megamoe::config::DType::F32;
    c.bScaleInterleave = 8;
    c.deviceMBlocks = true;
    c.staticM = 1024;
    return c;
  }
  static megamoe::GroupedGemmBinds l1Binds() {
    return {"region:l1_pool",  "input:l1_weight", "region:l1_pool_sf",
            "region:l1_out",   "input:l1_scale",  "region:pool_block_expert",
            "region:pool_info"};
  }
  void build(StringRef name, const megamoe::GroupedGemmConfig &c,
             const megamoe::GroupedGemmBinds &binds) {
    OpBuilder b(&context);
    b.setInsertionPointToEnd(gpuModule.getBody());
    megamoe::buildGroupedGemmKernel(b, b.getUnknownLoc(), name, c, binds);
  }
  std::string bindOf(warpspec::KernelOp k, unsigned i) {
    auto attr =
        k.getArgAttrOfType<StringAttr>(i, ::megamoe::manifest::kParamBind);
    return attr ? attr.str() : "";
  }
  std::string nameOf(warpspec::KernelOp k, unsigned i) {
    return k.getArgAttrOfType<StringAttr>(i, ::megamoe::manifest::kParamName)
        .str();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  gpu::GPUModuleOp gpuModule;
};

TEST_F(Fixture, BindsEveryParameterOfTheL1Gemm) {
  ASSERT_FALSE(megamoe::verifyGroupedGemmConfig(l1Config()));
  build("moe_l1_gemm", l1Config(), l1Binds());
  ASSERT_TRUE(succeeded(verify(*module)));
  auto kernels = llvm::to_vector(gpuModule.getOps<warpspec::KernelOp>());
  ASSERT_EQ(kernels.size(), 1u);
  warpspec::KernelOp k = kernels.front();
  EXPECT_EQ(k.getSymName(), "moe_l1_gemm");
  const char *names[] = {
      "a", "b", "a_scales", "d", "b_scales", "block_expert", "num_m_blocks"};
  const char *binds[] = {"region:l1_pool",    "input:l1_weight",
                         "region:l1_pool_sf", "region:l1_out",
                         "input:l1_scale",    "region:pool_block_expert",
                         "region:pool_info"};
  ASSERT_EQ(k.getNumArguments(), 7u);
  for (unsigned i = 0; i < 7; ++i) {
    EXPECT_EQ(nameOf(k, i), names[i]);
    EXPECT_EQ(bindOf(k, i), binds[i]);
  }
  // The device count is a pointer; the D descriptor holds f32 panels.
  EXPECT_TRUE(isa<warpspec::GlobalType>(k.getArgumentTypes()[6]));
  auto d = cast<warpspec::TmaDescType>(k.getArgumentTypes()[3]);
  EXPECT_TRUE(d.getElementType().isF32());
  // Static M: one CTA per SM, at most one per tile (docs/Manifest.md,
  // "Launch shapes").
  auto grid = k->getAttrOfType<ArrayAttr>(::megamoe::manifest::kGrid);
  ASSERT_TRUE(grid);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << grid;
  EXPECT_EQ(text, "[{ctas = \"num_sms\", max = 32 : i64}, 1, 1]");
}

TEST_F(Fixture, AppendsAfterWhatTheModuleHolds) {
  build("moe_l1_gemm", l1Config(), l1Binds());
  megamoe::GroupedGemmConfig l2 = l1Config();
  l2.out = megamoe::config::DType::BF16;
  l2.bScaleInterleave = 0;
  l2.n = 512;
  l2.k = 256;
  build("moe_l2_gemm", l2, {});
  ASSERT_TRUE(succeeded(verify(*module)));
  auto kernels = llvm::to_vector(gpuModule.getOps<warpspec::KernelOp>());
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].getSymName(), "moe_l1_gemm");
  EXPECT_EQ(kernels[1].getSymName(), "moe_l2_gemm");
  // Empty binds: named parameters without a binding.
  for (unsigned i = 0; i < kernels[1].getNumArguments(); ++i)
    EXPECT_EQ(bindOf(kernels[1], i), "");
  EXPECT_TRUE(cast<warpspec::TmaDescType>(kernels[1].getArgumentTypes()[3])
                  .getElementType()
                  .isBF16());
}

TEST_F(Fixture, TheL2GemmScattersIntoCombineInsteadOfD) {
  // The unfused schedule's L2 GEMM: H = 512, I = 256, T = 64, K = 2, R = 2.
  megamoe::GroupedGemmConfig c = l1Config();
  c.out = megamoe::config::DType::BF16;
  c.bScaleInterleave = 0;
  c.k = 256;
  c.combineScatter = true;
  c.combineTokens = 64;
  c.combineTopk = 2;
  c.combineRanks = 2;
  ASSERT_FALSE(megamoe::verifyGroupedGemmConfig(c));
  megamoe::GroupedGemmBinds binds;
  binds.a = "region:l2_pool";
  binds.b = "input:l2_weight";
  binds.aScales = "region:l2_pool_sf";
  binds.bScales = "input:l2_scale";
  binds.blockExpert = "region:pool_block_expert";
  binds.numMBlocks = "region:pool_info";
  binds.poolSource = "region:pool_source";
  binds.combine = "region:combine";
  binds.peerOffsets = "peer_offsets";
  build("moe_l2_gemm", c, binds);
  ASSERT_TRUE(succeeded(verify(*module)));
  warpspec::KernelOp k = *gpuModule.getOps<warpspec::KernelOp>().begin();
  const char *names[] = {"a",
                         "b",
                         "a_scales",
                         "b_scales",
                         "block_expert",
                         "num_m_blocks",
                         "pool_source",
                         "combine",
                         "peer_offsets"};
  const char *expected[] = {
      "region:l2_pool",     "input:l2_weight",          "region:l2_pool_sf",
      "input:l2_scale",     "region:pool_block_expert", "region:pool_info",
      "region:pool_source", "region:combine",           "peer_offsets"};
  ASSERT_EQ(k.getNumArguments(), 9u);
  for (unsigned i = 0; i < 9; ++i) {
    EXPECT_EQ(nameOf(k, i), names[i]);
    EXPECT_EQ(bindOf(k, i), expected[i]);
  }
  // Only A, B and SFA are TMA descriptors; the rest are pointers.
  for (unsigned i = 0; i < 9; ++i)
    EXPECT_EQ(isa<warpspec::TmaDescType>(k.getArgumentTypes()[i]), i < 3) << i;
  // Each math role stores through the peer pointer and ends with the
  // system-scope fence; nothing is stored by TMA.
  int64_t peerPtrs = 0, fences = 0, tmaStores = 0;
  k.walk([&](Operation *op) {
    peerPtrs += isa<warpspec::PeerPtrOp>(op);
    fences += isa<warpspec::FenceOp>(op);
    tmaStores += isa<warpspec::TmaStoreOp>(op);
  });
  EXPECT_EQ(peerPtrs, 2 * 8); // 2 math warpgroups x 8 row passes
  EXPECT_EQ(fences, 2);
  EXPECT_EQ(tmaStores, 0);
}

TEST(GroupedGemmConfig, CombineScatterNeedsBf16AndAStaticPool) {
  megamoe::GroupedGemmConfig c;
  c.combineScatter = true;
  c.combineTokens = 64;
  c.combineTopk = 2;
  c.combineRanks = 2;
  std::optional<std::string> error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("static-m"), std::string::npos) << *error;
  c.staticM = 1024;
  EXPECT_FALSE(megamoe::verifyGroupedGemmConfig(c));
  c.out = megamoe::config::DType::F32;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("bf16"), std::string::npos) << *error;
  c.out = megamoe::config::DType::BF16;
  c.combineRanks = 0;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("combine-ranks"), std::string::npos) << *error;
}

// pull-rows: the split schedule's SwiGLU kernel with its pull's shapes.
TEST(GroupedGemmConfig, PullRowsNeedsTheSwiGLUKernelAndItsShapes) {
  megamoe::GroupedGemmConfig c;
  c.experts = 8;
  c.n = 512;
  c.k = 512;
  c.staticM = 1152;
  c.deviceMBlocks = true;
  c.bScaleInterleave = megamoe::config::kGateUpInterleave;
  c.out = megamoe::config::DType::F32;
  c.pullRows = true;
  c.pullTopk = 2;
  c.pullRanks = 1;
  c.pullTokens = 64;
  c.pullScaleBlock = 128;
  c.pullAlign = 128;
  std::optional<std::string> error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("pull-rows needs swiglu"), std::string::npos) << *error;
  c.swiglu = true;
  EXPECT_FALSE(megamoe::verifyGroupedGemmConfig(c));
  c.halfBlocks = true; // a pool_block_expert entry is then 64 rows
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("pull-align must be the rows of one pool_block_expert "
                        "entry (64, half blocks), got 128"),
            std::string::npos)
      << *error;
  c.pullAlign = 64;
  EXPECT_FALSE(megamoe::verifyGroupedGemmConfig(c));
  c.pullScaleBlock = 96;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("pull-scale-block that divides k"), std::string::npos)
      << *error;
  c.pullScaleBlock = 128;
  c.pullRanks = 0;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("pull-topk, pull-ranks and pull-tokens >= 1"),
            std::string::npos)
      << *error;
  c.pullRanks = 1;
  c.chip = megamoe::config::Chip::SM100a;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("pull-rows is built for sm_90a"), std::string::npos)
      << *error;
  c.chip = megamoe::config::Chip::SM90a;
  // A ring pool (the fused GEMM kernel's): more layout rows than the pool's
  // 1152, whole m-blocks.
  c.halfBlocks = false;
  c.pullAlign = 128;
  ASSERT_FALSE(megamoe::verifyGroupedGemmConfig(c));
  c.poolLayoutRows = 4096;
  EXPECT_TRUE(c.poolRing());
  EXPECT_EQ(c.layoutRowCapacity(), 4096);
  EXPECT_FALSE(megamoe::verifyGroupedGemmConfig(c));
  c.poolLayoutRows = 1152;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("pool-layout-rows (1152) must exceed static-m (1152)"),
            std::string::npos)
      << *error;
  c.poolLayoutRows = 4096;
  c.halfBlocks = true;
  c.pullAlign = 64;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("a ring pool (pool-layout-rows) needs"),
            std::string::npos)
      << *error;
}

TEST_F(Fixture, APreferringViewFindsThePrefixedCopyFirst) {
  // moe_fused's combine reads its own copies of its parameters
  // ("combine.rank") through BoundKernel::preferring; names without a copy
  // fall back to the kernel's own.
  OpBuilder b(&context);
  b.setInsertionPointToEnd(gpuModule.getBody());
  Type i32 = b.getI32Type();
  megamoe::BoundKernel kernel = megamoe::createBoundKernel(
      b, b.getUnknownLoc(), "k",
      {{"rank", "value:rank", i32}, {"combine.rank", "value:rank", i32},
       {"num_tokens", "value:num_tokens", i32}},
      128, 128, "sm_90a", megamoe::persistentGrid(b));
  Block &body = kernel.op().getBody().front();
  megamoe::BoundKernel view = kernel.preferring("combine.");
  EXPECT_EQ(kernel.arg("rank"), body.getArgument(0));
  EXPECT_EQ(view.arg("rank"), body.getArgument(1));
  EXPECT_EQ(view.arg("num_tokens"), body.getArgument(2));
  EXPECT_FALSE(view.find("y"));
}

TEST_F(Fixture, AFrameParameterWithAnotherBindingIsRefused) {
  // moe_fused's stages add their parameters to the fused GEMM kernel's; a
  // name both have must mean the same operand, else the kernel is refused
  // with a message (not built with one of the two silently dropped).
  megamoe::config::LayerConfig c;
  c.hidden = 512;
  c.intermediate = 256;
  c.experts = 8;
  c.topk = 2;
  c.maxTokensPerRank = 64;
  megamoe::config::PlanOverrides o;
  o.schedule = megamoe::config::Schedule::FusedGemm;
  megamoe::config::Plan plan;
  ASSERT_TRUE(megamoe::config::makePlan(c, o, plan).empty());
  const megamoe::config::Variant &v = plan.variants.front();
  megamoe::GroupedGemmConfig l1(megamoe::config::layerGemmProblem(
      c, plan, v, megamoe::config::LayerGemm::L1));
  megamoe::GroupedGemmConfig l2(megamoe::config::layerGemmProblem(
      c, plan, v, megamoe::config::LayerGemm::L2));
  megamoe::FusedKernelFrame frame;
  OpBuilder b(&context);
  frame.params.push_back({"a", "region:x", b.getI32Type()});
  megamoe::FusedGemmBinds binds;
  binds.l1.a = "region:l1_pool";
  binds.frame = &frame;
  std::string message;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      message += d.str();
      return success();
    });
    b.setInsertionPointToEnd(gpuModule.getBody());
    megamoe::buildFusedGemmKernel(b, b.getUnknownLoc(), "fused", l1, l2,
                                  binds);
  }
  EXPECT_NE(message.find("fused: parameter 'a' of the layer's stages (bound "
                         "to 'region:x') has another binding or type"),
            std::string::npos)
      << message;
  EXPECT_TRUE(gpuModule.getBody()->getOps<warpspec::KernelOp>().empty());
}

TEST(GroupedGemmConfig, FloatOutputTilesFitFiveStages) {
  // As many stages as fit (the K loop rolled: no unrolledStageCount). The
  // FP32 tile's extra 32 KiB still leave 5 stages (33296 B each): the plan
  // reserves the mbarriers' exact bytes, no slack.
  megamoe::GroupedGemmConfig bf16;
  bf16.unrollStages = false;
  megamoe::GroupedGemmConfig f32;
  f32.unrollStages = false;
  f32.out = megamoe::config::DType::F32;
  EXPECT_EQ(f32.plan().fixedBytes() - bf16.plan().fixedBytes(),
            2 * 64 * 128 * 2);
  EXPECT_EQ(bf16.plan().stages, 5);
  EXPECT_EQ(f32.plan().stages, 5);
}

TEST(GroupedGemmConfig, StaticMReplacesMaxM) {
  megamoe::GroupedGemmConfig c;
  c.maxM = 128;
  c.staticM = 65536;
  EXPECT_EQ(c.rowCapacity(), 65536);
  EXPECT_FALSE(megamoe::verifyGroupedGemmConfig(c));
  c.staticM = 192;
  std::optional<std::string> error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("static-m"), std::string::npos) << *error;
}

} // namespace

// Expert blocks: BLOCK_M 256 with the combine scatter over a layer pool
// (static M a multiple of 64, not of 256), and nothing it is not built with.
TEST(GroupedGemmConfig, ExpertBlocksAreTheLayersL2GemmAtBlockM256) {
  megamoe::GroupedGemmConfig c;
  c.experts = 8;
  c.n = 512;
  c.k = 256;
  c.staticM = 1152; // 4.5 blocks of 256
  c.deviceMBlocks = true;
  c.blockM = 256;
  c.blockN = 128;
  c.combineScatter = true;
  c.combineTokens = 64;
  c.combineTopk = 2;
  c.combineRanks = 1;
  std::optional<std::string> error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("combine-scatter without expert-blocks"),
            std::string::npos)
      << *error;
  c.expertBlocks = true;
  EXPECT_FALSE(megamoe::verifyGroupedGemmConfig(c));
  c.blockM = 128;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("expert-blocks needs block-m 256"), std::string::npos)
      << *error;
  c.blockM = 256;
  c.staticM = 1120; // not a whole 64-row unit
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("multiple of 64 (expert blocks)"), std::string::npos)
      << *error;
  c.staticM = 1152;
  c.aScaleGroups = 2;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("expert-blocks is not built with"), std::string::npos)
      << *error;
  c.aScaleGroups = 1;
  c.blockN = 256;
  error = megamoe::verifyGroupedGemmConfig(c);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("block-m 256 needs block-n 128"), std::string::npos)
      << *error;
}
