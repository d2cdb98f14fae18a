//===- GroupedGemmPass.cpp - megamoe-grouped-gemm ------------------------===//
#include "megamoe/Config/Heuristics.h"
#include "megamoe/Kernels/GroupedGemm.h"
#include "megamoe/Kernels/Passes.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOEGROUPEDGEMM
#include "megamoe/Kernels/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;

namespace {
struct GroupedGemmPass
    : mlir::megamoe::impl::MegaMoEGroupedGemmBase<GroupedGemmPass> {
  using Base::Base;
  void runOnOperation() override {
    namespace cfg = ::megamoe::config;
    ::megamoe::GroupedGemmConfig config;
    // The builder is arch-neutral; the lowering picks wgmma (sm_90a) or
    // tcgen05 + TMEM (sm_100a).
    std::optional<cfg::Chip> parsedChip = cfg::parseChip(chip);
    if (!parsedChip) {
      getOperation().emitError("megamoe-grouped-gemm: the grouped GEMM is "
                               "built for sm_90a and sm_100a only; got chip '")
          << chip << "'";
      return signalPassFailure();
    }
    std::optional<cfg::DType> parsedOut = cfg::parseDType(outType);
    if (!parsedOut) {
      getOperation().emitError("megamoe-grouped-gemm: out-type must be bf16 "
                               "or f32, got '")
          << outType << "'";
      return signalPassFailure();
    }
    config.experts = experts;
    config.n = n;
    config.k = k;
    config.maxM = maxM;
    config.blockM = blockM;
    config.blockN = blockN;
    config.stages = stages;
    config.chip = *parsedChip;
    config.releaseLag = releaseLag;
    config.releaseFence = releaseFence;
    config.outTileColumns = outTileColumns;
    config.swapAB = swapAB;
    config.clusterM = clusterM;
    config.unrollStages = unrollStages;
    config.unrollWide = unrollWide;
    config.mmaTurns = mmaTurns;
    config.out = *parsedOut;
    config.bScaleInterleave = bScaleInterleave;
    config.deviceMBlocks = deviceMBlocks;
    config.staticM = staticM;
    config.combineScatter = combineScatter;
    config.combineTokens = combineTokens;
    config.combineTopk = combineTopk;
    config.combineRanks = combineRanks;
    config.swiglu = swiglu;
    config.swigluArrivals = swigluArrivals;
    config.swigluPairStages = swigluPairStages;
    config.halfBlocks = halfBlocks;
    config.aScaleGroups = aScaleGroups;
    config.swigluRequantBlock = swigluRequantBlock;
    // The plan's choices, in this order (BLOCK_N, the cluster and the
    // prefetch depend on the rows).
    if (blockM != 0 && rowsPerExpert != 0) {
      getOperation().emitError("megamoe-grouped-gemm: rows-per-expert is the "
                               "plan's input for block-m=0; block-m ")
          << static_cast<int64_t>(blockM) << " was given";
      return signalPassFailure();
    }
    if (blockM == 0) {
      if (rowsPerExpert < 0) {
        getOperation().emitError("megamoe-grouped-gemm: rows-per-expert must "
                                 "be >= 0 (0: unknown), got ")
            << static_cast<int64_t>(rowsPerExpert);
        return signalPassFailure();
      }
      cfg::GroupedGemmRows rows =
          cfg::groupedGemmRows(config.chip, rowsPerExpert);
      config.blockM = rows.blockM;
      config.swapAB = rows.swapAB || swapAB;
    }
    if (blockN == 0)
      config.blockN = cfg::groupedGemmBlockN(config.chip, config.blockM,
                                             config.n,
                                             config.swiglu,
                                             config.combineScatter);
    if (clusterM == 0)
      config.clusterM = cfg::groupedGemmClusterM(config);
    if (scalePrefetch != -1 && scalePrefetch != 0 && scalePrefetch != 1) {
      getOperation().emitError("megamoe-grouped-gemm: scale-prefetch must be "
                               "0, 1 or -1 (the plan's choice), got ")
          << static_cast<int64_t>(scalePrefetch);
      return signalPassFailure();
    }
    config.scalePrefetch = scalePrefetch == -1
                               ? cfg::groupedGemmScalePrefetch(config)
                               : scalePrefetch == 1;
    config.tmaWarps =
        tmaWarps == -1 ? cfg::groupedGemmTmaWarps(config) : tmaWarps;
    if (std::optional<std::string> error =
            ::megamoe::verifyGroupedGemmConfig(config)) {
      getOperation().emitError("megamoe-grouped-gemm: ") << *error;
      return signalPassFailure();
    }
    ::megamoe::buildGroupedGemm(getOperation(), config);
  }
};
} // namespace
