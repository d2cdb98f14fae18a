//===- GroupedGemm.cpp - the FP8 grouped GEMM as a composition ------------===//
//
// Structure and data layouts: include/megamoe/Kernels/GroupedGemm.h. A
// composition of the collectives (docs/Collectives.md): the tile scheduler,
// the block-scaled mainloop and one of two epilogues (TMA store, or the
// combine scatter to the source ranks, or SwiGLU + requantization). This
// file holds which role runs what; GroupedGemmParams.cpp the parameters,
// their manifest specs and the launch grid.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Kernels/GroupedGemm.h"
#include "Collectives/BlockScaledMainloop.h"
#include "Collectives/Epilogues.h"
#include "Collectives/TileScheduler.h"
#include "GroupedGemmParams.h"
#include "MoeKernelUtil.h"
#include "megamoe/Conversion/TargetAttr.h"
#include "megamoe/Kernels/KernelBuilder.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace megamoe;
using namespace megamoe::collectives;
using namespace megamoe::gemm;
namespace ws = mlir::warpspec;

namespace {


using megamoe::moe::indexConst;
using megamoe::moe::indexToI32;
using megamoe::moe::i32Const;

/// The kernel-level values the roles share.
struct GemmKernel {
  const GroupedGemmConfig &cfg;
  const config::KernelPlan &plan;
  Value a, b, sfa, d, sfb, blockExpert;
  CombineScatter scatter; // combineScatter only (d is then null)
  SwiGLURequant swiglu;   // swiglu only (d is then null)
  BlockScaledMainloop mainloop;
  TileScheduler tiles;
  Value dTiles;
  SmallVector<Value> epilogueBarriers; // one per math warpgroup
};

/// The expert that owns row block `mBlock` (block_expert[mBlock]).
Value loadBlockExpert(OpBuilder &b, Location loc, const GemmKernel &k,
                      Value mBlock) {
  return moe::loadAt(b, loc, b.getI32Type(), k.blockExpert,
                     indexToI32(b, loc, mBlock));
}

MainloopConfig mainloopConfig(MLIRContext *ctx, const GroupedGemmConfig &c,
                              const config::KernelPlan &plan) {
  MainloopConfig m = MainloopConfig::fromPlan(plan, c.k);
  if (c.bScaleInterleave)
    m.interleaveWeightScales(ctx, c.bScaleInterleave);
  return m;
}

/// Column block `i` (0 or 1) of SwiGLU tile `tile`: 2 tile + i.
Value pairColumnBlock(OpBuilder &b, Location loc, Value tile, int64_t i) {
  Value first = arith::MulIOp::create(b, loc, tile, indexConst(b, loc, 2));
  return i ? arith::AddIOp::create(b, loc, first, indexConst(b, loc, 1))
           : first;
}

/// The column blocks of a tile: one, or with swiglu the pair 2t, 2t + 1.
SmallVector<Value, 2> tileColumnBlocks(OpBuilder &b, Location loc,
                                       const GroupedGemmConfig &c, Value tile) {
  if (!c.swiglu)
    return {tile};
  Value first = pairColumnBlock(b, loc, tile, 0);
  return {first,
          arith::AddIOp::create(b, loc, first, indexConst(b, loc, 1))};
}

/// Role "tma": the mainloop's producer for every tile of the schedule.
void buildProducerRole(OpBuilder &b, Location loc, const GemmKernel &k) {
  const GroupedGemmConfig &c = k.cfg;
  auto role = createPlannedRole(b, loc, k.plan.roles.front());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&role.getBody().front());
  Value warp = ws::RoleWarpIdOp::create(b, loc);
  Value isWarp0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                        indexConst(b, loc, 0));
  moe::ifThen(b, loc, isWarp0, [&](OpBuilder &pb) {
    for (Value desc : {k.a, k.b, k.sfa, k.d})
      if (desc)
        ws::TmaPrefetchOp::create(pb, loc, desc);
  });
  k.tiles.forEachTile(b, loc, [&](OpBuilder &tb, Value mBlock, Value tile) {
    Value expert = loadBlockExpert(tb, loc, k, mBlock);
    SmallVector<Value, 2> nBlocks = tileColumnBlocks(tb, loc, c, tile);
    auto operands = [&](Value nBlock) {
      return groupedTileOperands(tb, loc, k.mainloop.config(), k.a, k.sfa,
                                 k.b, mBlock, nBlock, expert, c.n);
    };
    if (k.plan.splitN) { // both column blocks in each stage
      TileOperands t = operands(nBlocks[0]);
      t.bRow1 = operands(nBlocks[1]).bRow;
      return k.mainloop.produceTile(tb, loc, warp, t);
    }
    for (Value nBlock : nBlocks)
      k.mainloop.produceTile(tb, loc, warp, operands(nBlock));
  });
}

