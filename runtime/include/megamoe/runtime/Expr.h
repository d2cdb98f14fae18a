//===- Expr.h - integer expressions of the manifest -------------*- C++ -*-===//
//
// Manifest shapes, strides and grids are integers or strings over symbols with
// + - * / (integer division), ceil_div(a, b), min(a, b), max(a, b), parentheses
// and integer literals (docs/Manifest.md).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_EXPR_H
#define MEGAMOE_RUNTIME_EXPR_H

#include <cstdint>
#include <map>
#include <string>

namespace megamoe::rt {

using SymbolTable = std::map<std::string, int64_t>;

/// Evaluates `text` with `symbols`. Throws Error(Manifest) naming the problem:
/// an unknown symbol, a syntax error (with its column), a division by zero or
/// an overflow of 64-bit signed arithmetic.
int64_t evaluateExpr(const std::string &text, const SymbolTable &symbols);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_EXPR_H
