//===- MegaMoEAttrs.cpp - #megamoe.config / #megamoe.plan -----------------===//
//
// The attributes are the IR form of megamoe::config::LayerConfig and Plan; the
// rules live in the config library and the verifiers report its messages.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Dialect/MegaMoE/IR/MegaMoE.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::megamoe;
namespace cfg = ::megamoe::config;

FailureOr<bool> mlir::megamoe::parseBoolKeyword(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return true;
  if (succeeded(parser.parseOptionalKeyword("false")))
    return false;
  return parser.emitError(parser.getCurrentLocation(),
                          "expected 'true' or 'false'");
}

//===----------------------------------------------------------------------===//
// ConfigAttr
//===----------------------------------------------------------------------===//

namespace {

/// The LayerConfig of the parameters, or the first name that is not known.
FailureOr<cfg::LayerConfig>
buildConfig(function_ref<InFlightDiagnostic()> emitError, int64_t hidden,
            int64_t intermediate, int64_t experts, int64_t topk, int64_t ranks,
            int64_t maxTokens, StringRef chip, StringRef actDtype,
            StringRef weightDtype, StringRef outDtype, int64_t inputScaleBlock,
            int64_t weightScaleBlock, int64_t requantBlock,
            StringRef activation, FloatAttr clamp, bool fastMath) {
  cfg::LayerConfig c;
  c.hidden = hidden;
  c.intermediate = intermediate;
  c.experts = experts;
  c.topk = topk;
  c.ranks = ranks;
  c.maxTokensPerRank = maxTokens;
  if (clamp)
    c.clamp = clamp.getValueAsDouble();
  c.fastMath = fastMath;
  c.recipe.inputScaleBlock = inputScaleBlock;
  c.recipe.weightScaleBlock = weightScaleBlock;
  c.recipe.requantBlock = requantBlock;
  std::optional<cfg::Chip> parsedChip = cfg::parseChip(chip.str());
  if (!parsedChip) {
    if (emitError)
      emitError() << "unsupported chip \"" << chip
                  << "\"; expected \"sm_90a\" or \"sm_100a\"";
    return failure();
  }
  c.chip = *parsedChip;
  std::optional<cfg::Activation> parsedActivation =
      cfg::parseActivation(activation.str());
  if (!parsedActivation) {
    if (emitError)
      emitError() << "unsupported activation \"" << activation
                  << "\"; expected \"swiglu\"";
    return failure();
  }
  c.activation = *parsedActivation;
  struct {
    StringRef text;
    cfg::DType *field;
    const char *what;
  } dtypes[] = {{actDtype, &c.recipe.activation, "activation"},
                {weightDtype, &c.recipe.weight, "weight"},
                {outDtype, &c.recipe.output, "output"}};
  for (auto &d : dtypes) {
    std::optional<cfg::DType> parsed = cfg::parseDType(d.text.str());
    if (!parsed) {
      if (emitError)
        emitError() << "unknown " << d.what << " dtype \"" << d.text
                    << "\"; expected \"e4m3\", \"bf16\" or \"f32\"";
      return failure();
    }
    *d.field = *parsed;
  }
  return c;
}

} // namespace

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t hidden, int64_t intermediate,
                                 int64_t experts, int64_t topk, int64_t ranks,
                                 int64_t maxTokens, StringRef chip,
                                 StringRef actDtype, StringRef weightDtype,
                                 StringRef outDtype, int64_t inputScaleBlock,
                                 int64_t weightScaleBlock, int64_t requantBlock,
                                 StringRef activation, FloatAttr clamp,
                                 bool fastMath) {
  FailureOr<cfg::LayerConfig> c = buildConfig(
      emitError, hidden, intermediate, experts, topk, ranks, maxTokens, chip,
      actDtype, weightDtype, outDtype, inputScaleBlock, weightScaleBlock,
      requantBlock, activation, clamp, fastMath);
  if (failed(c))
    return failure();
  std::vector<std::string> errors = cfg::validate(*c);
  for (const std::string &e : errors)
    emitError() << e;
  return success(errors.empty());
}

cfg::LayerConfig ConfigAttr::getLayerConfig() const {
  FailureOr<cfg::LayerConfig> c = buildConfig(
      nullptr, getHidden(), getIntermediate(), getExperts(), getTopk(),
      getRanks(), getMaxTokens(), getChip(), getActDtype(), getWeightDtype(),
      getOutDtype(), getInputScaleBlock(), getWeightScaleBlock(),
      getRequantBlock(), getActivation(), getClamp(), getFastMath());
  return succeeded(c) ? *c : cfg::LayerConfig();
}

