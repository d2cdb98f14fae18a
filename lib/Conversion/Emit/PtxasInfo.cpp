//===- PtxasInfo.cpp - parse `ptxas -v` resource reports ------------------===//
#include "megamoe/Conversion/PtxasInfo.h"

#include <regex>
#include <sstream>

namespace {

/// The integer before `what` in `line` ("168 registers" -> 168), or -1.
int64_t numberBefore(const std::string &line, const std::string &what) {
  std::regex re("([0-9]+) " + what);
  std::smatch m;
  if (!std::regex_search(line, m, re))
    return -1;
  return std::stoll(m[1].str());
}

void setIfFound(int64_t &field, int64_t value) {
  if (value >= 0)
    field = value;
}

} // namespace

std::vector<megamoe::PtxasFunctionInfo>
megamoe::parsePtxasVerbose(const std::string &text) {
  std::vector<PtxasFunctionInfo> result;
  // "Function properties for NAME" opens a record; "Compiling entry function
  // 'NAME'" precedes it for kernels. The stack/spill line and the "Used"
  // line that follow belong to the most recent record.
  static const std::regex propsRe("Function properties for ([A-Za-z0-9_$.]+)");
  static const std::regex entryRe("Compiling entry function '([^']+)'");
  std::istringstream in(text);
  std::string line;
  PtxasFunctionInfo *current = nullptr;
  auto open = [&](const std::string &name) {
    for (PtxasFunctionInfo &f : result)
      if (f.name == name) {
        current = &f;
        return;
      }
    result.push_back(PtxasFunctionInfo{});
    result.back().name = name;
    current = &result.back();
  };
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entryRe) ||
        std::regex_search(line, m, propsRe)) {
      open(m[1].str());
      continue;
    }
    if (!current)
      continue;
    if (line.find("stack frame") != std::string::npos) {
      setIfFound(current->stackFrameBytes,
                 numberBefore(line, "bytes stack frame"));
      setIfFound(current->spillStoresBytes,
                 numberBefore(line, "bytes spill stores"));
      setIfFound(current->spillLoadsBytes,
                 numberBefore(line, "bytes spill loads"));
      continue;
    }
    if (line.find("Used ") != std::string::npos &&
        line.find("registers") != std::string::npos) {
      setIfFound(current->registers, numberBefore(line, "registers"));
      setIfFound(current->barriers, numberBefore(line, "barriers"));
      setIfFound(current->staticSmemBytes, numberBefore(line, "bytes smem"));
      size_t at = line.find("Used ");
      current->usedLine = line.substr(at);
    }
  }
  return result;
}
