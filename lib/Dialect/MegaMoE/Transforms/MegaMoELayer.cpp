//===- MegaMoELayer.cpp - build a megamoe.layer from pass options ---------===//
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOELAYER
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;
using namespace mlir::megamoe;
namespace cfg = ::megamoe::config;

namespace {

struct MegaMoELayerPass
    : public mlir::megamoe::impl::MegaMoELayerBase<MegaMoELayerPass> {
  using MegaMoELayerBase::MegaMoELayerBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    cfg::LayerConfig c;
    c.hidden = hidden;
    c.intermediate = intermediate;
    c.experts = experts;
    c.topk = topk;
    c.ranks = ranks;
    c.maxTokensPerRank = maxTokens;
    c.recipe.requantBlock = requantBlock;
    c.fastMath = fastMath;
    if (clamp != 0.0)
      c.clamp = clamp;
    std::optional<cfg::Chip> parsedChip = cfg::parseChip(chip);
    if (!parsedChip) {
      module.emitError() << "megamoe-layer: unsupported chip \"" << chip
                         << "\"; expected \"sm_90a\" or \"sm_100a\"";
      return signalPassFailure();
    }
    c.chip = *parsedChip;

    // getChecked reports every rule the options break, on the module.
    auto emitError = [&] { return module.emitError() << "megamoe-layer: "; };
    ConfigAttr config = ConfigAttr::getChecked(emitError, &getContext(), c);
    if (!config)
      return signalPassFailure();
    if (SymbolTable::lookupSymbolIn(module, layerName)) {
      module.emitError() << "megamoe-layer: the module already has a symbol @"
                         << layerName << "; pick another name=";
      return signalPassFailure();
    }
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    LayerOp::create(builder, module.getLoc(), layerName, config,
                    /*plan=*/PlanAttr());
  }
};

} // namespace
