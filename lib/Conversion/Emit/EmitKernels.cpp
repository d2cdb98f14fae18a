//===- EmitKernels.cpp - write cubin, PTX, manifest and header ------------===//
#include "ManifestAttrs.h"
#include "megamoe/Conversion/EmbedHeader.h"
#include "megamoe/Conversion/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOEEMITKERNELS
#include "megamoe/Conversion/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;
namespace mf = mlir::megamoe::manifest;

namespace {

LogicalResult writeFile(Operation *anchor, StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return anchor->emitError("cannot write '") << path << "': " << ec.message();
  os << data;
  return success();
}

/// The manifest JSON (docs/Manifest.md, version 2) of one gpu.binary.
llvm::Expected<std::string> manifestJson(StringRef name, DictionaryAttr entry) {
  llvm::json::Object m;
  m["format"] = "megamoe-manifest";
  m["version"] = 2; // docs/Manifest.md: 2 = structured launch shapes
  m["chip"] = mf::toJSON(entry.get("chip"));
  m["cubin"] = (name + ".cubin").str();
  m["ptx"] = (name + ".ptx").str();
  m["symbols"] = mf::toJSON(entry.get("symbols"));
  m["runtime_symbols"] = mf::toJSON(entry.get("runtime_symbols"));
  m["kernels"] = mf::toJSON(entry.get("kernels"));
  if (Attribute layer = entry.get("layer"))
    m["layer"] = mf::toJSON(layer);
  if (Attribute profile = entry.get("profile")) // docs/Profile.md
    m["profile"] = mf::toJSON(profile);
  if (Attribute schedule = entry.get("schedule"))
    m["schedule"] = mf::toJSON(schedule);
  if (Attribute variants = entry.get("variants"))
    m["variants"] = mf::toJSON(variants);
  // A layer's config, plan and buffer layout arrive as planToJson's text;
  // they become the manifest's "config", "plan" and "buffer_layout".
  m["buffer_layout"] = nullptr;
  if (auto text = entry.getAs<StringAttr>("plan_json")) {
    llvm::Expected<llvm::json::Value> parsed =
        llvm::json::parse(text.getValue());
    if (!parsed)
      return parsed.takeError();
    llvm::json::Object *doc = parsed->getAsObject();
    if (!doc)
      return llvm::createStringError("the layer plan is not a JSON object");
    for (const char *key : {"config", "plan", "buffer_layout"})
      if (llvm::json::Value *v = doc->get(key))
        m[key] = std::move(*v);
  }
  return llvm::formatv("{0:2}", llvm::json::Value(std::move(m))).str() + "\n";
}

struct EmitKernelsPass
    : mlir::megamoe::impl::MegaMoEEmitKernelsBase<EmitKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (outputDir.empty()) {
      module.emitError("megamoe-emit-kernels needs output-dir");
      return signalPassFailure();
    }
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir)) {
      module.emitError("cannot create '") << outputDir << "': " << ec.message();
      return signalPassFailure();
    }
    auto manifests = module->getAttrOfType<DictionaryAttr>(mf::kManifests);
    for (auto binary : module.getOps<gpu::BinaryOp>()) {
      StringRef name = binary.getName();
      gpu::ObjectAttr cubinObject;
      for (Attribute a : binary.getObjectsAttr())
        if (cast<gpu::ObjectAttr>(a).getFormat() ==
            gpu::CompilationTarget::Binary)
          cubinObject = cast<gpu::ObjectAttr>(a);
      if (!cubinObject) {
        binary.emitError("gpu.binary @")
            << name << " holds no cubin; run megamoe-assemble-ptx first";
        return signalPassFailure();
      }
      auto entry = manifests ? manifests.getAs<DictionaryAttr>(name) : nullptr;
      if (!entry) {
        binary.emitError("no manifest recorded for @")
            << name
            << "; run megamoe-collect-manifest before gpu-module-to-binary";
        return signalPassFailure();
      }
      auto file = [&](StringRef ext) {
        SmallString<256> p(outputDir);
        llvm::sys::path::append(p, name + ext);
        return p.str().str();
      };
      std::string cubin = cubinObject.getObject().getValue().str();
      llvm::Expected<std::string> manifest = manifestJson(name, entry);
      if (!manifest) {
        binary.emitError("the plan recorded for @")
            << name
            << " is not valid JSON: " << llvm::toString(manifest.takeError());
        return signalPassFailure();
      }
      std::string json = std::move(*manifest);
      StringRef ptx;
      if (DictionaryAttr props = cubinObject.getProperties())
        if (auto p = props.getAs<StringAttr>("ptx"))
          ptx = p.getValue();
      if (failed(writeFile(binary, file(".cubin"), cubin)) ||
          failed(writeFile(binary, file(".ptx"), ptx)) ||
          failed(writeFile(binary, file(".json"), json)) ||
          failed(
              writeFile(binary, file(".h"),
                        ::megamoe::makeEmbedHeader(name.str(), cubin, json))))
        return signalPassFailure();
    }
  }
};

} // namespace
