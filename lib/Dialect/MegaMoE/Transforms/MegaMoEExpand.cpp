//===- MegaMoEExpand.cpp - a planned layer's schedule as kernels ----------===//
//
// The layer op says what to compute and the plan how to tile it; this pass
// builds the kernels of the plan's schedule into a gpu.module named after the
// layer, through the kernel builders of lib/Kernels (one per stage), and
// records what the runtime needs to launch them without any per-kernel code:
// the symbols, the launch order and the symmetric-buffer layout.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/Heuristics.h"
#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Config/Print.h"
#include "megamoe/Conversion/ManifestNames.h"
#include "megamoe/Conversion/TargetAttr.h"
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h"
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"
#include "megamoe/Kernels/GroupedGemm.h"
#include "megamoe/Kernels/MoeKernels.h"
#include "megamoe/Kernels/Profile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringSet.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOEEXPAND
#include "megamoe/Dialect/MegaMoE/Transforms/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;
using namespace mlir::megamoe;
namespace cfg = ::megamoe::config;
namespace mk = ::megamoe;
namespace mf = ::megamoe::manifest;

namespace {

/// One kernel of a schedule: its name, how to build it, and whether it
/// depends on the variant's BLOCK_M (pool padding, block indices, GEMM
/// tiles): such a stage is built once per variant, named
/// `<name>` + variantSuffix when the plan has several.
struct Stage {
  const char *name;
  std::function<void(OpBuilder &, Location, const mk::MoeKernelContext &)>
      build;
  bool perVariant = false;
};

/// The name suffix of a variant's own kernels in a plan of several:
/// `_bm<BLOCK_M>`, and `_shared` where an expert's m-blocks share its
/// weight tiles (l1-cluster, l2-expert-blocks), which tells the two
/// BLOCK_M 128 variants of a plan apart (sharedWeightsMinTokens).
std::string variantSuffix(const cfg::Variant &v) {
  return "_bm" + std::to_string(v.blockM) +
         (v.sharesWeights() ? "_shared" : "");
}

/// The binds of one layer GEMM's parameters (regions and forward inputs).
mk::GroupedGemmBinds layerGemmBinds(const mk::GroupedGemmConfig &g, bool l1) {
  mk::GroupedGemmBinds binds;
  binds.a = l1 ? "region:l1_pool" : "region:l2_pool";
  binds.aScales = l1 ? "region:l1_pool_sf" : "region:l2_pool_sf";
  binds.b = l1 ? "input:l1_weight" : "input:l2_weight";
  binds.bScales = l1 ? "input:l1_scale" : "input:l2_scale";
  if (g.swiglu) {
    binds.rowWeight = "region:l1_pool_weight";
    binds.out = "region:l2_pool";
    binds.outScales = "region:l2_pool_sf";
    if (g.swigluArrivals) // the fused GEMM kernel's L2 waits on them
      binds.arrivals = "region:l2_arrivals";
  } else if (l1) {
    binds.d = "region:l1_out";
  } else {
    binds.poolSource = "region:pool_source";
    binds.combine = "region:combine";
    binds.peerOffsets = "peer_offsets";
  }
  if (g.pullRows) { // the copy of moe_pull, inside the kernel
    binds.pool = "region:l1_pool";
    binds.poolScales = "region:l1_pool_sf";
    binds.poolSource = "region:pool_source";
    binds.srcTokenIndex = "region:src_token_index";
    binds.poolRowStart = "region:pool_row_start";
    binds.x = "region:x";
    binds.xScales = "region:x_sf";
    binds.topkWeights = "region:topk_weights";
    binds.peerOffsets = "peer_offsets";
    binds.pullArrivals = "region:pull_arrivals";
    binds.pullWaits = "region:pull_waits";
  }
  if (g.kSplit > 1) { // the K-split tail's workspace (BufferLayout.cpp)
    binds.splitPartials = "region:split_partials";
    binds.splitCounts = "region:split_counts";
    binds.poolRowStart = "region:pool_row_start";
  }
  binds.blockExpert = "region:pool_block_expert";
  binds.numMBlocks = "region:pool_info";
  if (g.halfBlocks)
    binds.blockRow = "region:pool_block_row";
  if (g.expertBlocks)
    binds.blockRow = "region:pool_expert_block";
  return binds;
}

/// The fused-gemm schedule's persistent L1 + SwiGLU + L2 kernel
/// (docs/FusedSchedule.md) for the context's variant; with `wholeLayer` the
/// dispatch and the combine in it too (moe_fused).
void buildLayerFusedGemm(OpBuilder &b, Location loc,
                         const mk::MoeKernelContext &ctx,
                         bool wholeLayer = false) {
  const cfg::LayerConfig &c = ctx.config;
  assert(ctx.variant && "a layer GEMM is built for its variant");
  const cfg::Variant &v = *ctx.variant;
  mk::GroupedGemmConfig l1(
      cfg::layerGemmProblem(c, ctx.plan, v, cfg::LayerGemm::L1));
  mk::GroupedGemmConfig l2(
      cfg::layerGemmProblem(c, ctx.plan, v, cfg::LayerGemm::L2));
  for (const mk::GroupedGemmConfig *g : {&l1, &l2})
    if (std::optional<std::string> error = mk::verifyGroupedGemmConfig(*g)) {
      emitError(loc) << "megamoe-expand: the " << (g == &l1 ? "L1" : "L2")
                     << " GEMM of the fused GEMM kernel cannot be built: "
                     << *error;
      return;
    }
  mk::FusedGemmBinds binds{layerGemmBinds(l1, true), layerGemmBinds(l2, false),
                           "region:l2_waits", ctx.barrierTimeoutCycles,
                           ctx.missingArrivals};
  if (v.waveMBlocks > 0)
    binds.wave = mk::WaveOrder{v.waveMBlocks, v.waveLag};
  if (l1.poolRing())
    binds.ringDone = "region:pool_ring_done";
  // The dispatch warps' waits (pull arrivals, ring slots) are bounded as
  // the L2 arrival waits are; test-missing-arrivals stays on the latter.
  binds.l1.pullTimeoutCycles = ctx.barrierTimeoutCycles;
  if (wholeLayer) {
    binds.profile = ctx.profileSection(mk::kFusedKernel);
    mk::buildMoeFusedKernel(b, loc, ctx, l1, l2, binds);
    return;
  }
  binds.profile = ctx.profileSection(mk::kFusedGemmKernel);
  mk::buildFusedGemmKernel(b, loc, ctx.kernelName(mk::kFusedGemmKernel), l1,
                           l2, binds);
}

/// The grouped GEMM of one MoE layer GEMM: its problem comes from the plan
/// (config::layerGemmProblem: BLOCK_M = the pool block, the number of m
/// blocks read from pool_info[0], static pool-sized shapes; the L2 GEMM
/// scatters its rows to the source ranks' combine buffers from its epilogue,
/// so its NVLink traffic overlaps the GEMM); here every parameter is bound
/// to a region or a forward input.
void buildLayerGemm(OpBuilder &b, Location loc, const mk::MoeKernelContext &ctx,
                    bool l1) {
  const cfg::LayerConfig &c = ctx.config;
  assert(ctx.variant && "a layer GEMM is built for its variant");
  const cfg::Variant &v = *ctx.variant;
  mk::GroupedGemmConfig g =
      mk::GroupedGemmConfig(cfg::layerGemmProblem(
          c, ctx.plan, v, l1 ? cfg::LayerGemm::L1 : cfg::LayerGemm::L2));
  mk::GroupedGemmBinds binds = layerGemmBinds(g, l1);
  binds.pullTimeoutCycles = ctx.barrierTimeoutCycles;
  binds.splitTimeoutCycles = ctx.barrierTimeoutCycles;
  binds.missingPullArrivals = ctx.missingArrivals;
  if (std::optional<std::string> error = mk::verifyGroupedGemmConfig(g)) {
    emitError(loc) << "megamoe-expand: the " << (l1 ? "L1" : "L2")
                   << " grouped GEMM cannot be built: " << *error;
    return;
  }
  StringRef name = g.swiglu ? mk::kL1SwiGLUKernel
                 : l1       ? mk::kL1GemmKernel
                            : mk::kL2GemmKernel;
  binds.profile = ctx.profileSection(name);
  mk::buildGroupedGemmKernel(b, loc, ctx.kernelName(name), g, binds);
}

/// The unfused schedule, in launch order (docs/UnfusedSchedule.md).
SmallVector<Stage> unfusedStages() {
  return {
      {mk::kRouteKernel, mk::buildMoeRouteKernel},
      {mk::kLayoutKernel, mk::buildMoeLayoutKernel, /*perVariant=*/true},
      {mk::kPullKernel, mk::buildMoePullKernel, /*perVariant=*/true},
      {mk::kL1GemmKernel,
       [](OpBuilder &b, Location l, const mk::MoeKernelContext &ctx) {
         buildLayerGemm(b, l, ctx, /*l1=*/true);
       },
       /*perVariant=*/true},
      {mk::kActivationKernel, mk::buildMoeActivationKernel},
      {mk::kL2GemmKernel,
       [](OpBuilder &b, Location l, const mk::MoeKernelContext &ctx) {
         buildLayerGemm(b, l, ctx, /*l1=*/false);
       },
       /*perVariant=*/true},
      {mk::kCombineBarrierKernel, mk::buildMoeCombineBarrierKernel},
      {mk::kCombineReduceKernel, mk::buildMoeCombineReduceKernel},
  };
}

/// The split schedule as built today (docs/SplitSchedule.md): the unfused
/// schedule with the L1 GEMM and the activation in one kernel whose epilogue
/// requantizes from the accumulator (no h in memory).
/// The fused-gemm schedule (docs/FusedSchedule.md): the unfused schedule's
/// dispatch and combine kernels around the fused GEMM kernel.
/// `pullInL1`: the fused GEMM kernel's dispatch warps fill the pool
/// (Variant::l1Pull), so moe_pull is not built for the variant.
SmallVector<Stage> fusedGemmStages(bool pullInL1) {
  SmallVector<Stage> stages;
  for (Stage &s : unfusedStages()) {
    StringRef name(s.name);
    if (name == mk::kActivationKernel || name == mk::kL2GemmKernel ||
        (pullInL1 && name == mk::kPullKernel))
      continue;
    if (name == mk::kL1GemmKernel)
      s = {mk::kFusedGemmKernel,
           [](OpBuilder &b, Location l, const mk::MoeKernelContext &ctx) {
             buildLayerFusedGemm(b, l, ctx);
           },
           /*perVariant=*/true};
    stages.push_back(s);
  }
  return stages;
}

/// `pullInL1`: the L1 kernel fills its own pool rows (Variant::l1Pull), so
/// moe_pull is not built for the variant.
SmallVector<Stage> splitStages(bool pullInL1) {
  SmallVector<Stage> stages;
  for (Stage &s : unfusedStages()) {
    if (StringRef(s.name) == mk::kActivationKernel)
      continue;
    if (pullInL1 && StringRef(s.name) == mk::kPullKernel)
      continue;
    if (StringRef(s.name) == mk::kL1GemmKernel)
      s.name = mk::kL1SwiGLUKernel;
    stages.push_back(s);
  }
  return stages;
}

/// With one-kernel (fused-gemm): moe_fused, the whole layer.
SmallVector<Stage> oneKernelStages() {
  return {{mk::kFusedKernel,
           [](OpBuilder &b, Location l, const mk::MoeKernelContext &ctx) {
             buildLayerFusedGemm(b, l, ctx, /*wholeLayer=*/true);
           },
           /*perVariant=*/true}};
}

/// With merge-stages: the stages' route, layout and pull as moe_dispatch
/// and the combine barrier and reduce as moe_combine (MoeDispatch.cpp,
/// MoeCombine.cpp), the rest unchanged.
SmallVector<Stage> mergedStages(SmallVector<Stage> stages) {
  SmallVector<Stage> merged;
  for (Stage &s : stages) {
    StringRef name(s.name);
    if (name == mk::kRouteKernel || name == mk::kLayoutKernel ||
        name == mk::kCombineBarrierKernel)
      continue;
    if (name == mk::kPullKernel)
      s = {mk::kDispatchKernel, mk::buildMoeDispatchKernel,
           /*perVariant=*/true};
    if (name == mk::kCombineReduceKernel)
      s = {mk::kCombineKernel, mk::buildMoeCombineKernel};
    merged.push_back(s);
  }
  return merged;
}

/// The manifest symbols of a layer (docs/UnfusedSchedule.md, "Symbols").
DictionaryAttr layerSymbols(Builder &b, const cfg::LayerConfig &c,
                            const cfg::Plan &p) {
  auto sym = [&](StringRef name, int64_t v) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(v));
  };
  return b.getDictionaryAttr(
      {sym("H", c.hidden), sym("I", c.intermediate), sym("E", c.experts),
       sym("K", c.topk), sym("R", c.ranks), sym("T", c.maxTokensPerRank),
       sym("L", c.localExperts()), sym("P", p.poolTokens),
       sym("BM", p.variants.front().blockM)});
}

