//===- ManifestInfo.cpp - megamoe-manifest-info: read a manifest, resolve
//--===//
//
//   megamoe-manifest-info MANIFEST [--num-sms N] [--symbol NAME=V]...
//
// Reads MANIFEST with the runtime's reader (no GPU) and prints, for each
// kernel, its grid and TMA extents as the manifest states them and as a
// launch on N SMs (default 132) with the given runtime symbols resolves them:
//
//   kernel grouped_gemm_fp8 grid [num_sms, 1, 1] = [132, 1, 1]
//   tma a global_shape [7168, M] = [7168, 1024] global_strides_bytes [7168] =
//   [7168]
//
// A field left unresolved (a runtime symbol not given) prints as "?". Errors
// print the runtime's message and exit 1 (the lit tests of the compiler's
// manifests read them back through this tool).
//
//===----------------------------------------------------------------------===//
#include "megamoe/runtime/Error.h"
#include "megamoe/runtime/LaunchShape.h"
#include "megamoe/runtime/Manifest.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace megamoe::rt;

namespace {

int die(const std::string &what) {
  fprintf(stderr, "megamoe-manifest-info: %s\n", what.c_str());
  return 1;
}

/// "[a, b] = [x, y]": the fields as written and their values ("?" when a
/// symbol is missing).
template <typename Dims>
std::string resolved(const Dims &dims, int64_t numSms,
                     const SymbolTable &symbols) {
  std::string written, values;
  for (const LaunchDim &d : dims) {
    written += (written.empty() ? "" : ", ") + describe(d);
    std::string v = "?";
    try {
      v = std::to_string(evaluate(d, numSms, symbols));
    } catch (const Error &) {
    }
    values += (values.empty() ? "" : ", ") + v;
  }
  return "[" + written + "] = [" + values + "]";
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return die("usage: megamoe-manifest-info MANIFEST [--num-sms N] "
               "[--symbol NAME=V]...");
  int64_t numSms = 132;
  SymbolTable symbols;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--num-sms" && i + 1 < argc) {
      numSms = atoll(argv[++i]);
    } else if (a == "--symbol" && i + 1 < argc) {
      std::string kv = argv[++i];
      size_t eq = kv.find('=');
      if (eq == std::string::npos)
        return die("--symbol needs NAME=VALUE, got '" + kv + "'");
      symbols[kv.substr(0, eq)] = atoll(kv.c_str() + eq + 1);
    } else {
      return die("unknown argument '" + a + "'");
    }
  }
  try {
    Manifest m = loadManifestFile(argv[1]);
    for (const KernelSpec &k : m.kernels) {
      printf("kernel %s grid %s\n", k.name.c_str(),
             resolved(k.grid, numSms, symbols).c_str());
      for (const TmaSpec &t : k.tmaDescriptors)
        printf("tma %s global_shape %s global_strides_bytes %s\n",
               t.name.c_str(), resolved(t.globalShape, numSms, symbols).c_str(),
               resolved(t.globalStridesBytes, numSms, symbols).c_str());
    }
  } catch (const Error &e) {
    return die(e.what());
  }
  return 0;
}