static FloatAttr clampAttr(MLIRContext *context, const cfg::LayerConfig &c) {
  if (!c.clamp)
    return nullptr;
  return FloatAttr::get(Float64Type::get(context), *c.clamp);
}

ConfigAttr ConfigAttr::get(MLIRContext *context, const cfg::LayerConfig &c) {
  return Base::get(
      context, c.hidden, c.intermediate, c.experts, c.topk, c.ranks,
      c.maxTokensPerRank, cfg::toString(c.chip),
      cfg::toString(c.recipe.activation), cfg::toString(c.recipe.weight),
      cfg::toString(c.recipe.output), c.recipe.inputScaleBlock,
      c.recipe.weightScaleBlock, c.recipe.requantBlock,
      cfg::toString(c.activation), clampAttr(context, c), c.fastMath);
}

ConfigAttr ConfigAttr::getChecked(function_ref<InFlightDiagnostic()> emitError,
                                  MLIRContext *context,
                                  const cfg::LayerConfig &c) {
  return Base::getChecked(
      emitError, context, c.hidden, c.intermediate, c.experts, c.topk, c.ranks,
      c.maxTokensPerRank, cfg::toString(c.chip),
      cfg::toString(c.recipe.activation), cfg::toString(c.recipe.weight),
      cfg::toString(c.recipe.output), c.recipe.inputScaleBlock,
      c.recipe.weightScaleBlock, c.recipe.requantBlock,
      cfg::toString(c.activation), clampAttr(context, c), c.fastMath);
}

//===----------------------------------------------------------------------===//
// VariantAttr / PlanAttr
//===----------------------------------------------------------------------===//

LogicalResult VariantAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t, int64_t, int64_t blockM,
                                  int64_t expertAlign, int64_t, int64_t,
                                  int64_t, int64_t, int64_t, StringRef mathMode,
                                  int64_t, int64_t, int64_t, int64_t, bool,
                                  int64_t kSplit, int64_t waveMBlocks,
                                  int64_t waveLag, StringRef schedule,
                                  bool l1PairStages, bool l2ExpertBlocks,
                                  bool l1Cluster) {
  if (l1Cluster && (blockM != 128 || expertAlign != 64))
    return emitError() << "l1_cluster needs block_m 128 and expert_align 64 "
                          "(the layout pairs an expert's m-blocks in the "
                          "half-block table), got block_m "
                       << blockM << ", expert_align " << expertAlign;
  if (l2ExpertBlocks && (blockM != 128 || expertAlign != 64))
    return emitError() << "l2_expert_blocks needs block_m 128 and "
                          "expert_align 64 (its blocks are the half-block "
                          "layout's 64-row units), got block_m "
                       << blockM << ", expert_align " << expertAlign;
  if (!schedule.empty() && !cfg::parseSchedule(schedule.str()))
    return emitError() << "unknown variant schedule \"" << schedule
                       << "\"; expected \"unfused\", \"split\" or "
                          "\"fused-gemm\" (or none: the plan's)";
  if (kSplit < 1)
    return emitError() << "k_split " << kSplit
                       << " must be at least 1 (1: no tile is split)";
  if (waveMBlocks < 0 || waveLag < 0)
    return emitError() << "wave_m_blocks " << waveMBlocks << " and wave_lag "
                       << waveLag
                       << " must not be negative (wave_m_blocks 0: every L1 "
                          "tile before every L2 tile)";
  if (expertAlign <= 0 || blockM % expertAlign != 0)
    return emitError() << "expert_align " << expertAlign
                       << " must be a positive divisor of block_m " << blockM;
  if (!cfg::parseMathMode(mathMode.str()))
    return emitError() << "unknown math mode \"" << mathMode
                       << "\"; expected \"cooperative-m\", \"cooperative-n\" "
                          "or \"single\"";
  return success();
}

