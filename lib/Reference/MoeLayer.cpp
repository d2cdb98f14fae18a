//===- MoeLayer.cpp - CPU reference of the MoE layer ----------------------===//
#include "megamoe/Reference/MoeLayer.h"

#include "megamoe/Reference/Fp8.h"
#include "megamoe/Reference/Quantize.h"

namespace megamoe::ref {

std::string validate(const MoeShape &shape, const MoeRecipe &recipe) {
  if (shape.hidden <= 0 || shape.hidden % 128)
    return "hidden size " + std::to_string(shape.hidden) +
           " must be a positive multiple of 128";
  if (shape.intermediate <= 0 || shape.intermediate % 128)
    return "intermediate size " + std::to_string(shape.intermediate) +
           " must be a positive multiple of 128";
  if (shape.experts <= 0)
    return "the number of experts must be positive";
  if (shape.topk <= 0 || shape.topk > shape.experts)
    return "top-k " + std::to_string(shape.topk) + " must be in [1, " +
           std::to_string(shape.experts) + "]";
  if (recipe.requantBlock != 128 && recipe.requantBlock != 64)
    return "requant block " + std::to_string(recipe.requantBlock) +
           " must be 128 or 64";
  if (!(recipe.clamp > 0.0f))
    return "the activation clamp must be positive (infinity disables it)";
  return "";
}

namespace {

/// Dequantizes rows [row0, row0 + rows) of one expert matrix [N, K] with
/// 128x128 block scales [N/128, K/128] into `out` (rows x K floats).
void dequantWeightRows(const uint8_t *w, const float *sf, int64_t k,
                       int64_t row0, int64_t rows, std::vector<float> &out) {
  out.resize(rows * k);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = row0 + r;
    for (int64_t c = 0; c < k; ++c)
      out[r * k + c] =
          e4m3ToFloat(w[n * k + c]) * sf[(n / 128) * (k / 128) + c / 128];
  }
}

/// y[n] = FP32(sum_c a[c] * w[n, c]) for n < rows, accumulated in double.
void matVec(const float *a, const std::vector<float> &w, int64_t k,
            int64_t rows, float *y) {
  for (int64_t n = 0; n < rows; ++n) {
    double acc = 0.0;
    for (int64_t c = 0; c < k; ++c)
      acc += static_cast<double>(a[c]) * static_cast<double>(w[n * k + c]);
    y[n] = static_cast<float>(acc);
  }
}

} // namespace

bool expertOutputs(const MoeShape &shape, const MoeRecipe &recipe,
                   const MoeWeights &weights, const MoeTokens &tokens,
                   std::vector<uint16_t> &slotOut, std::string &error) {
  error = validate(shape, recipe);
  if (!error.empty())
    return false;
  const int64_t h = shape.hidden, i = shape.intermediate, k = shape.topk;
  const int64_t t = tokens.count;
  for (int64_t s = 0; s < t * k; ++s) {
    const int64_t e = tokens.topkIdx[s];
    if (e < -1 || e >= shape.experts) {
      error = "token " + std::to_string(s / k) + " slot " +
              std::to_string(s % k) + " routes to expert " + std::to_string(e) +
              ", outside [-1, " + std::to_string(shape.experts) + ")";
      return false;
    }
  }
  slotOut.assign(t * k * h, 0);
  std::vector<float> w1, w2, xd(h), hrow(2 * i), act(i), actd(i), orow(h);
  std::vector<uint8_t> q(i);
  std::vector<float> qsf(i / recipe.requantBlock);
  for (int64_t e = 0; e < shape.experts; ++e) {
    bool used = false;
    for (int64_t s = 0; s < t * k && !used; ++s)
      used = tokens.topkIdx[s] == e;
    if (!used)
      continue;
    dequantWeightRows(weights.w1 + e * 2 * i * h,
                      weights.w1Sf + e * (2 * i / 128) * (h / 128), h, 0, 2 * i,
                      w1);
    dequantWeightRows(weights.w2 + e * h * i,
                      weights.w2Sf + e * (h / 128) * (i / 128), i, 0, h, w2);
    for (int64_t s = 0; s < t * k; ++s) {
      if (tokens.topkIdx[s] != e)
        continue;
      const int64_t tok = s / k;
      dequantizeBlocks(tokens.x + tok * h, tokens.xSf + tok * (h / 128), h, 128,
                       xd.data());
      matVec(xd.data(), w1, h, 2 * i, hrow.data()); // step 1
      for (int64_t c = 0; c < i; ++c)               // step 2
        act[c] =
            swiglu(hrow[c], hrow[i + c], tokens.topkWeights[s], recipe.clamp);
      quantizeBlocks(act.data(), i, recipe.requantBlock, q.data(),
                     qsf.data()); // step 3
      dequantizeBlocks(q.data(), qsf.data(), i, recipe.requantBlock,
                       actd.data());
      matVec(actd.data(), w2, i, h, orow.data()); // step 4
      for (int64_t c = 0; c < h; ++c)
        slotOut[s * h + c] = floatToBF16(orow[c]);
    }
  }
  return true;
}

std::vector<uint16_t> combineSlots(const uint16_t *slotOut,
                                   const int64_t *topkIdx, int64_t tokens,
                                   int64_t topk, int64_t hidden) {
  std::vector<uint16_t> y(tokens * hidden);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t c = 0; c < hidden; ++c) {
      float acc = 0.0f;
      for (int64_t k = 0; k < topk; ++k)
        if (topkIdx[t * topk + k] >= 0)
          acc += bf16ToFloat(slotOut[(t * topk + k) * hidden + c]);
      y[t * hidden + c] = floatToBF16(acc);
    }
  }
  return y;
}

bool moeForward(const MoeShape &shape, const MoeRecipe &recipe,
                const MoeWeights &weights, const MoeTokens &tokens,
                std::vector<uint16_t> &y, std::string &error) {
  std::vector<uint16_t> slotOut;
  if (!expertOutputs(shape, recipe, weights, tokens, slotOut, error))
    return false;
  y = combineSlots(slotOut.data(), tokens.topkIdx, tokens.count, shape.topk,
                   shape.hidden);
  return true;
}

} // namespace megamoe::ref