/// The manifest's "layer": what the symbols do not say (the activation and
/// the recipe), so callers can check they run the layer they meant.
DictionaryAttr layerDescription(Builder &b, const cfg::LayerConfig &c,
                                const cfg::Plan &p) {
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("schedule", b.getStringAttr(cfg::toString(p.schedule))),
      b.getNamedAttr("activation",
                     b.getStringAttr(cfg::toString(c.activation))),
      b.getNamedAttr("requant_block",
                     b.getI64IntegerAttr(c.recipe.requantBlock)),
      b.getNamedAttr("fast_math", b.getBoolAttr(c.fastMath))};
  if (c.clamp)
    attrs.push_back(b.getNamedAttr("clamp", b.getF64FloatAttr(*c.clamp)));
  return b.getDictionaryAttr(attrs);
}

/// Whether stage `name` is a GEMM kernel (its roles stamp per tile).
bool isGemmStage(StringRef name) {
  return name == mk::kL1GemmKernel || name == mk::kL1SwiGLUKernel ||
         name == mk::kL2GemmKernel || name == mk::kFusedGemmKernel ||
         name == mk::kFusedKernel;
}

/// The manifest's "profile" (docs/Profile.md): the record format, the phase
/// names and each kernel's section.
DictionaryAttr profileDescription(Builder &b,
                                  const llvm::StringMap<mk::ProfileSection> &s,
                                  ArrayRef<std::string> order,
                                  int64_t records) {
  SmallVector<NamedAttribute> kernels;
  for (const std::string &name : order) {
    const mk::ProfileSection &k = s.find(name)->second;
    SmallVector<StringRef> roles = {"cta"};
    if (k.roles > 1)
      roles = {"tma", "math0", "math1"};
    if (k.roles > mk::kProfileDispatchRole)
      roles.push_back("dispatch");
    kernels.push_back(b.getNamedAttr(
        name, b.getDictionaryAttr(
                  {b.getNamedAttr("first_record",
                                  b.getI64IntegerAttr(k.firstRecord)),
                   b.getNamedAttr("capacity", b.getI64IntegerAttr(k.capacity)),
                   b.getNamedAttr("roles", b.getStrArrayAttr(roles))})));
  }
  SmallVector<StringRef> phases;
  for (int i = 0; i < mk::kNumProfilePhases; ++i)
    phases.push_back(mk::profilePhaseName(i));
  return b.getDictionaryAttr(
      {b.getNamedAttr("record_bytes",
                      b.getI64IntegerAttr(mk::kProfileRecordBytes)),
       b.getNamedAttr("max_ctas", b.getI64IntegerAttr(mk::kProfileMaxCtas)),
       b.getNamedAttr("bytes",
                      b.getI64IntegerAttr(records * mk::kProfileRecordBytes)),
       b.getNamedAttr("phases", b.getStrArrayAttr(phases)),
       b.getNamedAttr("kernels", b.getDictionaryAttr(kernels))});
}