LogicalResult PlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringRef chip, int64_t, StringRef schedule,
                               int64_t, int64_t, int64_t, int64_t, int64_t,
                               int64_t, int64_t, int64_t, ArrayAttr variants,
                               bool) {
  if (!cfg::parseChip(chip.str()))
    return emitError() << "unsupported chip \"" << chip
                       << "\"; expected \"sm_90a\" or \"sm_100a\"";
  if (!cfg::parseSchedule(schedule.str()))
    return emitError() << "unknown schedule \"" << schedule
                       << "\"; expected \"fused\", \"split\", \"unfused\" or "
                          "\"fused-gemm\"";
  if (variants.empty())
    return emitError() << "a plan needs at least one #megamoe.variant";
  for (Attribute v : variants)
    if (!isa<VariantAttr>(v))
      return emitError() << "plan variants must be #megamoe.variant, got " << v;
  return success();
}

cfg::Plan PlanAttr::getPlan() const {
  cfg::Plan p;
  p.chip = cfg::parseChip(getChip().str()).value_or(cfg::Chip::SM90a);
  p.numSMs = getNumSms();
  p.schedule =
      cfg::parseSchedule(getSchedule().str()).value_or(cfg::Schedule::Fused);
  p.roles.threads = getThreads();
  p.roles.dispatchWarpBegin = 0;
  p.roles.dispatchWarpEnd = getDispatchWarps();
  p.roles.tmaAWarp = getTmaAWarp();
  p.roles.tmaBWarp = getTmaBWarp();
  p.roles.mathWarpgroupBegin = 1;
  p.roles.mathWarpgroupEnd = 1 + getMathWarpgroups();
  p.entryRegisters = getEntryRegisters();
  p.requantBlock = getRequantBlock();
  p.poolTokens = getPoolTokens();
  p.l1WeightTiles = getL1WeightTiles();
  for (Attribute a : getVariants()) {
    auto va = cast<VariantAttr>(a);
    cfg::Variant v;
    v.minTokens = va.getMinTokens();
    v.maxTokens = va.getMaxTokens();
    v.blockM = va.getBlockM();
    v.expertAlign = va.getExpertAlign();
    v.l1BlockN = va.getL1BlockN();
    v.l2BlockN = va.getL2BlockN();
    v.blockK = va.getBlockK();
    v.stages = va.getStages();
    v.expertsPerWave = va.getExpertsPerWave();
    v.mathMode = cfg::parseMathMode(va.getMathMode().str())
                     .value_or(cfg::MathMode::Single);
    v.registers = {va.getProducerRegisters(), va.getMathRegisters(),
                   va.getIdleRegisters()};
    v.smemBytes = va.getSmemBytes();
    v.l1Pull = va.getL1Pull();
    v.kSplit = va.getKSplit();
    v.waveMBlocks = va.getWaveMBlocks();
    v.waveLag = va.getWaveLag();
    v.l1PairStages = va.getL1PairStages();
    v.l2ExpertBlocks = va.getL2ExpertBlocks();
    v.l1Cluster = va.getL1Cluster();
    if (!va.getSchedule().empty())
      v.schedule = cfg::parseSchedule(va.getSchedule().str());
    p.variants.push_back(v);
  }
  return p;
}

PlanAttr PlanAttr::get(MLIRContext *context, const cfg::Plan &p) {
  SmallVector<Attribute> variants;
  for (const cfg::Variant &v : p.variants)
    variants.push_back(VariantAttr::get(
        context, v.minTokens, v.maxTokens, v.blockM, v.expertAlign, v.l1BlockN,
        v.l2BlockN, v.blockK, v.stages, v.expertsPerWave,
        cfg::toString(v.mathMode), v.registers.producer, v.registers.math,
        v.registers.idle, v.smemBytes, v.l1Pull, v.kSplit, v.waveMBlocks,
        v.waveLag, v.schedule ? cfg::toString(*v.schedule) : "", v.l1PairStages,
        v.l2ExpertBlocks, v.l1Cluster));
  return Base::get(
      context, cfg::toString(p.chip), p.numSMs, cfg::toString(p.schedule),
      p.roles.threads, p.roles.dispatchWarpEnd - p.roles.dispatchWarpBegin,
      p.roles.tmaAWarp, p.roles.tmaBWarp,
      p.roles.mathWarpgroupEnd - p.roles.mathWarpgroupBegin, p.entryRegisters,
      p.requantBlock, p.poolTokens, ArrayAttr::get(context, variants),
      p.l1WeightTiles);
}

#define GET_ATTRDEF_CLASSES
#include "megamoe/Dialect/MegaMoE/IR/MegaMoEAttrs.cpp.inc"

void MegaMoEDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "megamoe/Dialect/MegaMoE/IR/MegaMoEAttrs.cpp.inc"
      >();
}
