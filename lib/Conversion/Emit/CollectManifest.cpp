//===- CollectManifest.cpp - kernels' launch contract into an attribute ---===//
//
// gpu-module-to-binary replaces each gpu.module by a gpu.binary and drops its
// functions, so what the runtime must know about each kernel (docs/Manifest.md)
// is gathered first, from the llvm.func kernels and the megamoe.* attributes
// the lowering left on them.
//
//===----------------------------------------------------------------------===//
#include "ManifestAttrs.h"
#include "megamoe/Conversion/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOECOLLECTMANIFEST
#include "megamoe/Conversion/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;
namespace mf = mlir::megamoe::manifest;

namespace {

/// [x, y, z] from a dense i32 array attribute of 1 to 3 entries, padded with 1.
Attribute shape3(Builder &b, DenseI32ArrayAttr dims) {
  SmallVector<int64_t, 3> v{1, 1, 1};
  if (dims)
    for (auto [i, d] : llvm::enumerate(dims.asArrayRef()))
      if (i < 3)
        v[i] = d;
  return b.getI64ArrayAttr(v);
}

/// Whether `attr` is a launch-shape entry of the form docs/Manifest.md
/// ("Launch shapes") gives: a positive integer, or a dictionary with the key
/// `key` (= `value` when `value` is given, else any string) and optionally
/// the positive integer `factor`.
bool isLaunchDim(Attribute attr, StringRef key, std::optional<StringRef> value,
                 StringRef factor) {
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getValue().isStrictlyPositive();
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return false;
  for (NamedAttribute entry : dict) {
    if (entry.getName() == key) {
      auto s = dyn_cast<StringAttr>(entry.getValue());
      if (!s || (value && s.getValue() != *value))
        return false;
    } else if (entry.getName() == factor) {
      auto i = dyn_cast<IntegerAttr>(entry.getValue());
      if (!i || !i.getValue().isStrictlyPositive())
        return false;
    } else {
      return false;
    }
  }
  return (bool)dict.get(key);
}

/// Checks a kernel's grid and TMA extents before they become the manifest,
/// so that a builder's slip is a compile error rather than a runtime one.
LogicalResult checkLaunchShapes(LLVM::LLVMFuncOp func, Attribute grid,
                                ArrayRef<Attribute> tmas) {
  auto dims = dyn_cast<ArrayAttr>(grid);
  if (!dims || dims.size() != 3 || !llvm::all_of(dims, [](Attribute d) {
        return isLaunchDim(d, mf::kGridCtas, StringRef(mf::kNumSms),
                           mf::kGridMax);
      }))
    return func.emitError("kernel '")
           << func.getSymName() << "' has grid " << grid
           << "; each of its 3 entries must be a positive integer or {"
           << mf::kGridCtas << " = \"" << mf::kNumSms << "\"} with an "
           << "optional " << mf::kGridMax << " = N (docs/Manifest.md)";
  for (Attribute tma : tmas) {
    auto spec = cast<DictionaryAttr>(tma);
    for (StringRef field : {"global_shape", "global_strides_bytes"}) {
      auto entries = spec.getAs<ArrayAttr>(field);
      if (!entries)
        continue;
      for (Attribute d : entries)
        if (!isLaunchDim(d, mf::kDimSymbol, std::nullopt, mf::kDimTimes))
          return func.emitError("kernel '")
                 << func.getSymName() << "' TMA descriptor " << spec.get("name")
                 << " has " << field << " entry " << d
                 << "; it must be a positive integer or {" << mf::kDimSymbol
                 << " = NAME} with an optional " << mf::kDimTimes
                 << " = N (docs/Manifest.md)";
    }
  }
  return success();
}

/// The manifest kind of an argument from its LLVM type and attributes, or
/// an empty string when the type has no manifest kind.
std::string paramKind(LLVM::LLVMFuncOp func, unsigned i) {
  if (auto kind = func.getArgAttrOfType<StringAttr>(i, mf::kParamKind))
    return kind.str();
  if (func.getArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName()))
    return "tma_descriptor";
  Type type = func.getArgumentTypes()[i];
  if (isa<LLVM::LLVMPointerType>(type))
    return "pointer";
  if (type.isInteger(32))
    return "i32";
  if (type.isInteger(64))
    return "i64";
  if (type.isF32())
    return "f32";
  return "";
}

