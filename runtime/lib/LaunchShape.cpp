//===- LaunchShape.cpp - grid and TMA extents of a manifest ---------------===//
#include "megamoe/runtime/LaunchShape.h"
#include "megamoe/runtime/Error.h"

namespace megamoe::rt {

int64_t evaluate(const LaunchDim &d, int64_t numSms,
                 const SymbolTable &symbols) {
  switch (d.kind) {
  case LaunchDim::Kind::Constant:
    return d.value;
  case LaunchDim::Kind::NumSms:
    return d.value > 0 && d.value < numSms ? d.value : numSms;
  case LaunchDim::Kind::Symbol: {
    auto it = symbols.find(d.symbol);
    require(it != symbols.end(), describe(d) + " needs the runtime symbol '" +
                                     d.symbol + "', which was not given");
    int64_t v;
    require(!__builtin_mul_overflow(it->second, d.value, &v),
            describe(d) + " with " + d.symbol + " = " +
                std::to_string(it->second) + " overflows 64 bits");
    return v;
  }
  }
  return 0;
}

std::string describe(const LaunchDim &d) {
  switch (d.kind) {
  case LaunchDim::Kind::Constant:
    return std::to_string(d.value);
  case LaunchDim::Kind::NumSms:
    return d.value > 0 ? "min(num_sms, " + std::to_string(d.value) + ")"
                       : "num_sms";
  case LaunchDim::Kind::Symbol:
    return d.value == 1 ? d.symbol : d.symbol + " * " + std::to_string(d.value);
  }
  return "?";
}

} // namespace megamoe::rt
