//===- Cache.h - compiled layers cached by what they were compiled for -*- C++ -*-===//
//
// compileCached returns the manifest of a layer compiled for (layer options,
// plan options, compiler version) from a cache folder, compiling it with
// megamoe-opt on a miss. The layer options carry the config and the chip
// (`hidden=4096 intermediate=2048 ... chip=sm_90a`, megamoe-opt's
// --megamoe-layer spelling), the plan options megamoe-plan's
// (`schedule=unfused`). One megamoe-opt run compiles every variant of the
// plan, so all ranks get the same kernels from the same compile. Entries are
// written under a temporary name and renamed into place, so concurrent
// callers (several ranks on one machine) never see half an entry.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_CACHE_H
#define MEGAMOE_RUNTIME_CACHE_H

#include <string>

namespace megamoe::rt {

/// What the manifests this runtime reads were compiled by: bump it with the
/// compiler (a changed kernel must not be served from an old entry).
inline constexpr const char *kCompilerVersion = "megamoe-0.1.0/manifest-1";

struct CompileRequest {
  std::string layerOptions;        // --megamoe-layer options (chip defaults to sm_90a)
  std::string planOptions = "schedule=unfused"; // --megamoe-plan options
  std::string compilerVersion = kCompilerVersion;
  std::string cacheDir;
  /// megamoe-opt to run on a miss; empty: none (a miss is an error that
  /// prints the command to run).
  std::string megamoeOpt;
};

/// The canonical text the cache key is a hash of: the options sorted by name
/// (chip added when absent), then the plan options and the version.
std::string cacheKeyText(const CompileRequest &r);
/// 16 hex digits (FNV-1a 64 of cacheKeyText): the entry's folder name.
std::string cacheKey(const CompileRequest &r);

/// The megamoe-opt command line that compiles `r` into `emitDir`.
std::string compileCommand(const CompileRequest &r, const std::string &emitDir);

/// The manifest path of `r`'s cache entry, compiling it on a miss. Throws
/// Error(InvalidArgument) for malformed options, Error(NotAvailable) on a miss
/// without megamoe-opt (the message holds the exact command), Error(Io) when
/// megamoe-opt fails (its output in the message) or the cache cannot be
/// written.
std::string compileCached(const CompileRequest &r);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_CACHE_H
