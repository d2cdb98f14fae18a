//===- Expr.cpp - integer expressions of the manifest ---------------------===//
//
// A recursive-descent evaluator; the grammar is
//   expr   := term (('+' | '-') term)*
//   term   := unary (('*' | '/') unary)*
//   unary  := '-' unary | primary
//   primary:= INT | IDENT | IDENT '(' expr (',' expr)* ')' | '(' expr ')'
//
//===----------------------------------------------------------------------===//
#include "megamoe/runtime/Expr.h"
#include "megamoe/runtime/Error.h"

#include <cctype>
#include <vector>

namespace megamoe::rt {
namespace {

class Parser {
public:
  Parser(const std::string &text, const SymbolTable &symbols)
      : text_(text), symbols_(symbols) {}

  int64_t parseAll() {
    int64_t value = parseExpr();
    skipSpace();
    if (pos_ != text_.size())
      error("unexpected '" + std::string(1, text_[pos_]) + "'");
    return value;
  }

private:
  [[noreturn]] void error(const std::string &what) const {
    fail(ErrorKind::Manifest, "expression \"" + text_ + "\": " + what +
                                  " at column " + std::to_string(pos_ + 1));
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace((unsigned char)text_[pos_]))
      ++pos_;
  }

  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!consume(c))
      error(std::string("expected '") + c + "'");
  }

  [[noreturn]] void overflow() const {
    fail(ErrorKind::Manifest,
         "expression \"" + text_ + "\": 64-bit integer overflow");
  }
  int64_t add(int64_t a, int64_t b) const {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
      overflow();
    return r;
  }
  int64_t sub(int64_t a, int64_t b) const {
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
      overflow();
    return r;
  }
  int64_t mul(int64_t a, int64_t b) const {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
      overflow();
    return r;
  }

  int64_t parseExpr() {
    int64_t lhs = parseTerm();
    for (;;) {
      if (consume('+'))
        lhs = add(lhs, parseTerm());
      else if (consume('-'))
        lhs = sub(lhs, parseTerm());
      else
        return lhs;
    }
  }

  int64_t parseTerm() {
    int64_t lhs = parseUnary();
    for (;;) {
      if (consume('*')) {
        lhs = mul(lhs, parseUnary());
      } else if (consume('/')) {
        int64_t rhs = parseUnary();
        if (rhs == 0)
          error("division by zero");
        lhs = lhs / rhs;
      } else {
        return lhs;
      }
    }
  }

  int64_t parseUnary() {
    if (consume('-'))
      return sub(0, parseUnary());
    return parsePrimary();
  }

  int64_t parsePrimary() {
    skipSpace();
    if (pos_ >= text_.size())
      error("unexpected end");
    char c = text_[pos_];
    if (consume('(')) {
      int64_t v = parseExpr();
      expect(')');
      return v;
    }
    if (std::isdigit((unsigned char)c))
      return parseInteger();
    if (std::isalpha((unsigned char)c) || c == '_')
      return parseName();
    error("unexpected '" + std::string(1, c) + "'");
  }

  int64_t parseInteger() {
    int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_])) {
      v = add(mul(v, 10), text_[pos_] - '0');
      ++pos_;
    }
    return v;
  }

  int64_t parseName() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum((unsigned char)text_[pos_]) || text_[pos_] == '_'))
      ++pos_;
    std::string name = text_.substr(start, pos_ - start);
    if (consume('('))
      return parseCall(name);
    auto it = symbols_.find(name);
    if (it == symbols_.end())
      fail(ErrorKind::Manifest,
           "expression \"" + text_ + "\": unknown symbol '" + name + "'");
    return it->second;
  }

  int64_t parseCall(const std::string &name) {
    std::vector<int64_t> args{parseExpr()};
    while (consume(','))
      args.push_back(parseExpr());
    expect(')');
    if (name != "ceil_div" && name != "min" && name != "max")
      error("unknown function '" + name + "' (known: ceil_div, min, max)");
    if (args.size() != 2)
      error("'" + name + "' takes 2 arguments, got " +
            std::to_string(args.size()));
    int64_t a = args[0], b = args[1];
    if (name == "min")
      return a < b ? a : b;
    if (name == "max")
      return a > b ? a : b;
    if (b <= 0 || a < 0)
      error("ceil_div needs a >= 0 and b > 0, got ceil_div(" +
            std::to_string(a) + ", " + std::to_string(b) + ")");
    return a / b + (a % b != 0);
  }

  const std::string &text_;
  const SymbolTable &symbols_;
  size_t pos_ = 0;
};

} // namespace

int64_t evaluateExpr(const std::string &text, const SymbolTable &symbols) {
  return Parser(text, symbols).parseAll();
}

} // namespace megamoe::rt
