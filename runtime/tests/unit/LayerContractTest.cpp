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
  c.maxTokensPerRank = 64;
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

TEST(LayerContract, ConfigRulesAreTheCompilers) {
  checkLayerConfig(smallConfig());
  LayerConfig c = smallConfig();
  c.hidden = 200;
  EXPECT_RT_ERROR(checkLayerConfig(c), ErrorKind::InvalidArgument,
                  "layer config: hidden (H = 200) must be a positive multiple "
                  "of 128");
  c = smallConfig();
  c.experts = 9;
  c.topk = 10;
  EXPECT_RT_ERROR(checkLayerConfig(c), ErrorKind::InvalidArgument,
                  "experts (E = 9) must be divisible by ranks (R = 2) so "
                  "every rank holds E/R experts (and 1 more)");
  c = smallConfig();
  c.maxTokensPerRank = 0;
  EXPECT_RT_ERROR(checkLayerConfig(c), ErrorKind::InvalidArgument,
                  "max tokens per rank (T = 0) must be at least 1");
}

TEST(LayerContract, ConfigMismatchNamesTheField) {
  LayerConfig c = smallConfig();
  checkConfigMatches(smallConfig(), c, "layer.json");
  c.experts = 16;
  EXPECT_RT_ERROR(checkConfigMatches(smallConfig(), c, "layer.json"),
                  ErrorKind::InvalidArgument,
                  "config does not match the manifest: experts = 16 was given "
                  "but the manifest (layer.json) was compiled for experts = 8");
  c = smallConfig();
  c.maxTokensPerRank = 128;
  EXPECT_RT_ERROR(checkConfigMatches(smallConfig(), c, "m"),
                  ErrorKind::InvalidArgument, "max_tokens_per_rank = 128");
  c = smallConfig();
  c.clamp = 10.0;
  EXPECT_RT_ERROR(checkConfigMatches(smallConfig(), c, "m"),
                  ErrorKind::InvalidArgument,
                  "clamp = 10.000000 was given but the manifest (m) was "
                  "compiled for clamp = none");
  c = smallConfig();
  c.recipe.requantBlock = 64;
  EXPECT_RT_ERROR(checkConfigMatches(smallConfig(), c, "m"),
                  ErrorKind::InvalidArgument, "recipe.requant_block = 64");
}

TEST(LayerContract, OneTableOfTensors) {
  LayerConfig c = smallConfig();
  std::vector<LayerTensor> t = layerTensors(c, 8);
  std::vector<std::string> names;
  for (const LayerTensor &x : t)
    names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "x", "x_sf", "topk_idx", "topk_weights",
                       "l1_weight_user", "l1_scale_user", "l1_weight",
                       "l1_scale", "l2_weight", "l2_scale", "y",
                       "recv_stats"}));
  LayerTensor sf = layerTensor(c, "l1_scale");
  EXPECT_EQ(sf.home, TensorHome::Forward);
  EXPECT_EQ(sf.transform, TensorTransform::L1ScalePairs);
  EXPECT_STREQ(sf.from, "l1_scale_user");
  EXPECT_EQ(sf.shape, (std::vector<int64_t>{4, 2, 2, 2}));
  EXPECT_EQ(layerTensor(c, "y", 8).shape, (std::vector<int64_t>{8, 256}));
  EXPECT_EQ(layerTensor(c, "recv_stats").shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(layerTensor(c, "l2_scale").bytes(), 4u * 2 * 1 * 4);
  EXPECT_RT_ERROR(layerTensor(c, "h"), ErrorKind::InvalidArgument,
                  "unknown layer tensor 'h' (known: x, x_sf, ");
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
                  "num_tokens = 65 is outside [0, max_tokens_per_rank = 64]");
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
                  "y must have shape [num_tokens, H] = [8, 256], got [8, 128]");
  a = goodArgs(c, 8);
  a.l1Scale.shape = {4, 2, 2}; // the user layout, not the kernel layout
  EXPECT_RT_ERROR(checkForwardArgs(c, a), ErrorKind::InvalidArgument,
                  "l1_scale must have shape [L, 2I/128, H/128, 2] = [4, 2, 2, 2]");
  a = goodArgs(c, 8);
  a.l2Weight.address = 0x10008;
  EXPECT_RT_ERROR(checkForwardArgs(c, a), ErrorKind::InvalidArgument,
                  "l2_weight must be 16-byte aligned");
  a = goodArgs(c, 8);
  a.recvStats = tensor(DType::I64, {4});
  EXPECT_RT_ERROR(checkForwardArgs(c, a), ErrorKind::InvalidArgument,
                  "recv_stats must be i32, got i64");
  a.recvStats = tensor(DType::I32, {8});
  EXPECT_RT_ERROR(checkForwardArgs(c, a), ErrorKind::InvalidArgument,
                  "recv_stats must have shape [L] = [4], got [8]");
  a.recvStats = tensor(DType::I32, {4});
  checkForwardArgs(c, a);
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
                  "'y' is not an input region");
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
