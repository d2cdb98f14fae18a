//===- CaseFileTest.cpp - the case-file exchange format -------------------===//
#include "megamoe/Reference/CaseFile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace megamoe::ref;

namespace {
std::string tempPath(const char *name) {
  return std::string(::testing::TempDir()) + name + std::to_string(getpid());
}

MoeCase smallCase() {
  MoeCase c;
  c.shape = {128, 128, 2, 1};
  c.recipe.requantBlock = 64;
  c.recipe.clamp = 10.0f;
  c.tokens = 3;
  c.x.assign(3 * 128, 0x38);
  c.xSf.assign(3, 0.5f);
  c.topkIdx = {0, -1, 1};
  c.topkWeights = {1.0f, 0.0f, 0.5f};
  c.w1.assign(2 * 256 * 128, 0x30);
  c.w1Sf.assign(2 * 2, 0.25f);
  c.w2.assign(2 * 128 * 128, 0x28);
  c.w2Sf.assign(2, 0.125f);
  return c;
}
} // namespace

TEST(CaseFile, RoundTrips) {
  const std::string path = tempPath("case_roundtrip");
  MoeCase c = smallCase(), back;
  std::string error;
  ASSERT_TRUE(writeCase(path, c, error)) << error;
  ASSERT_TRUE(readCase(path, back, error)) << error;
  EXPECT_EQ(back.shape.hidden, 128);
  EXPECT_EQ(back.shape.experts, 2);
  EXPECT_EQ(back.recipe.requantBlock, 64);
  EXPECT_EQ(back.recipe.clamp, 10.0f);
  EXPECT_EQ(back.topkIdx, c.topkIdx);
  EXPECT_EQ(back.w2, c.w2);
  EXPECT_EQ(back.w2Sf, c.w2Sf);
  std::remove(path.c_str());
}

TEST(CaseFile, RejectsBadFiles) {
  MoeCase c;
  std::string error;
  EXPECT_FALSE(readCase("/nonexistent/case.bin", c, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);

  const std::string path = tempPath("case_bad");
  { std::ofstream(path, std::ios::binary) << "NOTACASE........"; }
  EXPECT_FALSE(readCase(path, c, error));
  EXPECT_NE(error.find("bad magic"), std::string::npos);

  // A valid file cut short.
  ASSERT_TRUE(writeCase(path, smallCase(), error)) << error;
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  {
    std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  }
  EXPECT_FALSE(readCase(path, c, error));
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  { std::ofstream(path, std::ios::binary) << bytes << "x"; }
  EXPECT_FALSE(readCase(path, c, error));
  EXPECT_NE(error.find("trailing"), std::string::npos) << error;

  // Arrays that disagree with the shape are refused on write.
  MoeCase wrong = smallCase();
  wrong.x.pop_back();
  EXPECT_FALSE(writeCase(path, wrong, error));
  EXPECT_NE(error.find("x has"), std::string::npos) << error;
  std::remove(path.c_str());
}