/// Role "math<wg>": rows [64 wg, 64 wg + 64) of every tile (with splitN all
/// 64 rows of column block wg of the pair): the mainloop's consumer, then the
/// epilogue.
void buildMathRole(OpBuilder &b, Location loc, const GemmKernel &k,
                   int64_t wg) {
  const GroupedGemmConfig &c = k.cfg;
  auto role = createPlannedRole(b, loc, k.plan.roles[1 + wg]);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&role.getBody().front());
  Value warp = ws::RoleWarpIdOp::create(b, loc);
  Value isStorer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                         indexConst(b, loc, 0));
  bool splitN = k.plan.splitN;
  EpilogueTile epilogue{k.dTiles, k.epilogueBarriers[wg], wg, splitN ? 0 : wg};
  k.tiles.forEachTile(b, loc, [&](OpBuilder &tb, Value mBlock, Value tile) {
    Value expert = loadBlockExpert(tb, loc, k, mBlock);
    // With swiglu: the router weights are read before the mainloop, and
    // each column block's SwiGLU runs as soon as it is done.
    Value weights = c.swiglu ? loadSwiGLURowWeights(tb, loc, epilogue, k.swiglu,
                                                    mBlock, c.blockM)
                             : Value();
    // With splitN this warpgroup computes column block wg of the pair.
    SmallVector<Value, 2> totals,
        nBlocks = splitN ? SmallVector<Value, 2>{pairColumnBlock(tb, loc,
                                                                 tile, wg)}
                         : tileColumnBlocks(tb, loc, c, tile);
    for (Value nBlock : nBlocks) {
      Value sfbRow = groupedWeightScalesRow(tb, loc, k.mainloop.config(),
                                            expert, nBlock, c.n, c.k);
      // One accumulator per column block of the tile (two with BLOCK_N 256,
      // which has no SwiGLU).
      SmallVector<Value, 2> t = k.mainloop.consumeTile(
          tb, loc, indexConst(tb, loc, 64 * epilogue.rowBlock), k.sfb, sfbRow,
          splitN ? wg : 0);
      if (c.swiglu)
        totals.push_back(swigluBlock(tb, loc, t.front(), weights, k.swiglu));
      else
        totals.append(t);
    }
    if (c.swiglu)
      return requantStoreTile(tb, loc, epilogue, totals, splitN ? wg : 0,
                              k.swiglu, mBlock, tile, c.blockM, isStorer);
    TilePosition at{mBlock, tile, c.blockM, c.blockN};
    if (c.combineScatter) // BLOCK_N 128: one column block
      scatterTileToPeers(tb, loc, epilogue, totals.front(), k.scatter, at);
    else
      storeTileWithTma(tb, loc, epilogue, totals, k.d, at, isStorer);
  });
  if (c.combineScatter) {
    // The remote combine stores are visible system-wide before the next
    // kernel's cross-rank barrier (moe_combine_barrier).
    moe::systemFence(b, loc);
    return;
  }
  drainTileStores(b, loc, isStorer);
}


/// The row blocks to compute: the parameter's value, or the i32 it points to
/// (written by an earlier kernel on the stream, so a plain load sees it),
/// clamped to [0, M / BLOCK_M] so that a bad count cannot index block_expert
/// out of bounds.
Value numMBlocksAtStart(OpBuilder &b, Location loc, const GroupedGemmConfig &c,
                        Value param) {
  Value count = param;
  if (c.deviceMBlocks)
    count =
        moe::load(b, loc, b.getI32Type(), param, /*align=*/4);
  Value most = i32Const(b, loc, c.rowCapacity() / c.blockM);
  count = arith::MinSIOp::create(b, loc, count, most);
  return arith::MaxSIOp::create(b, loc, count, i32Const(b, loc, 0));
}

} // namespace

