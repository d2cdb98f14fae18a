//===- LayerContractTest.cpp - layer config and forward checks ------------===//
#include "megamoe/runtime/LayerContract.h"
#include "TestUtil.h"

using namespace megamoe::rt;

namespace {

LayerConfig smallConfig() {
  LayerConfig c;
  c.hidden = 256;
  c.intermediate = 128;
  c.experts = 8;
  c.topk = 2;
  c.ranks = 2;
  c.maxTokens = 64;
  return c;
}

TensorDesc tensor(DType t, std::vector<int64_t> shape,
                  uint64_t address = 0x10000) {
  return TensorDesc{address, t, std::move(shape)};
}

ForwardArgs goodArgs(const LayerConfig &c, int64_t tokens) {
  ForwardArgs a;
  a.numTokens = tokens;
  a.l1Weight = tensor(DType::E4M3, {4, 256, 256});
  a.l1Scale = tensor(DType::F32, {4, 2, 2, 2});
  a.l2Weight = tensor(DType::E4M3, {4, 256, 128});
  a.l2Scale = tensor(DType::F32, {4, 2, 1});
  a.y = tensor(DType::BF16, {tokens, 256});
  (void)c;
  return a;
}

TEST(LayerContract, ConfigRules) {
  checkLayerConfig(smallConfig());
  LayerConfig c = smallConfig();
  c.hidden = 200;
  EXPECT_RT_ERROR(checkLayerConfig(c), ErrorKind::InvalidArgument,
                  "hidden must be a positive multiple of 128 (hidden = 200)");
  c = smallConfig();
  c.experts = 9;
  EXPECT_RT_ERROR(checkLayerConfig(c), ErrorKind::InvalidArgument,
                  "experts must be a positive multiple of ranks (experts = 9, "
                  "ranks = 2)");
  c = smallConfig();
  c.topk = 9;
  EXPECT_RT_ERROR(checkLayerConfig(c), ErrorKind::InvalidArgument,
                  "topk must be in [1, experts]");
  c = smallConfig();
  c.maxTokens = 0;
  EXPECT_RT_ERROR(checkLayerConfig(c), ErrorKind::InvalidArgument,
                  "max_tokens must be >= 1");
}

TEST(LayerContract, ManifestMismatchIsNamed) {
  Manifest m;
  m.cubin = "layer.cubin";
  m.symbols = {{"hidden", 256}, {"experts", 16}};
  EXPECT_RT_ERROR(checkManifestMatchesConfig(m, smallConfig()),
                  ErrorKind::InvalidArgument,
                  "experts = 8 but the manifest (layer.cubin) was compiled for "
                  "experts = 16");
  m.symbols["experts"] = 8;
  checkManifestMatchesConfig(m, smallConfig());
}

TEST(LayerContract, ForwardAcceptsGoodArgsAndZeroTokens) {
  LayerConfig c = smallConfig();
  checkForwardArgs(c, goodArgs(c, 64));
  ForwardArgs zero = goodArgs(c, 0);
  zero.y.address = 0; // an empty output may have no storage
  checkForwardArgs(c, zero);
}

TEST(LayerContract, ForwardRejectsTooManyTokens) {
  LayerConfig c = smallConfig();
  EXPECT_RT_ERROR(checkForwardArgs(c, goodArgs(c, 65)),
                  ErrorKind::InvalidArgument,
                  "num_tokens = 65 is outside [0, max_tokens = 64]");
}

TEST(LayerContract, ForwardRejectsWrongDtypeShapeAlignment) {
  LayerConfig c = smallConfig();
  ForwardArgs a = goodArgs(c, 8);
  a.l1Weight.dtype = DType::BF16;
  EXPECT_RT_ERROR(checkForwardArgs(c, a), ErrorKind::InvalidArgument,
                  "l1_weight must be e4m3, got bf16");
  a = goodArgs(c, 8);
  a.y.shape = {8, 128};
  EXPECT_RT_ERROR(checkForwardArgs(c, a), ErrorKind::InvalidArgument,
                  "y must have shape [8, 256], got [8, 128]");
  a = goodArgs(c, 8);
  a.l1Scale.shape = {4, 2, 2}; // the user layout, not the kernel layout
  EXPECT_RT_ERROR(checkForwardArgs(c, a), ErrorKind::InvalidArgument,
                  "l1_scale must have shape [4, 2, 2, 2]");
  a = goodArgs(c, 8);
  a.l2Weight.address = 0x10008;
  EXPECT_RT_ERROR(checkForwardArgs(c, a), ErrorKind::InvalidArgument,
                  "l2_weight must be 16-byte aligned");
}

TEST(LayerContract, InputRegions) {
  LayerConfig c = smallConfig();
  View x = inputRegionType(c, "x");
  EXPECT_EQ(x.dtype, DType::E4M3);
  EXPECT_EQ(x.shape, (std::vector<int64_t>{64, 256}));
  EXPECT_EQ(x.bytes, 64u * 256);
  View idx = inputRegionType(c, "topk_idx");
  EXPECT_EQ(idx.dtype, DType::I64);
  EXPECT_EQ(idx.bytes, 64u * 2 * 8);
  EXPECT_EQ(inputRegionType(c, "x_sf").bytes, 64u * 2 * 4);
  EXPECT_RT_ERROR(inputRegionType(c, "y"), ErrorKind::InvalidArgument,
                  "unknown input region 'y'");
}

TEST(LayerContract, TransformArgs) {
  LayerConfig c = smallConfig();
  TensorDesc w = tensor(DType::E4M3, {4, 256, 256}, 0x100000);
  TensorDesc sf = tensor(DType::F32, {4, 2, 2}, 0x200000);
  TensorDesc wo = tensor(DType::E4M3, {4, 256, 256}, 0x300000);
  TensorDesc so = tensor(DType::F32, {4, 2, 2, 2}, 0x400000);
  checkTransformArgs(c, w, sf, wo, so);
  EXPECT_RT_ERROR(checkTransformArgs(c, w, sf, w, so),
                  ErrorKind::InvalidArgument, "must not overlap");
  TensorDesc bad = sf;
  bad.dtype = DType::BF16;
  EXPECT_RT_ERROR(checkTransformArgs(c, w, bad, wo, so),
                  ErrorKind::InvalidArgument, "l1_scale must be f32, got bf16");
}

} // namespace
