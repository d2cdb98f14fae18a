//===- ExprTest.cpp - manifest expression evaluation ----------------------===//
#include "megamoe/runtime/Expr.h"
#include "TestUtil.h"

using namespace megamoe::rt;

namespace {

const SymbolTable kSyms = {{"K", 7168}, {"M", 100}, {"num_sms", 132}};

TEST(Expr, Literals) {
  EXPECT_EQ(evaluateExpr("42", {}), 42);
  EXPECT_EQ(evaluateExpr("  7 ", {}), 7);
}

TEST(Expr, PrecedenceAndParentheses) {
  EXPECT_EQ(evaluateExpr("2 + 3 * 4", {}), 14);
  EXPECT_EQ(evaluateExpr("(2 + 3) * 4", {}), 20);
  EXPECT_EQ(evaluateExpr("10 - 3 - 2", {}), 5);
  EXPECT_EQ(evaluateExpr("17 / 4 * 4", {}), 16);
  EXPECT_EQ(evaluateExpr("-3 + 5", {}), 2);
}

TEST(Expr, SymbolsAndFunctions) {
  EXPECT_EQ(evaluateExpr("K * 2", kSyms), 14336);
  EXPECT_EQ(evaluateExpr("ceil_div(M, 64)", kSyms), 2);
  EXPECT_EQ(evaluateExpr("ceil_div(128, 64)", kSyms), 2);
  EXPECT_EQ(evaluateExpr("ceil_div(0, 64)", kSyms), 0);
  EXPECT_EQ(evaluateExpr("min(num_sms, ceil_div(M, 32))", kSyms), 4);
  EXPECT_EQ(evaluateExpr("max(num_sms, M)", kSyms), 132);
}

TEST(Expr, UnknownSymbolIsNamed) {
  EXPECT_RT_ERROR(evaluateExpr("K * N", kSyms), ErrorKind::Manifest,
                  "unknown symbol 'N'");
}

TEST(Expr, SyntaxErrors) {
  EXPECT_RT_ERROR(evaluateExpr("K *", kSyms), ErrorKind::Manifest,
                  "unexpected end");
  EXPECT_RT_ERROR(evaluateExpr("(K", kSyms), ErrorKind::Manifest,
                  "expected ')'");
  EXPECT_RT_ERROR(evaluateExpr("K K", kSyms), ErrorKind::Manifest,
                  "unexpected 'K' at column 3");
  EXPECT_RT_ERROR(evaluateExpr("pow(2, 3)", kSyms), ErrorKind::Manifest,
                  "unknown function 'pow'");
  EXPECT_RT_ERROR(evaluateExpr("min(1)", kSyms), ErrorKind::Manifest,
                  "takes 2 arguments");
}

TEST(Expr, ArithmeticErrors) {
  EXPECT_RT_ERROR(evaluateExpr("K / (M - 100)", kSyms), ErrorKind::Manifest,
                  "division by zero");
  EXPECT_RT_ERROR(evaluateExpr("ceil_div(4, 0)", kSyms), ErrorKind::Manifest,
                  "ceil_div needs");
  EXPECT_RT_ERROR(evaluateExpr("9223372036854775807 + 1", {}),
                  ErrorKind::Manifest, "overflow");
  EXPECT_RT_ERROR(evaluateExpr("4294967296 * 4294967296", {}),
                  ErrorKind::Manifest, "overflow");
}

} // namespace