void megamoe::buildGroupedGemmKernel(OpBuilder &b, Location loc,
                                     StringRef kernelName,
                                     const GroupedGemmConfig &c,
                                     const GroupedGemmBinds &binds) {
  MLIRContext *ctx = b.getContext();
  config::KernelPlan plan = c.plan();
  SmallVector<KernelParam> params = kernelParams(b, c, binds);
  BoundKernel kernel =
      createBoundKernel(b, loc, kernelName, params, plan.threads,
                        plan.entryRegisters, config::toString(c.chip),
                        kernelGrid(b, c));
  // warpspec-plan-smem checks its layout against the plan's SMEM model.
  kernel.op()->setAttr(ws::kPlannedSmemBytesAttrName,
                       b.getI64IntegerAttr(plan.smemBytes));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&kernel.op().getBody().front());
  // Parameters by name (which exist depends on the options).
  auto arg = [&](StringRef name) { return kernel.find(name); };
  GemmKernel k{c, plan};
  k.a = arg(kParamA);
  k.b = arg(kParamB);
  k.sfa = arg(kParamSfa);
  k.d = arg(kParamD);
  k.sfb = arg(kParamSfb);
  k.blockExpert = arg(kParamBlockExpert);
  k.scatter = {arg(kParamPoolSource), arg(kParamCombine),
               arg(kParamPeerOffsets), c.combineRanks, c.combineTokens,
               c.combineTopk, c.n};
  k.swiglu.rowWeights = arg(kParamRowWeight);
  k.swiglu.out = arg(kParamOut);
  k.swiglu.outScales = arg(kParamOutScales);
  k.swiglu.arrivals = arg(kParamArrivals);
  k.swiglu.rows = c.rowCapacity();
  k.swiglu.clamp = c.swigluClamp;
  k.swiglu.fastMath = c.fastMath;
  k.tiles = {numMBlocksAtStart(b, loc, c, arg(kParamNumMBlocks)),
             c.n / c.blockN / (c.swiglu ? 2 : 1), plan.rasterGroupN};
  // Shared memory: the mainloop's ring (A, B, A scales) and the output tile.
  k.mainloop = BlockScaledMainloop::create(b, loc, mainloopConfig(ctx, c, plan));
  Type outType = c.outBytes() == 4 ? Type(b.getF32Type()) : b.getBF16Type();
  // The output tile holds one column block or half of one (the epilogue
  // stores a tile's columns through it in turn).
  k.dTiles = c.swiglu ? SwiGLURequant::allocate(b, loc, c.blockM)
                      : EpilogueTile::allocate(b, loc, c.blockM,
                                               plan.outTileColumns, outType);
  if (plan.splitN) {
    k.swiglu.exchange = allocateRowExchange(b, loc);
    k.swiglu.pairBarrier = ws::NamedBarrierOp::create(
        b, loc, ws::BarrierType::get(ctx), 1 + plan.mathWarpgroups(),
        b.getStrArrayAttr({"math0", "math1"}));
  }
  for (int64_t wg = 0; wg < plan.mathWarpgroups(); ++wg)
    k.epilogueBarriers.push_back(ws::NamedBarrierOp::create(
        b, loc, ws::BarrierType::get(ctx), static_cast<uint32_t>(1 + wg),
        b.getStrArrayAttr({"math" + std::to_string(wg)})));

  auto roles = ws::RolesOp::create(b, loc);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&roles.getBody().emplaceBlock());
    buildProducerRole(b, loc, k);
    for (int64_t wg = 0; wg < plan.mathWarpgroups(); ++wg)
      buildMathRole(b, loc, k, wg);
  }
  ws::ReturnOp::create(b, loc);
}

void megamoe::buildGroupedGemm(ModuleOp module, const GroupedGemmConfig &c) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());

  // The gpu.module: target, and the config symbols the manifest carries.
  auto target = ::megamoe::nvvmTargetForChip(ctx, config::toString(c.chip));
  if (!target) {
    emitError(loc) << "no PTX target for chip '" << config::toString(c.chip)
                   << "'; supported: " << ::megamoe::supportedChips();
    return;
  }
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, "grouped_gemm",
                                            b.getArrayAttr({target}));
  auto sym = [&](StringRef name, int64_t v) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(v));
  };
  gpuModule->setAttr(
      ::megamoe::manifest::kSymbols,
      b.getDictionaryAttr({sym("E", c.experts), sym("N", c.n), sym("K", c.k),
                           sym("MAX_M", c.rowCapacity()),
                           sym("BLOCK_M", c.blockM), sym("BLOCK_N", c.blockN),
                           sym("STAGES", c.plan().stages),
                           sym("OUT_BYTES", c.outBytes()),
                           sym("B_SCALE_INTERLEAVE", c.bScaleInterleave),
                           sym("DEVICE_M_BLOCKS", c.deviceMBlocks ? 1 : 0),
                           sym("STATIC_M", c.staticM)}));
  if (c.combineScatter) {
    // The combine buffer's shape: only for the scatter (keeps the others'
    // symbols unchanged).
    NamedAttrList symbols(cast<DictionaryAttr>(
        gpuModule->getAttr(::megamoe::manifest::kSymbols)));
    symbols.set("COMBINE_TOKENS", b.getI64IntegerAttr(c.combineTokens));
    symbols.set("COMBINE_TOPK", b.getI64IntegerAttr(c.combineTopk));
    symbols.set("COMBINE_RANKS", b.getI64IntegerAttr(c.combineRanks));
    gpuModule->setAttr(::megamoe::manifest::kSymbols,
                       symbols.getDictionary(ctx));
  }
  // What the launcher supplies: M (the TMA row extents) unless static.
  SmallVector<StringRef> runtime;
  if (c.staticM == 0)
    runtime.push_back("M");
  gpuModule->setAttr(::megamoe::manifest::kRuntimeSymbols,
                     b.getStrArrayAttr(runtime));
  b.setInsertionPointToStart(gpuModule.getBody());
  buildGroupedGemmKernel(b, loc, "grouped_gemm_fp8", c, GroupedGemmBinds());
}
