//===- KernelPlanLayoutTest.cpp - the plan bounds the built kernel's SMEM -===//
//
// Builds each grouped GEMM of scripts/ptx-snapshot.sh and lays out its
// shared memory with warpspec's computeSmemPlan: the layout (what the
// manifest's dynamic_smem_bytes records) must fit the KernelPlan's
// smemBytes, whose 2 KiB of mbarrier and alignment reserve is the only
// difference, and the kernel must have the plan's threads and entry
// registers.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"
#include "megamoe/Dialect/WarpSpec/Transforms/Passes.h"
#include "megamoe/InitAll.h"
#include "megamoe/Kernels/GroupedGemm.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
namespace cfg = megamoe::config;

namespace {

struct Case {
  int64_t n, k, blockM;
  const char *out;
  int64_t layoutBytes; // the base snapshot's dynamic_smem_bytes
};

TEST(KernelPlanLayout, LayoutFitsThePlan) {
  DialectRegistry registry;
  megamoe::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  const Case cases[] = {
      {4096, 7168, 128, "bf16", 165952}, {4096, 7168, 64, "bf16", 215168},
      {7168, 2048, 128, "bf16", 165952}, {7168, 2048, 64, "bf16", 215168},
      {4096, 4096, 128, "bf16", 165952}, {4096, 2048, 64, "bf16", 215168},
      {4096, 2048, 128, "f32", 198720},  {4096, 2048, 64, "f32", 231552},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(::testing::Message() << c.n << "x" << c.k << " BLOCK_M "
                                      << c.blockM << " " << c.out);
    megamoe::GroupedGemmConfig g;
    g.n = c.n;
    g.k = c.k;
    g.blockM = c.blockM;
    g.out = *megamoe::config::parseDType(c.out);
    ASSERT_FALSE(megamoe::verifyGroupedGemmConfig(g));
    OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
    megamoe::buildGroupedGemm(*module, g);
    ASSERT_TRUE(succeeded(verify(*module)));
    warpspec::KernelOp kernel;
    module->walk([&](warpspec::KernelOp k) { kernel = k; });
    ASSERT_TRUE(kernel);
    SmallVector<warpspec::SmemPlanEntry> entries;
    int64_t layout = warpspec::computeSmemPlan(kernel, entries);
    cfg::KernelPlan plan = g.plan();
    EXPECT_EQ(layout, c.layoutBytes);
    EXPECT_LE(layout, plan.smemBytes);
    EXPECT_LE(plan.smemBytes - layout, 2048);
    EXPECT_EQ(kernel.getThreads(), plan.threads);
    EXPECT_EQ(kernel.getMaxnreg(), plan.entryRegisters);
  }
}

} // namespace
