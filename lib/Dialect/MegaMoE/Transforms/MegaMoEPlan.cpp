//===- MegaMoEPlan.cpp - attach #megamoe.plan to every layer --------------===//
//
// The heuristics live in the config library (lib/Config/Heuristics.cpp) so
// the runtime can evaluate them too; this pass maps its options onto
// PlanOverrides and reports the library's messages on the layer.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/Plan.h"
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h"

#include <tuple>

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOEPLAN
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;
using namespace mlir::megamoe;
namespace cfg = ::megamoe::config;

namespace {

struct MegaMoEPlanPass
    : public mlir::megamoe::impl::MegaMoEPlanBase<MegaMoEPlanPass> {
  using MegaMoEPlanBase::MegaMoEPlanBase;

  /// The overrides the options ask for, or failure (reported on `op`).
  FailureOr<cfg::PlanOverrides> overrides(LayerOp op) {
    cfg::PlanOverrides o;
    auto set = [](std::optional<int64_t> &field, int64_t value) {
      if (value != 0)
        field = value;
    };
    set(o.blockM, blockM);
    set(o.l1BlockN, l1BlockN);
    set(o.l2BlockN, l2BlockN);
    set(o.expertAlign, expertAlign);
    set(o.kSplit, kSplit);
    if (waveMBlocks != -1) // -1: the option's "heuristic"
      o.waveMBlocks = waveMBlocks;
    if (waveLag >= 0)
      o.waveLag = waveLag;
    set(o.blockK, blockK);
    set(o.stages, stages);
    set(o.expertsPerWave, expertsPerWave);
    set(o.numSMs, numSMs);
    set(o.producerRegisters, producerRegisters);
    set(o.mathRegisters, mathRegisters);
    if (poolTokens >= 0)
      o.poolTokens = poolTokens;
    if (schedule == "auto") {
      // The fastest schedule built for this layer's chip (measured),
      // per variant; the plan's is that of its largest BLOCK_M.
      cfg::LayerConfig layer = op.getConfig().getLayerConfig();
      o.schedule = cfg::fastestBuiltSchedule(
          layer, o.blockM.value_or(cfg::unfusedBlockM(layer)));
      o.schedulePerVariant = true;
    } else if (!schedule.empty()) {
      o.schedule = cfg::parseSchedule(schedule);
      if (!o.schedule)
        return op->emitError()
               << "megamoe-plan: unknown schedule=\"" << schedule
               << "\"; expected fused, split, unfused, fused-gemm or auto";
    }
    // The heuristic's switches: true, false, or empty for the heuristic.
    for (auto [name, value, out] :
         {std::tuple<const char *, const std::string &, std::optional<bool> &>{
              "l1-pull", l1Pull, o.l1Pull},
          {"l1-pair-stages", l1PairStages, o.l1PairStages},
          {"l2-expert-blocks", l2ExpertBlocks, o.l2ExpertBlocks},
          {"l1-cluster", l1Cluster, o.l1Cluster},
          {"l1-weight-tiles", l1WeightTiles, o.l1WeightTiles}}) {
      if (value == "true" || value == "false")
        out = value == "true";
      else if (!value.empty())
        return op->emitError()
               << "megamoe-plan: unknown " << name << "=\"" << value
               << "\"; expected true, false or empty (heuristic)";
    }
    if (!mathMode.empty()) {
      o.mathMode = cfg::parseMathMode(mathMode);
      if (!o.mathMode)
        return op->emitError()
               << "megamoe-plan: unknown math-mode=\"" << mathMode
               << "\"; expected cooperative-m, cooperative-n or single";
    }
    return o;
  }

  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](LayerOp layer) {
      FailureOr<cfg::PlanOverrides> o = overrides(layer);
      if (mlir::failed(o)) {
        failed = true;
        return;
      }
      cfg::Plan plan;
      std::vector<std::string> errors =
          cfg::makePlan(layer.getConfig().getLayerConfig(), *o, plan);
      if (!errors.empty()) {
        InFlightDiagnostic diag = layer.emitError()
                                  << "megamoe-plan: no plan fits layer @"
                                  << layer.getSymName();
        for (const std::string &e : errors)
          diag.attachNote() << e;
        failed = true;
        return;
      }
      layer.setPlanAttr(PlanAttr::get(&getContext(), plan));
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
