//===- Args.cpp - binding call arguments to a manifest kernel -------------===//
#include "megamoe/runtime/Args.h"
#include "megamoe/runtime/Error.h"

#include <cstring>
#include <limits>

namespace megamoe::rt {
namespace {

uint64_t integerBits(const ParamSpec &p, const std::string &who, int64_t v) {
  auto inRange = [&](int64_t lo, int64_t hi) {
    if (v < lo || v > hi)
      fail(ErrorKind::InvalidArgument,
           who + ": value " + std::to_string(v) + " does not fit " +
               paramKindName(p.kind) + " [" + std::to_string(lo) + ", " +
               std::to_string(hi) + "]");
  };
  switch (p.kind) {
  case ParamKind::I32:
    inRange(INT32_MIN, INT32_MAX);
    return (uint32_t)(int32_t)v;
  case ParamKind::U32:
    inRange(0, UINT32_MAX);
    return (uint32_t)v;
  case ParamKind::U64:
    inRange(0, INT64_MAX);
    return (uint64_t)v;
  default:
    return (uint64_t)v;
  }
}

} // namespace

std::array<uint32_t, 3> evaluateGrid(const KernelSpec &kernel, int numSms) {
  const std::string who = "kernel '" + kernel.name + "'";
  static const int64_t limits[3] = {INT32_MAX, 65535, 65535};
  std::array<uint32_t, 3> grid{};
  for (int i = 0; i < 3; ++i) {
    int64_t g = evaluate(kernel.grid[i], numSms, {});
    // A persistent grid (one CTA per SM, at most N) runs whole clusters:
    // the SMs of a partial one stay idle (the tile loop walks clusters,
    // so fewer of them still cover every tile).
    if (kernel.grid[i].kind == LaunchDim::Kind::NumSms &&
        g >= kernel.cluster[i])
      g -= g % kernel.cluster[i];
    require(g >= 1 && g <= limits[i],
            who + ": grid[" + std::to_string(i) +
                "] = " + describe(kernel.grid[i]) + " = " + std::to_string(g) +
                " must be in [1, " + std::to_string(limits[i]) + "]");
    require(g % kernel.cluster[i] == 0,
            who + ": grid[" + std::to_string(i) + "] = " + std::to_string(g) +
                " is not a multiple of the cluster size " +
                std::to_string(kernel.cluster[i]));
    grid[i] = (uint32_t)g;
  }
  return grid;
}

BoundLaunch bindLaunch(const Manifest &manifest, const KernelSpec &kernel,
                       const ArgMap &args, const SymbolTable &runtimeSymbols,
                       int numSms) {
  const std::string who = "kernel '" + kernel.name + "'";
  BoundLaunch launch;
  for (const std::string &s : manifest.runtimeSymbols) {
    auto it = runtimeSymbols.find(s);
    require(it != runtimeSymbols.end(),
            who + ": runtime symbol '" + s + "' was not given");
    launch.symbols[s] = it->second;
  }
  for (const auto &[name, value] : runtimeSymbols) {
    bool known = false;
    for (const std::string &s : manifest.runtimeSymbols)
      known |= s == name;
    require(known,
            who + ": '" + name + "' is not a runtime symbol of this manifest");
  }

  for (const auto &[name, value] : args) {
    bool known = false;
    for (const ParamSpec &p : kernel.params)
      known |= p.name == name;
    require(known, who + " has no parameter named '" + name + "'");
  }

  for (const ParamSpec &p : kernel.params) {
    std::string pw = who + ", parameter '" + p.name + "'";
    auto it = args.find(p.name);
    require(it != args.end(),
            pw + " (" + paramKindName(p.kind) + ") was not given");
    const ArgValue &v = it->second;
    BoundParam b;
    b.kind = p.kind;
    switch (p.kind) {
    case ParamKind::Pointer:
      require(v.address != 0, pw + " is a null pointer");
      b.bits = v.address;
      break;
    case ParamKind::F32: {
      float f = (float)v.real;
      uint32_t u;
      std::memcpy(&u, &f, 4);
      b.bits = u;
      break;
    }
    case ParamKind::TmaDescriptor:
      b.tma = computeTmaParams(*kernel.findTma(p.tma), launch.symbols,
                               v.address, v.bytes);
      break;
    default:
      b.bits = integerBits(p, pw, v.integer);
    }
    launch.params.push_back(b);
  }

  launch.grid = evaluateGrid(kernel, numSms);
  return launch;
}

} // namespace megamoe::rt
