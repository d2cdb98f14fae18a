//===- megamoe-reference.cpp - CLI over the CPU reference of the MoE layer ===//
//
// Lets the Python oracle run the same case through the C++ reference
// (python/tests/test_cpp_reference.py). No MLIR or LLVM: it runs on the GPU
// machine too.
//
//   megamoe-reference layer <case.bin> <y.bf16>
//       runs the layer on a case file, writes y as raw BF16 [T, H]
//   megamoe-reference e4m3 <in.f32> <out.u8>
//       encodes raw float32 values as e4m3 (saturating RNE)
//   megamoe-reference e4m3-decode <out.f32>
//       decodes all 256 e4m3 codes
//   megamoe-reference requant <in.f32> <cols> <block> <q.u8> <sf.f32>
//       requantizes rows of `cols` floats in blocks of `block` channels
//
//===----------------------------------------------------------------------===//
#include "megamoe/Reference/CaseFile.h"
#include "megamoe/Reference/Fp8.h"
#include "megamoe/Reference/MoeLayer.h"
#include "megamoe/Reference/Quantize.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace megamoe::ref;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "megamoe-reference: error: %s\n", message.c_str());
  return 1;
}

template <typename T>
bool readRaw(const std::string &path, std::vector<T> &out) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return false;
  std::fseek(f, 0, SEEK_END);
  long bytes = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  out.resize(bytes / sizeof(T));
  bool ok = bytes % sizeof(T) == 0 &&
            std::fread(out.data(), sizeof(T), out.size(), f) == out.size();
  std::fclose(f);
  return ok;
}

template <typename T>
bool writeRaw(const std::string &path, const std::vector<T> &data) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return false;
  bool ok = std::fwrite(data.data(), sizeof(T), data.size(), f) == data.size();
  return std::fclose(f) == 0 && ok;
}

bool parsePositive(const char *text, int64_t &value) {
  char *end = nullptr;
  value = std::strtoll(text, &end, 10);
  return end && *end == '\0' && value > 0;
}

int runLayer(const std::string &casePath, const std::string &outPath) {
  MoeCase c;
  std::string error;
  if (!readCase(casePath, c, error))
    return fail(error);
  std::vector<uint16_t> y;
  if (!moeForward(c.shape, c.recipe, c.weights(), c.tokenInputs(), y, error))
    return fail(error);
  if (!writeRaw(outPath, y))
    return fail("cannot write '" + outPath + "'");
  return 0;
}

int runEncode(const std::string &inPath, const std::string &outPath) {
  std::vector<float> in;
  if (!readRaw(inPath, in))
    return fail("cannot read float32 values from '" + inPath + "'");
  std::vector<uint8_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = floatToE4M3(in[i]);
  if (!writeRaw(outPath, out))
    return fail("cannot write '" + outPath + "'");
  return 0;
}

int runDecode(const std::string &outPath) {
  std::vector<float> out(256);
  for (int c = 0; c < 256; ++c)
    out[c] = e4m3ToFloat(static_cast<uint8_t>(c));
  if (!writeRaw(outPath, out))
    return fail("cannot write '" + outPath + "'");
  return 0;
}

int runRequant(char **argv) {
  std::vector<float> in;
  int64_t cols, block;
  if (!readRaw(argv[2], in))
    return fail(std::string("cannot read float32 values from '") + argv[2] +
                "'");
  if (!parsePositive(argv[3], cols) || !parsePositive(argv[4], block) ||
      cols % block || in.size() % cols)
    return fail("cols and block must be positive, block must divide cols and "
                "cols the number of values");
  std::vector<uint8_t> q(in.size());
  std::vector<float> sf(in.size() / block);
  for (size_t r = 0; r * cols < in.size(); ++r)
    quantizeBlocks(in.data() + r * cols, cols, block, q.data() + r * cols,
                   sf.data() + r * (cols / block));
  if (!writeRaw(argv[5], q) || !writeRaw(argv[6], sf))
    return fail("cannot write the outputs");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "layer" && argc == 4)
    return runLayer(argv[2], argv[3]);
  if (mode == "e4m3" && argc == 4)
    return runEncode(argv[2], argv[3]);
  if (mode == "e4m3-decode" && argc == 3)
    return runDecode(argv[2]);
  if (mode == "requant" && argc == 7)
    return runRequant(argv);
  std::fprintf(stderr,
               "usage: megamoe-reference layer <case.bin> <y.bf16>\n"
               "       megamoe-reference e4m3 <in.f32> <out.u8>\n"
               "       megamoe-reference e4m3-decode <out.f32>\n"
               "       megamoe-reference requant <in.f32> <cols> <block> "
               "<q.u8> <sf.f32>\n");
  return 2;
}
