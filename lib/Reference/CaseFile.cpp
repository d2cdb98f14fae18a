//===- CaseFile.cpp - One MoE test case in a flat binary file -------------===//
#include "megamoe/Reference/CaseFile.h"

#include <cstdio>
#include <cstring>
#include <memory>

namespace megamoe::ref {

namespace {
constexpr char kMagic[8] = {'M', 'M', 'O', 'E', 'C', 'A', 'S', '1'};
// Bounds that keep a corrupt header from asking for absurd allocations; the
// CPU reference is for small shapes anyway.
constexpr int64_t kMaxDim = int64_t(1) << 20;
constexpr int64_t kMaxBytes = int64_t(1) << 34;

struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

template <typename T>
bool readArray(std::FILE *f, std::vector<T> &v, int64_t n, const char *what,
               std::string &error) {
  v.resize(n);
  if (n && std::fread(v.data(), sizeof(T), n, f) != static_cast<size_t>(n)) {
    error = std::string("case file truncated while reading ") + what;
    return false;
  }
  return true;
}

template <typename T>
bool writeArray(std::FILE *f, const std::vector<T> &v, int64_t n,
                const char *what, std::string &error) {
  if (static_cast<int64_t>(v.size()) != n) {
    error = std::string("case array ") + what + " has " +
            std::to_string(v.size()) + " elements, expected " +
            std::to_string(n);
    return false;
  }
  if (n && std::fwrite(v.data(), sizeof(T), n, f) != static_cast<size_t>(n)) {
    error = std::string("could not write ") + what;
    return false;
  }
  return true;
}

struct Sizes {
  int64_t x, xSf, slots, w1, w1Sf, w2, w2Sf;
};

Sizes sizesOf(const MoeShape &s, int64_t t) {
  const int64_t h = s.hidden, i = s.intermediate, e = s.experts;
  return {t * h,
          t * (h / 128),
          t * s.topk,
          e * 2 * i * h,
          e * (2 * i / 128) * (h / 128),
          e * h * i,
          e * (h / 128) * (i / 128)};
}
} // namespace

bool readCase(const std::string &path, MoeCase &out, std::string &error) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    error = "cannot open case file '" + path + "'";
    return false;
  }
  char magic[8];
  int64_t header[6];
  float clamp;
  if (std::fread(magic, 1, 8, f.get()) != 8 ||
      std::memcmp(magic, kMagic, 8) != 0) {
    error = "'" + path + "' is not a megamoe case file (bad magic)";
    return false;
  }
  if (std::fread(header, sizeof(int64_t), 6, f.get()) != 6 ||
      std::fread(&clamp, sizeof(float), 1, f.get()) != 1) {
    error = "case file truncated in its header";
    return false;
  }
  out.shape = {header[0], header[1], header[2], header[3]};
  out.tokens = header[4];
  out.recipe.requantBlock = header[5];
  out.recipe.clamp = clamp;
  error = validate(out.shape, out.recipe);
  if (!error.empty())
    return false;
  for (int64_t d : {header[0], header[1], header[2], header[3], header[4]})
    if (d > kMaxDim || d < 0) {
      error = "case file dimension " + std::to_string(d) + " out of range";
      return false;
    }
  const Sizes n = sizesOf(out.shape, out.tokens);
  if (n.w1 + n.w2 + n.x > kMaxBytes) {
    error = "case too large for the CPU reference";
    return false;
  }
  if (!readArray(f.get(), out.x, n.x, "x", error) ||
      !readArray(f.get(), out.xSf, n.xSf, "x_sf", error) ||
      !readArray(f.get(), out.topkIdx, n.slots, "topk_idx", error) ||
      !readArray(f.get(), out.topkWeights, n.slots, "topk_weights", error) ||
      !readArray(f.get(), out.w1, n.w1, "w1", error) ||
      !readArray(f.get(), out.w1Sf, n.w1Sf, "w1_sf", error) ||
      !readArray(f.get(), out.w2, n.w2, "w2", error) ||
      !readArray(f.get(), out.w2Sf, n.w2Sf, "w2_sf", error))
    return false;
  if (std::fgetc(f.get()) != EOF) {
    error = "case file has trailing bytes (header and data disagree)";
    return false;
  }
  return true;
}

bool writeCase(const std::string &path, const MoeCase &c, std::string &error) {
  error = validate(c.shape, c.recipe);
  if (!error.empty())
    return false;
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) {
    error = "cannot create case file '" + path + "'";
    return false;
  }
  const int64_t header[6] = {c.shape.hidden,  c.shape.intermediate,
                             c.shape.experts, c.shape.topk,
                             c.tokens,        c.recipe.requantBlock};
  if (std::fwrite(kMagic, 1, 8, f.get()) != 8 ||
      std::fwrite(header, sizeof(int64_t), 6, f.get()) != 6 ||
      std::fwrite(&c.recipe.clamp, sizeof(float), 1, f.get()) != 1) {
    error = "could not write the case header";
    return false;
  }
  const Sizes n = sizesOf(c.shape, c.tokens);
  return writeArray(f.get(), c.x, n.x, "x", error) &&
         writeArray(f.get(), c.xSf, n.xSf, "x_sf", error) &&
         writeArray(f.get(), c.topkIdx, n.slots, "topk_idx", error) &&
         writeArray(f.get(), c.topkWeights, n.slots, "topk_weights", error) &&
         writeArray(f.get(), c.w1, n.w1, "w1", error) &&
         writeArray(f.get(), c.w1Sf, n.w1Sf, "w1_sf", error) &&
         writeArray(f.get(), c.w2, n.w2, "w2", error) &&
         writeArray(f.get(), c.w2Sf, n.w2Sf, "w2_sf", error);
}

} // namespace megamoe::ref
