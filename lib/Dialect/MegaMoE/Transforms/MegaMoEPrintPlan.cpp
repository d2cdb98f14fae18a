//===- MegaMoEPrintPlan.cpp - print plans as text or JSON -----------------===//
#include "megamoe/Config/Print.h"
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOEPRINTPLAN
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;
using namespace mlir::megamoe;
namespace cfg = ::megamoe::config;

namespace {

struct MegaMoEPrintPlanPass
    : public mlir::megamoe::impl::MegaMoEPrintPlanBase<MegaMoEPrintPlanPass> {
  using MegaMoEPrintPlanBase::MegaMoEPrintPlanBase;

  void runOnOperation() override {
    if (format != "text" && format != "json") {
      getOperation().emitError() << "megamoe-print-plan: unknown format=\""
                                 << format << "\"; expected text or json";
      return signalPassFailure();
    }
    bool failed = false;
    getOperation().walk([&](LayerOp layer) {
      if (!layer.getPlan()) {
        layer.emitError() << "megamoe-print-plan: layer @" << layer.getSymName()
                          << " has no plan; run --megamoe-plan first";
        failed = true;
        return;
      }
      cfg::LayerConfig config = layer.getConfig().getLayerConfig();
      cfg::Plan plan = layer.getPlan()->getPlan();
      llvm::raw_ostream &os = llvm::outs();
      if (format == "json")
        os << cfg::planToJson(config, plan) << "\n";
      else
        os << "// layer @" << layer.getSymName() << "\n"
           << cfg::planToText(config, plan);
      os.flush();
    });
    if (failed)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
