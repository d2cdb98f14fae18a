//===- EmbedHeaderTest.cpp - the embeddable C header
//-----------------------===//
#include "megamoe/Conversion/EmbedHeader.h"

#include <gtest/gtest.h>

TEST(EmbedHeader, IdentifierSanitized) {
  EXPECT_EQ(megamoe::cIdentifier("gemm-fp8.v2"), "gemm_fp8_v2");
  EXPECT_EQ(megamoe::cIdentifier("9lives"), "_9lives");
}

TEST(EmbedHeader, EmbedsBytesAndEscapedManifest) {
  std::string cubin("\x7f"
                    "ELF\x00\xff",
                    6);
  std::string h = megamoe::makeEmbedHeader("k-1", cubin, "{\"a\": \"x\\y\"}\n");
  EXPECT_NE(h.find("#ifndef MEGAMOE_EMBED_K_1_H"), std::string::npos);
  EXPECT_NE(h.find("megamoe_k_1_cubin[]"), std::string::npos);
  EXPECT_NE(h.find("0x7f,0x45,0x4c,0x46,0x00,0xff,"), std::string::npos);
  EXPECT_NE(h.find("megamoe_k_1_cubin_size = 6;"), std::string::npos);
  EXPECT_NE(h.find("{\\\"a\\\": \\\"x\\\\y\\\"}\\n\""), std::string::npos);
}