/// The manifest entry of one kernel; removes the megamoe.* attributes read.
FailureOr<DictionaryAttr> collectKernel(LLVM::LLVMFuncOp func) {
  Builder b(func.getContext());
  NamedAttrList entry;
  entry.set("name", b.getStringAttr(func.getSymName()));

  auto reqntid = func->getAttrOfType<DenseI32ArrayAttr>(
      NVVM::NVVMDialect::getReqntidAttrName());
  auto maxntid = func->getAttrOfType<DenseI32ArrayAttr>(
      NVVM::NVVMDialect::getMaxntidAttrName());
  if (!reqntid && !maxntid)
    return func.emitError("kernel '")
           << func.getSymName()
           << "' has neither nvvm.reqntid nor nvvm.maxntid; the manifest needs "
              "its block shape";
  entry.set("block", shape3(b, reqntid ? reqntid : maxntid));

  Attribute grid = func->removeAttr(mf::kGrid);
  if (!grid) // one CTA per SM, the default of a persistent kernel
    grid = b.getArrayAttr({b.getDictionaryAttr(b.getNamedAttr(
                               mf::kGridCtas, b.getStringAttr(mf::kNumSms))),
                           b.getI64IntegerAttr(1), b.getI64IntegerAttr(1)});
  entry.set("grid", grid);
  entry.set("cluster",
            shape3(b, func->getAttrOfType<DenseI32ArrayAttr>(
                          NVVM::NVVMDialect::getClusterDimAttrName())));
  Attribute smem = func->removeAttr(mf::kDynamicSmem);
  entry.set("dynamic_smem_bytes", smem ? smem : b.getI64IntegerAttr(0));
  auto maxnreg =
      func->getAttrOfType<IntegerAttr>(NVVM::NVVMDialect::getMaxnregAttrName());
  entry.set("max_registers",
            b.getI64IntegerAttr(maxnreg ? maxnreg.getInt() : 0));
  // Only a kernel that waits for its predecessor may be launched early.
  if (func->removeAttr(mf::kProgrammaticLaunch))
    entry.set("programmatic_launch", b.getBoolAttr(true));

  SmallVector<Attribute> params, tmas;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    std::string kind = paramKind(func, i);
    if (kind.empty())
      return func.emitError("kernel '")
             << func.getSymName() << "' parameter " << i << " has type "
             << func.getArgumentTypes()[i]
             << ", which the manifest cannot describe (pointer, i32, i64, "
                "f32 or a TMA descriptor)";
    std::string name = "arg" + std::to_string(i);
    if (auto n = func.getArgAttrOfType<StringAttr>(i, mf::kParamName))
      name = n.str();
    NamedAttrList param;
    param.set("name", b.getStringAttr(name));
    param.set("kind", b.getStringAttr(kind));
    if (kind == "tma_descriptor") {
      auto spec = func.getArgAttrOfType<DictionaryAttr>(i, mf::kTma);
      if (!spec)
        return func.emitError("kernel '")
               << func.getSymName() << "' parameter " << i
               << " is a TMA descriptor without a megamoe.tma spec (dtype, "
                  "rank, global shape/strides, box, swizzle)";
      NamedAttrList tma(spec);
      tma.set("name", b.getStringAttr(name));
      tmas.push_back(tma.getDictionary(b.getContext()));
      param.set("tma", b.getStringAttr(name));
    }
    if (auto bind = func.getArgAttrOfType<StringAttr>(i, mf::kParamBind))
      param.set("bind", bind);
    params.push_back(param.getDictionary(b.getContext()));
    func.removeArgAttr(i, mf::kParamBind);
    func.removeArgAttr(i, mf::kParamName);
    func.removeArgAttr(i, mf::kParamKind);
    func.removeArgAttr(i, mf::kTma);
  }
  if (failed(checkLaunchShapes(func, grid, tmas)))
    return failure();
  entry.set("params", b.getArrayAttr(params));
  entry.set("tma_descriptors", b.getArrayAttr(tmas));
  return entry.getDictionary(b.getContext());
}

struct CollectManifestPass
    : mlir::megamoe::impl::MegaMoECollectManifestBase<CollectManifestPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    NamedAttrList manifests;
    if (auto existing = module->getAttrOfType<DictionaryAttr>(mf::kManifests))
      manifests.append(existing.getValue());
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      NamedAttrList entry;
      if (ArrayAttr targets = gpuModule.getTargetsAttr())
        for (Attribute t : targets)
          if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(t))
            entry.set("chip", b.getStringAttr(nvvm.getChip()));
      Attribute symbols = gpuModule->removeAttr(mf::kSymbols);
      entry.set("symbols", symbols ? symbols : b.getDictionaryAttr({}));
      Attribute runtime = gpuModule->removeAttr(mf::kRuntimeSymbols);
      entry.set("runtime_symbols", runtime ? runtime : b.getArrayAttr({}));
      if (Attribute schedule = gpuModule->removeAttr(mf::kSchedule))
        entry.set("schedule", schedule);
      if (Attribute variants = gpuModule->removeAttr(mf::kVariants))
        entry.set("variants", variants);
      if (Attribute layer = gpuModule->removeAttr(mf::kLayer))
        entry.set("layer", layer);
      if (Attribute profile = gpuModule->removeAttr(mf::kProfile))
        entry.set("profile", profile);
      // The layer's config, plan and buffer layout (planToJson's text): the
      // runtime reads the plan back instead of re-deriving any of it.
      if (Attribute plan = gpuModule->removeAttr(mf::kPlan))
        entry.set("plan_json", plan);
      SmallVector<Attribute> kernels;
      for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
        if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
          continue;
        FailureOr<DictionaryAttr> kernel = collectKernel(func);
        if (failed(kernel))
          return signalPassFailure();
        kernels.push_back(*kernel);
      }
      entry.set("kernels", b.getArrayAttr(kernels));
      manifests.set(gpuModule.getName(), entry.getDictionary(&getContext()));
    }
    module->setAttr(mf::kManifests, manifests.getDictionary(&getContext()));
  }
};

} // namespace
