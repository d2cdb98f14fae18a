//===- GroupedGemmParams.cpp - the grouped GEMM's parameters and grid -----===//
#include "GroupedGemmParams.h"
#include "MoeKernelUtil.h"
#include "megamoe/Conversion/ManifestNames.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::gemm;
namespace ws = mlir::warpspec;
namespace moe = megamoe::moe;

namespace {

/// The runtime data of a descriptor argument's `megamoe.tma` spec: global
/// shape and strides (docs/Manifest.md). dtype, box and swizzle come from the
/// descriptor type (the lowering writes them).
DictionaryAttr tmaSpec(Builder &b, ArrayRef<Attribute> globalShape,
                       ArrayRef<Attribute> strides) {
  return b.getDictionaryAttr(
      {b.getNamedAttr("global_shape", b.getArrayAttr(globalShape)),
       b.getNamedAttr("global_strides_bytes", b.getArrayAttr(strides))});
}

/// A TMA extent that is `times` rows of A (M, M * 4, ...): the literal with
/// a static M (the kernel then lives among the layer's constants), else the
/// launch-time symbol M times `times` (docs/Manifest.md, "Launch shapes").
Attribute rowsDim(Builder &b, const GroupedGemmConfig &c, int64_t times) {
  namespace mf = ::megamoe::manifest;
  if (c.staticM > 0)
    return b.getI64IntegerAttr(c.staticM * times);
  SmallVector<NamedAttribute, 2> dim{
      b.getNamedAttr(mf::kDimSymbol, b.getStringAttr("M"))};
  if (times != 1)
    dim.push_back(b.getNamedAttr(mf::kDimTimes, b.getI64IntegerAttr(times)));
  return b.getDictionaryAttr(dim);
}

} // namespace

