//===- Cache.cpp - compiled layers cached by what they were compiled for --===//
#include "megamoe/runtime/Cache.h"
#include "megamoe/runtime/Error.h"
#include "megamoe/runtime/Manifest.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace megamoe::rt {
namespace {

/// "a=1 b=2" -> {a: 1, b: 2}; rejects a token without '=' or a repeated name.
std::map<std::string, std::string> parseOptions(const std::string &text,
                                                const char *what) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string token;
  while (in >> token) {
    size_t eq = token.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == token.size())
      fail(ErrorKind::InvalidArgument,
           std::string("compile: ") + what + " option '" + token +
               "' is not name=value");
    if (!out.emplace(token.substr(0, eq), token.substr(eq + 1)).second)
      fail(ErrorKind::InvalidArgument, std::string("compile: ") + what +
                                           " option '" + token.substr(0, eq) +
                                           "' given twice");
  }
  return out;
}

std::string joined(const std::map<std::string, std::string> &options) {
  std::string s;
  for (const auto &[k, v] : options)
    s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

/// Single-quoted for a POSIX shell.
std::string quoted(const std::string &s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void makeDirs(const std::string &path) {
  for (size_t i = 1; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '/') {
      std::string prefix = path.substr(0, i);
      if (::mkdir(prefix.c_str(), 0755) != 0 && !exists(prefix))
        fail(ErrorKind::Io, "compile: cannot create '" + prefix + "'");
    }
}

/// The one manifest megamoe-opt wrote into `dir` (layer.json).
std::string manifestIn(const std::string &dir) {
  return dir + "/layer.json";
}

} // namespace

std::string cacheKeyText(const CompileRequest &r) {
  std::map<std::string, std::string> layer =
      parseOptions(r.layerOptions, "layer");
  if (layer.count("name"))
    fail(ErrorKind::InvalidArgument,
         "compile: the layer option 'name' is the cache's (the entry's "
         "manifest is layer.json)");
  layer.emplace("chip", "sm_90a");
  return "layer: " + joined(layer) +
         "\nplan: " + joined(parseOptions(r.planOptions, "plan")) +
         "\ncompiler: " + r.compilerVersion + "\n";
}

std::string cacheKey(const CompileRequest &r) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : cacheKeyText(r)) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)h);
  return hex;
}

std::string compileCommand(const CompileRequest &r,
                           const std::string &emitDir) {
  std::map<std::string, std::string> layer =
      parseOptions(r.layerOptions, "layer");
  layer.emplace("chip", "sm_90a");
  const std::string chip = layer["chip"];
  return "echo 'module {}' | " +
         quoted(r.megamoeOpt.empty() ? "megamoe-opt" : r.megamoeOpt) +
         " --megamoe-layer=" + quoted(joined(layer)) +
         " --megamoe-plan=" +
         quoted(joined(parseOptions(r.planOptions, "plan"))) +
         " --megamoe-expand --megamoe-to-cubin=" +
         quoted("chip=" + chip + " emit-dir=" + emitDir) + " -o /dev/null";
}

std::string compileCached(const CompileRequest &r) {
  require(!r.cacheDir.empty(), "compile: no cache folder given");
  const std::string keyText = cacheKeyText(r);
  const std::string dir = r.cacheDir + "/" + cacheKey(r);
  const std::string manifest = manifestIn(dir);
  if (exists(manifest)) {
    // A hit must be this request, not a hash collision.
    std::string stored = readFileBytes(dir + "/key.txt");
    if (stored != keyText)
      fail(ErrorKind::Io, "compile: cache entry " + dir +
                              " holds another request (hash collision):\n" +
                              stored);
    return manifest;
  }
  if (r.megamoeOpt.empty() || !exists(r.megamoeOpt)) {
    CompileRequest plain = r; // the command names the tool, not a bad path
    plain.megamoeOpt.clear();
    fail(ErrorKind::NotAvailable,
         "compile: no cached layer for\n" + keyText + "in " + r.cacheDir +
             " and no megamoe-opt" +
             (r.megamoeOpt.empty() ? std::string()
                                   : " at '" + r.megamoeOpt + "'") +
             " to compile it; run (then call again):\n  " +
             compileCommand(plain, dir) + " && printf %s " + quoted(keyText) +
             " > " + quoted(dir + "/key.txt"));
  }
  makeDirs(r.cacheDir);
  const std::string tmp = dir + ".tmp." + std::to_string(::getpid());
  makeDirs(tmp);
  const std::string log = tmp + "/megamoe-opt.log";
  const std::string cmd = compileCommand(r, tmp) + " > " + quoted(log) + " 2>&1";
  if (std::system(cmd.c_str()) != 0 || !exists(manifestIn(tmp))) {
    std::string out = exists(log) ? readFileBytes(log) : std::string();
    std::system(("rm -rf " + quoted(tmp)).c_str());
    fail(ErrorKind::Io, "compile: megamoe-opt failed:\n  " +
                            compileCommand(r, tmp) + "\n" + out);
  }
  std::ofstream(tmp + "/key.txt", std::ios::binary) << keyText;
  // Another process may have finished the same entry first: keep its one.
  if (::rename(tmp.c_str(), dir.c_str()) != 0) {
    std::system(("rm -rf " + quoted(tmp)).c_str());
    if (!exists(manifest))
      fail(ErrorKind::Io, "compile: cannot move the entry into " + dir);
  }
  return manifest;
}

} // namespace megamoe::rt
