//===- RegistrationTest.cpp - the driver's dialect registry ---------------===//
#include "megamoe/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace {

TEST(Registration, ProjectDialectsAreKnown) {
  mlir::DialectRegistry registry;
  megamoe::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  EXPECT_NE(context.getOrLoadDialect("warpspec"), nullptr);
  EXPECT_NE(context.getOrLoadDialect("megamoe"), nullptr);
  EXPECT_NE(context.getOrLoadDialect("nvvm"), nullptr);
  EXPECT_EQ(context.getOrLoadDialect("no_such_dialect"), nullptr);
}

TEST(Registration, ParsesAGpuModuleWithAnNvvmTarget) {
  mlir::DialectRegistry registry;
  megamoe::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  const char *source = R"mlir(
    module attributes {gpu.container_module} {
      gpu.module @k [#nvvm.target<chip = "sm_90a">] {
        llvm.func @f() attributes {nvvm.kernel} { llvm.return }
      }
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module);
}

} // namespace