struct MegaMoEExpandPass
    : public mlir::megamoe::impl::MegaMoEExpandBase<MegaMoEExpandPass> {
  using MegaMoEExpandBase::MegaMoEExpandBase;

  LogicalResult expand(ModuleOp module, LayerOp layer) {
    if (!layer.getPlan())
      return layer.emitError("megamoe-expand: layer @")
             << layer.getSymName() << " has no plan; run megamoe-plan first";
    cfg::LayerConfig config = layer.getConfig().getLayerConfig();
    cfg::Plan plan = layer.getPlan()->getPlan();
    if (plan.schedule == cfg::Schedule::Fused)
      return layer.emitError("megamoe-expand: the ")
             << cfg::toString(plan.schedule)
             << " schedule is not built yet; the unfused, split and "
                "fused-gemm schedules are (megamoe-plan=\"schedule=unfused\", "
                "\"schedule=split\" or \"schedule=fused-gemm\")";
    // The plan is valid: the layer op's verifier checks it (validatePlan).

    if (oneKernel)
      for (const cfg::Variant &v : plan.variants)
        if (cfg::scheduleOf(plan, v) != cfg::Schedule::FusedGemm)
          return layer.emitError("megamoe-expand: one-kernel is built for "
                                 "the fused-gemm schedule (megamoe-plan=\""
                                 "schedule=fused-gemm\"); the BLOCK_M ")
                 << v.blockM << " variant's is "
                 << cfg::toString(cfg::scheduleOf(plan, v));
    // one-kernel and merge-stages run the pull as a stage of their own.
    if (oneKernel || mergeStages)
      for (const cfg::Variant &v : plan.variants)
        if (v.l1Pull)
          return layer.emitError("megamoe-expand: ")
                 << (oneKernel ? "one-kernel" : "merge-stages")
                 << " is not built for a variant whose L1 kernel pulls its "
                    "rows (l1-pull, BLOCK_M "
                 << v.blockM << "): "
                 << (oneKernel ? "moe_fused runs the pull before its roles"
                               : "moe_dispatch includes the pull");
    if (oneKernel && mergeStages)
      return layer.emitError("megamoe-expand: one-kernel already holds the "
                             "dispatch and the combine; merge-stages does "
                             "not apply");
    // Each variant runs its schedule (cfg::scheduleOf: a plan may mix split
    // and fused-gemm variants). A split variant whose epilogue does not
    // requantize runs the unfused schedule's L1 GEMM and moe_activation
    // (cfg::splitFusesActivation).
    auto stagesOf = [&](const cfg::Variant &v) {
      if (oneKernel)
        return oneKernelStages();
      cfg::Schedule schedule = cfg::scheduleOf(plan, v);
      SmallVector<Stage> stages = schedule == cfg::Schedule::FusedGemm
                                      ? fusedGemmStages(v.l1Pull)
                                  : schedule == cfg::Schedule::Split &&
                                          cfg::splitFusesActivation(config, v)
                                      ? splitStages(v.l1Pull)
                                      : unfusedStages();
      return mergeStages ? mergedStages(std::move(stages)) : stages;
    };
    llvm::StringSet<> known;
    SmallVector<std::string> knownOrder;
    for (const cfg::Variant &v : plan.variants)
      for (const Stage &s : stagesOf(v))
        if (known.insert(s.name).second)
          knownOrder.push_back(s.name);
    for (const std::string &name : only)
      if (!known.contains(name)) {
        std::string names;
        for (const std::string &s : knownOrder)
          names += (names.empty() ? "" : ", ") + s;
        return layer.emitError("megamoe-expand: only= names '")
               << name << "', which is not a kernel of the "
               << cfg::toString(plan.schedule) << " schedule ("
               << names << ")";
      }
    llvm::StringSet<> wanted;
    for (const std::string &name : only)
      wanted.insert(name);

    cfg::BufferLayout layout = cfg::computeBufferLayout(config, plan);
    mk::MoeKernelContext ctx{config, plan, layout};
    if (barrierTimeoutCycles < 0)
      return layer.emitError("megamoe-expand: barrier-timeout-cycles (")
             << int64_t(barrierTimeoutCycles)
             << ") must be positive, or 0 for the default";
    if (barrierTimeoutCycles > 0)
      ctx.barrierTimeoutCycles = barrierTimeoutCycles;
    if (missingArrivals < 0)
      return layer.emitError("megamoe-expand: test-missing-arrivals (")
             << int64_t(missingArrivals) << ") must be 0 or positive";
    ctx.missingArrivals = missingArrivals;
    if (weightPrefetchMiB < 0 || weightPrefetchMiB > 1024)
      return layer.emitError("megamoe-expand: weight-prefetch-mib (")
             << int64_t(weightPrefetchMiB) << ") must be in [0, 1024]";
    ctx.weightPrefetchBytes = int64_t(weightPrefetchMiB) << 20;
    // A kernel launched early holds an SM while it waits for its
    // predecessor: with several ranks sharing a GPU (the one-GPU multi-rank
    // mode) one rank's waiting CTAs kept another rank's persistent kernel
    // from becoming resident, and the cross-rank barrier timed out
    // (bench/RESULTS.md, 2026-12-02, "Programmatic dependent launch").
    if (programmaticLaunch < 0 || programmaticLaunch > 2)
      return layer.emitError("megamoe-expand: programmatic-launch must be 0 "
                             "(off), 1 (wait at entry) or 2 (wait and "
                             "trigger at entry); got ")
             << int64_t(programmaticLaunch);
    if (programmaticLaunch == 2 && config.ranks > 1)
      return layer.emitError("megamoe-expand: programmatic-launch=2 is built "
                             "for one rank (ranks = 1); the layer has ")
             << config.ranks
             << " ranks, whose kernels' cross-rank barriers can wait on a "
                "rank whose CTAs cannot become resident";
    // The phase profile: one section per kernel that is built, in build
    // order; a GEMM kernel's holds its producer and two math roles.
    llvm::StringMap<mk::ProfileSection> profileSections;
    SmallVector<std::string> profileOrder;
    int64_t profileRecords = 0;
    if (profile) {
      if (profileCapacity < 1 || profileCapacity > 65536)
        return layer.emitError("megamoe-expand: profile-capacity (")
               << int64_t(profileCapacity) << ") must be in [1, 65536]";
      bool several = plan.variants.size() > 1;
      for (const cfg::Variant &v : plan.variants)
        for (const Stage &s : stagesOf(v)) {
          if (!wanted.empty() && !wanted.contains(s.name))
            continue;
          std::string name =
              std::string(s.name) +
              (s.perVariant && several ? variantSuffix(v) : std::string());
          if (profileSections.count(name))
            continue;
          mk::ProfileSection section;
          section.firstRecord = profileRecords;
          if (isGemmStage(s.name)) {
            // A kernel whose dispatch warps pull its rows stamps them too.
            bool pulls =
                v.l1Pull && (StringRef(s.name) == mk::kL1SwiGLUKernel ||
                             StringRef(s.name) == mk::kFusedGemmKernel);
            section.roles = mk::kProfileGemmRoles + (pulls ? 1 : 0);
            section.capacity = profileCapacity;
          }
          profileRecords += section.records();
          profileSections[name] = section;
          profileOrder.push_back(name);
        }
      ctx.profile = &profileSections;
    }

    MLIRContext *mctx = module.getContext();
    OpBuilder b(mctx);
    Location loc = layer.getLoc();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    b.setInsertionPointToEnd(module.getBody());
    auto target =
        ::megamoe::nvvmTargetForChip(mctx, cfg::toString(config.chip));
    if (!target)
      return layer.emitError("megamoe-expand: no PTX target for chip '")
             << cfg::toString(config.chip)
             << "'; supported: " << ::megamoe::supportedChips();
    auto gpuModule = gpu::GPUModuleOp::create(b, loc, layer.getSymName(),
                                              b.getArrayAttr({target}));
    gpuModule->setAttr(mf::kSymbols, layerSymbols(b, config, plan));
    gpuModule->setAttr(mf::kRuntimeSymbols, b.getStrArrayAttr({}));
    gpuModule->setAttr(mf::kLayer, layerDescription(b, config, plan));
    gpuModule->setAttr(mf::kPlan, b.getStringAttr(cfg::planToJson(
                                      config, plan, /*indent=*/-1)));
    if (profile)
      gpuModule->setAttr(mf::kProfile,
                         profileDescription(b, profileSections, profileOrder,
                                            profileRecords));

    // Errors of the builders are reported through the diagnostic engine.
    bool builderFailed = false;
    ScopedDiagnosticHandler handler(mctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        builderFailed = true;
      return failure(); // let it reach the user
    });
    // Shared stages are built once; per-variant ones once per variant.
    bool several = plan.variants.size() > 1;
    llvm::StringSet<> built;
    SmallVector<Attribute> variants;
    SmallVector<std::string> firstOrder;
    for (const cfg::Variant &v : plan.variants) {
      mk::MoeKernelContext vctx = ctx;
      vctx.blockM = v.blockM;
      vctx.expertAlign = v.expertAlign > 0 ? v.expertAlign : v.blockM;
      vctx.l2ExpertBlocks = v.l2ExpertBlocks;
      vctx.l1Cluster = v.l1Cluster;
      vctx.variant = &v;
      SmallVector<std::string> order;
      for (const Stage &s : stagesOf(v)) {
        if (!wanted.empty() && !wanted.contains(s.name))
          continue;
        vctx.nameSuffix =
            s.perVariant && several ? variantSuffix(v) : std::string();
        std::string name = vctx.kernelName(s.name);
        order.push_back(name);
        if (!built.insert(name).second)
          continue;
        b.setInsertionPointToEnd(gpuModule.getBody());
        s.build(b, loc, vctx);
      }
      if (firstOrder.empty())
        firstOrder = order;
      SmallVector<StringRef> names(order.begin(), order.end());
      variants.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("min_tokens", b.getI64IntegerAttr(v.minTokens)),
           b.getNamedAttr("max_tokens", b.getI64IntegerAttr(v.maxTokens)),
           b.getNamedAttr("block_m", b.getI64IntegerAttr(v.blockM)),
           b.getNamedAttr("schedule", b.getStrArrayAttr(names))}));
    }
    // Programmatic dependent launch: every kernel waits for its
    // predecessor's completion first (warpspec.kernel programmatic_launch),
    // so each one may be launched as the previous one drains.
    if (programmaticLaunch > 0)
      gpuModule.walk([&](warpspec::KernelOp k) {
        k.setProgrammaticLaunch(true);
        k.setTriggerDependentsAtEntry(programmaticLaunch == 2);
      });
    // One variant: a plain "schedule"; several: "variants", the runtime
    // picking by the call's token count.
    if (several) {
      gpuModule->setAttr(mf::kVariants, b.getArrayAttr(variants));
    } else {
      SmallVector<StringRef> names(firstOrder.begin(), firstOrder.end());
      gpuModule->setAttr(mf::kSchedule, b.getStrArrayAttr(names));
    }
    return failure(builderFailed);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LayerOp> layers(module.getOps<LayerOp>());
    if (layers.empty()) {
      module.emitError("megamoe-expand: the module holds no megamoe.layer");
      return signalPassFailure();
    }
    for (LayerOp layer : layers) {
      if (failed(expand(module, layer)))
        return signalPassFailure();
      // The gpu.module takes the layer's symbol name: the layer is consumed.
      layer.erase();
    }
  }
};

} // namespace