/// The kernel's parameters: types, names, bindings and TMA specs.
SmallVector<KernelParam> gemm::kernelParams(Builder &b,
                                            const GroupedGemmConfig &c,
                                            const GroupedGemmBinds &binds) {
  MLIRContext *ctx = b.getContext();
  Type fp8 = b.getType<Float8E4M3FNType>();
  Type outType = c.outBytes() == 4 ? Type(b.getF32Type()) : b.getBF16Type();
  Type i32 = b.getI32Type();
  auto global = [](Type element) -> Type { return moe::globalType(element); };
  int64_t panelCols = dPanelCols(c);
  // E, N and K are compile-time constants; only M may be a launch symbol.
  auto n = [&](int64_t v) -> Attribute { return b.getI64IntegerAttr(v); };
  auto rows = [&](int64_t times) { return rowsDim(b, c, times); };
  SmallVector<KernelParam> params;
  params.push_back({kParamA, binds.a,
                    ws::TmaDescType::get(ctx, {c.blockM, 128}, fp8, 128),
                    tmaSpec(b, {n(c.k), rows(1)}, {n(c.k)})});
  // One box per column block of B (a BLOCK_N 256 tile loads two of 128);
  // in a cluster each CTA loads 1 / clusterM of each column block per box.
  if (c.bWeightTiles) {
    // The tiled layout (config::kWeightTileRows): dims (K in tile, row in
    // tile, K tile, row tile), one box = one contiguous 16 KiB tile.
    const int64_t tr = config::kWeightTileRows, tk = config::kWeightTileK;
    params.push_back(
        {kParamB, binds.b, ws::TmaDescType::get(ctx, {1, 1, tr, tk}, fp8, 128),
         tmaSpec(b, {n(tk), n(tr), n(c.k / tk), n(c.experts * c.n / tr)},
                 {n(tk), n(tr * tk), n(tr * c.k)})});
  } else {
    params.push_back({kParamB, binds.b,
                      ws::TmaDescType::get(
                          ctx,
                          {config::columnBlockRows(c.blockN) / c.clusterM, 128},
                          fp8, 128),
                      tmaSpec(b, {n(c.k), n(c.experts * c.n)}, {n(c.k)})});
  }
  // MN-major A scales, aScaleGroups rows of them per K block of 128 (one
  // box per K block).
  params.push_back(
      {kParamSfa, binds.aScales,
       ws::TmaDescType::get(ctx, {c.aScaleGroups, c.blockM}, b.getF32Type(),
                            0),
       tmaSpec(b, {rows(1), n(c.k / 128 * c.aScaleGroups)}, {rows(4)})});
  if (!c.combineScatter && !c.swiglu)
    params.push_back(
        {kParamD, binds.d,
         // One box per warpgroup's 64 rows, or swapped its BLOCK_M rows.
         ws::TmaDescType::get(ctx, {c.swapAB ? c.blockM : 64, panelCols},
                              outType, config::kOutputPanelBytes),
         tmaSpec(b, {n(c.n), rows(1)}, {n(c.n * c.outBytes())})});
  params.push_back({kParamSfb, binds.bScales, global(b.getF32Type())});
  params.push_back({kParamBlockExpert, binds.blockExpert, global(i32)});
  params.push_back({kParamNumMBlocks, binds.numMBlocks,
                    c.deviceMBlocks ? global(i32) : i32});
  if (c.halfBlocks || c.expertBlocks)
    params.push_back({kParamBlockRow, binds.blockRow, global(i32)});
  if (c.combineScatter) {
    params.push_back({kParamPoolSource, binds.poolSource, global(i32)});
    params.push_back({kParamCombine, binds.combine, global(b.getBF16Type())});
    params.push_back(
        {kParamPeerOffsets, binds.peerOffsets, global(b.getI64Type())});
  }
  if (c.swiglu) {
    params.push_back({kParamRowWeight, binds.rowWeight, global(b.getF32Type())});
    params.push_back({kParamOut, binds.out,
                      ws::TmaDescType::get(ctx, {64, 64}, fp8, 64),
                      tmaSpec(b, {n(c.n / 2), rows(1)}, {n(c.n / 2)})});
    params.push_back({kParamOutScales, binds.outScales, global(b.getF32Type())});
    if (c.swigluArrivals)
      params.push_back({kParamArrivals, binds.arrivals, global(i32)});
  }
  if (c.pullRows) {
    Type i8 = b.getI8Type(), f32 = b.getF32Type();
    params.push_back({kParamPool, binds.pool, global(i8)});
    params.push_back({kParamPoolScales, binds.poolScales, global(f32)});
    params.push_back({kParamPoolSource, binds.poolSource, global(i32)});
    params.push_back({kParamSrcTokenIndex, binds.srcTokenIndex, global(i32)});
    params.push_back({kParamPoolRowStart, binds.poolRowStart, global(i32)});
    params.push_back({kParamX, binds.x, global(i8)});
    params.push_back({kParamXScales, binds.xScales, global(f32)});
    params.push_back({kParamTopkWeights, binds.topkWeights, global(f32)});
    params.push_back(
        {kParamPeerOffsets, binds.peerOffsets, global(b.getI64Type())});
    params.push_back({kParamPullArrivals, binds.pullArrivals, global(i32)});
    params.push_back({kParamPullWaits, binds.pullWaits, global(i32)});
  }
  if (c.kSplit > 1) {
    params.push_back(
        {kParamSplitPartials, binds.splitPartials, global(b.getF32Type())});
    params.push_back({kParamSplitCounts, binds.splitCounts, global(i32)});
    if (c.poolRanks > 0) // the m-blocks' real rows (not with pullRows)
      params.push_back({kParamPoolRowStart, binds.poolRowStart, global(i32)});
  }
  if (binds.profile)
    params.push_back(
        {kParamProfile, kProfileBind, global(b.getI64Type())});
  return params;
}

/// One CTA per SM, never more CTAs than tiles when the tile count is a
/// compile-time constant (static M). Otherwise one CTA per SM whatever the
/// launch's row count: the persistent tile loop (warpspec.tile_loop: tiles
/// blockIdx.x, + gridDim.x, ...) gives a CTA past the last tile no iteration,
/// so it only starts and exits; the DEVICE_M_BLOCKS kernel, whose count the
/// host never knows, launches the same body this way.
SmallVector<Attribute, 3> gemm::kernelGrid(Builder &b,
                                           const GroupedGemmConfig &c) {
  // Expert blocks: at most one per 64-row unit. A cluster computes its
  // m-blocks in groups of clusterM: whole groups (the runtime rounds the
  // grid down to whole clusters).
  if (c.staticM > 0) {
    int64_t mBlocks =
        c.staticM / (c.expertBlocks ? config::kHalfBlockRows : c.blockM);
    mBlocks = (mBlocks + c.clusterM - 1) / c.clusterM * c.clusterM;
    return persistentGrid(b, mBlocks * tilesPerMBlock(c));
  }
  return persistentGrid(b);
}
