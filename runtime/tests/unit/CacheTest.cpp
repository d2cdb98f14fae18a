//===- CacheTest.cpp - the compiled-layer cache: key, hit, miss, no compiler ===//
//
// A stand-in megamoe-opt (a shell script) records each call and writes the
// manifest into its emit-dir, so the cache's paths are tested without LLVM.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "megamoe/runtime/Cache.h"
#include "megamoe/runtime/Manifest.h"

#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace megamoe::rt;

namespace {

/// A fresh folder, removed with everything in it when the test ends.
class TempDir {
public:
  TempDir() {
    char tmpl[] = "/tmp/megamoe-cache-test-XXXXXX";
    const char *d = ::mkdtemp(tmpl);
    EXPECT_NE(d, nullptr);
    path_ = d ? d : "";
  }
  ~TempDir() {
    if (!path_.empty())
      std::system(("rm -rf '" + path_ + "'").c_str());
  }
  operator std::string() const { return path_; }

private:
  std::string path_;
};

/// A fake compiler that appends its arguments to `log` and writes a manifest
/// naming the layer options into emit-dir (or fails when `fails`).
std::string fakeCompiler(const std::string &dir, const std::string &log,
                         bool fails = false) {
  std::string path = dir + (fails ? "/failing-opt" : "/fake-opt");
  std::ofstream f(path);
  f << "#!/bin/sh\n"
    << "echo \"$@\" >> '" << log << "'\n"
    << (fails ? "echo 'error: no such option' >&2; exit 1\n" : "")
    << "for a in \"$@\"; do case \"$a\" in\n"
    << "  --megamoe-to-cubin=*) d=${a#*emit-dir=};;\n"
    << "esac; done\n"
    << "cat > /dev/null\n"
    << "mkdir -p \"$d\" && echo '{\"fake\": true}' > \"$d/layer.json\"\n";
  f.close();
  ::chmod(path.c_str(), 0755);
  return path;
}

int lines(const std::string &path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string l; std::getline(in, l);)
    ++n;
  return n;
}

CompileRequest request(const std::string &cache) {
  CompileRequest r;
  r.layerOptions =
      "hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64";
  r.cacheDir = cache;
  return r;
}

TEST(Cache, KeyIsCanonicalAndCoversEveryPart) {
  CompileRequest a = request("/c");
  CompileRequest b = a;
  b.layerOptions =
      "max-tokens=64 ranks=1 topk=2 experts=8 intermediate=256 hidden=512 "
      "chip=sm_90a";
  EXPECT_EQ(cacheKey(a), cacheKey(b));
  EXPECT_EQ(cacheKeyText(a),
            "layer: chip=sm_90a experts=8 hidden=512 intermediate=256 "
            "max-tokens=64 ranks=1 topk=2\nplan: schedule=unfused\ncompiler: " +
                std::string(kCompilerVersion) + "\n");
  b = a;
  b.planOptions = "schedule=unfused block-m=128";
  EXPECT_NE(cacheKey(a), cacheKey(b));
  b = a;
  b.layerOptions += " clamp=10";
  EXPECT_NE(cacheKey(a), cacheKey(b));
  b = a;
  b.compilerVersion = "other";
  EXPECT_NE(cacheKey(a), cacheKey(b));
  b = a;
  b.layerOptions += " chip=sm_100a";
  EXPECT_NE(cacheKey(a), cacheKey(b));
  EXPECT_EQ(cacheKey(a).size(), 16u);
  b = a;
  b.layerOptions += " topk=3";
  EXPECT_RT_ERROR(cacheKey(b), ErrorKind::InvalidArgument,
                  "layer option 'topk' given twice");
  b = a;
  b.layerOptions += " clamp";
  EXPECT_RT_ERROR(cacheKey(b), ErrorKind::InvalidArgument,
                  "layer option 'clamp' is not name=value");
}

TEST(Cache, MissCompilesOnceThenHits) {
  TempDir tmp;
  const std::string dir = tmp;
  std::string log = dir + "/calls.log";
  CompileRequest r = request(dir + "/cache");
  r.megamoeOpt = fakeCompiler(dir, log);
  std::string manifest = compileCached(r);
  EXPECT_EQ(manifest, dir + "/cache/" + cacheKey(r) + "/layer.json");
  EXPECT_EQ(readFileBytes(manifest), "{\"fake\": true}\n");
  EXPECT_EQ(lines(log), 1);
  std::string call = readFileBytes(log);
  EXPECT_NE(call.find("--megamoe-layer=chip=sm_90a experts=8 hidden=512"),
            std::string::npos)
      << call;
  EXPECT_NE(call.find("--megamoe-plan=schedule=unfused --megamoe-expand"),
            std::string::npos)
      << call;
  // A hit runs no compiler, even a missing one.
  EXPECT_EQ(compileCached(r), manifest);
  r.megamoeOpt.clear();
  EXPECT_EQ(compileCached(r), manifest);
  EXPECT_EQ(lines(log), 1);
  // Another plan is another entry.
  r.megamoeOpt = fakeCompiler(dir, log);
  r.planOptions = "schedule=unfused block-m=64";
  EXPECT_NE(compileCached(r), manifest);
  EXPECT_EQ(lines(log), 2);
}

TEST(Cache, MissWithoutACompilerPrintsTheCommand) {
  TempDir tmp;
  const std::string dir = tmp;
  CompileRequest r = request(dir + "/cache");
  EXPECT_RT_ERROR(compileCached(r), ErrorKind::NotAvailable,
                  "no megamoe-opt to compile it; run (then call again):\n  "
                  "echo 'module {}' | 'megamoe-opt' --megamoe-layer='chip=sm_90a "
                  "experts=8 hidden=512 intermediate=256 max-tokens=64 ranks=1 "
                  "topk=2' --megamoe-plan='schedule=unfused' --megamoe-expand "
                  "--megamoe-to-cubin='chip=sm_90a emit-dir=" +
                      dir + "/cache/" + cacheKey(r) + "'");
  r.megamoeOpt = dir + "/nope/megamoe-opt";
  EXPECT_RT_ERROR(compileCached(r), ErrorKind::NotAvailable,
                  "no megamoe-opt at '" + dir + "/nope/megamoe-opt'");
  EXPECT_RT_ERROR(compileCached(r), ErrorKind::NotAvailable,
                  "again):\n  echo 'module {}' | 'megamoe-opt' ");
}

TEST(Cache, AFailingCompilerLeavesNoEntry) {
  TempDir tmp;
  const std::string dir = tmp;
  std::string log = dir + "/calls.log";
  CompileRequest r = request(dir + "/cache");
  r.megamoeOpt = fakeCompiler(dir, log, /*fails=*/true);
  EXPECT_RT_ERROR(compileCached(r), ErrorKind::Io,
                  "megamoe-opt failed:");
  EXPECT_RT_ERROR(compileCached(r), ErrorKind::Io, "error: no such option");
  struct stat st;
  EXPECT_NE(::stat((dir + "/cache/" + cacheKey(r)).c_str(), &st), 0);
}

} // namespace
