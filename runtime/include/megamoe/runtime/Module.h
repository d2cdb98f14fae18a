//===- Module.h - loaded cubins and kernel launch ---------------*- C++ -*-===//
//
// A Module is one manifest + its cubin loaded into the primary context of one
// device: every kernel the manifest lists is looked up once and its dynamic
// shared memory limit raised, so launch() only binds arguments, encodes TMA
// descriptors on the host and calls cuLaunchKernelEx (stream-ordered, no host
// synchronization, no device allocation: CUDA-graph capturable).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_MODULE_H
#define MEGAMOE_RUNTIME_MODULE_H

#include "megamoe/runtime/Args.h"
#include "megamoe/runtime/Manifest.h"

#include <array>
#include <memory>
#include <string>

typedef struct CUstream_st *CUstream;

namespace megamoe::rt {

class Module {
public:
  /// Reads the manifest at `manifestPath` and the cubin it names.
  static std::unique_ptr<Module> loadFile(const std::string &manifestPath,
                                          int device);
  /// Uses cubin bytes the caller holds (e.g. an embedded header).
  static std::unique_ptr<Module>
  loadMemory(Manifest manifest, const void *cubin, size_t size, int device);
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const Manifest &manifest() const { return manifest_; }
  int device() const { return device_; }
  int numSms() const { return numSms_; }

  /// Launches `kernel` on `stream` (nullptr = the legacy default stream).
  void launch(const std::string &kernel, const ArgMap &args,
              const SymbolTable &runtimeSymbols, CUstream stream) const;

  /// Launches manifest().kernels[index] with `grid` and kernel parameters
  /// already laid out (`params[i]` points at parameter i's value, a
  /// CUtensorMap for a descriptor). No argument checks, no allocation: the
  /// layer schedule's hot path. The device's primary context must be current.
  void launchPrepared(size_t index, const std::array<uint32_t, 3> &grid,
                      void **params, CUstream stream) const;

private:
  Module(Manifest manifest, int device);
  void load(const void *cubin, size_t size);
  /// Points the cubin's timeout-record global, if it has one, at the
  /// process's record (TimeoutReport.h).
  void pointTimeoutRecord();

  Manifest manifest_;
  int device_ = 0;
  int numSms_ = 0;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Checks that `chip` (manifest, e.g. "sm_90a") can run on `device`. Throws
/// Error(Unsupported) naming both otherwise.
void checkChipMatchesDevice(const std::string &chip, int device);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_MODULE_H
