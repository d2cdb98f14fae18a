//===- RunCubin.cpp - megamoe-run-cubin: launch one kernel, print ---------===//
//
//   megamoe-run-cubin MANIFEST KERNEL [--out NAME=COUNT]... [--i32 NAME=V]...
//                     [--f32 NAME=V]... [--symbol NAME=V]... [--device D]
//
// Loads the manifest's cubin through the C API, allocates each --out
// parameter as COUNT zeroed int32 values, launches KERNEL once, and prints
// each output as "NAME: v0 v1 ..." (for FileCheck in GPU lit tests and the
// GPU test script). Errors print the runtime's message and exit 1.
//
//===----------------------------------------------------------------------===//
#include "megamoe/runtime.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static int die(const std::string &what) {
  fprintf(stderr, "megamoe-run-cubin: %s\n", what.c_str());
  return 1;
}

static bool splitKv(const char *s, std::string &k, std::string &v) {
  std::string a = s;
  size_t eq = a.find('=');
  if (eq == std::string::npos)
    return false;
  k = a.substr(0, eq);
  v = a.substr(eq + 1);
  return true;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return die("usage: megamoe-run-cubin MANIFEST KERNEL [--out NAME=COUNT] "
               "[--i32 NAME=V] [--f32 NAME=V] [--symbol NAME=V] [--device D]");
  int device = 0;
  std::vector<std::string> names; // stable storage for the C strings
  names.reserve(argc);
  std::vector<megamoe_arg> args;
  std::vector<megamoe_symbol> symbols;
  struct Out {
    size_t arg;
    size_t count;
  };
  std::vector<Out> outs;
  for (int i = 3; i + 1 < argc; i += 2) {
    std::string flag = argv[i], k, v;
    if (flag == "--device") {
      device = atoi(argv[i + 1]);
      continue;
    }
    if (!splitKv(argv[i + 1], k, v))
      return die("expected NAME=VALUE after " + flag);
    names.push_back(k);
    if (flag == "--symbol") {
      symbols.push_back({names.back().c_str(), atoll(v.c_str())});
      continue;
    }
    megamoe_arg a = {names.back().c_str(), 0, 0.0, nullptr, 0};
    if (flag == "--out") {
      size_t count = strtoull(v.c_str(), nullptr, 10);
      if (cudaSetDevice(device) != cudaSuccess ||
          cudaMalloc(&a.pointer, count * 4) != cudaSuccess ||
          cudaMemset(a.pointer, 0, count * 4) != cudaSuccess)
        return die("cannot allocate " + k);
      a.bytes = count * 4;
      outs.push_back({args.size(), count});
    } else if (flag == "--i32") {
      a.integer = atoll(v.c_str());
    } else if (flag == "--f32") {
      a.real = atof(v.c_str());
    } else {
      return die("unknown flag " + flag);
    }
    args.push_back(a);
  }
  megamoe_module_t module = nullptr;
  if (megamoe_module_load(argv[1], device, &module) != MEGAMOE_OK)
    return die(megamoe_last_error());
  if (megamoe_launch(module, argv[2], args.data(), (int)args.size(),
                     symbols.data(), (int)symbols.size(),
                     nullptr) != MEGAMOE_OK)
    return die(megamoe_last_error());
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    // A timed wait that trapped left its report (the runtime also printed
    // it to stdout when this read it).
    std::string report = megamoe_timeout_report();
    return die(std::string("kernel failed: ") + cudaGetErrorString(e) +
               (report.empty() ? "" : "; " + report));
  }
  for (const Out &o : outs) {
    std::vector<int> host(o.count);
    cudaMemcpy(host.data(), args[o.arg].pointer, o.count * 4,
               cudaMemcpyDeviceToHost);
    printf("%s:", args[o.arg].name);
    for (int x : host)
      printf(" %d", x);
    printf("\n");
  }
  megamoe_module_destroy(module);
  return 0;
}
