//===- AssemblePTX.cpp - ptxas -v on gpu.binary PTX objects ---------------===//
//
// gpu-module-to-binary can call ptxas itself, but it does not show ptxas's
// resource report. The manifest needs registers, spills and shared memory,
// and spills must be visible, so this pass assembles the PTX with -v.
//
//===----------------------------------------------------------------------===//
#include "ManifestAttrs.h"
#include "megamoe/Conversion/Passes.h"
#include "megamoe/Conversion/PtxasInfo.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace mlir::megamoe {
#define GEN_PASS_DEF_MEGAMOEASSEMBLEPTX
#include "megamoe/Conversion/Passes.h.inc"
} // namespace mlir::megamoe

using namespace mlir;
namespace mf = mlir::megamoe::manifest;

namespace {

/// Removes a set of temporary files when it goes out of scope.
struct TempFiles {
  SmallVector<std::string> paths;
  ~TempFiles() {
    for (const std::string &p : paths)
      llvm::sys::fs::remove(p);
  }
  FailureOr<std::string> create(StringRef suffix) {
    SmallString<128> path;
    if (llvm::sys::fs::createTemporaryFile("megamoe", suffix, path))
      return failure();
    paths.push_back(path.str().str());
    return paths.back();
  }
};

std::string ptxasPath(StringRef toolkit) {
  SmallString<256> root(toolkit);
  if (root.empty())
    if (const char *env = std::getenv("CUDA_HOME"))
      root = env;
  if (root.empty())
    root = "/usr/local/cuda";
  llvm::sys::path::append(root, "bin", "ptxas");
  return root.str().str();
}

struct Assembled {
  std::string cubin;
  std::string log;
};

/// Runs `ptxas -v -arch=<chip>` on `ptx`; on failure reports ptxas's output.
FailureOr<Assembled> runPtxas(Operation *anchor, const std::string &ptxas,
                              StringRef chip, StringRef ptx,
                              StringRef extraOptions) {
  TempFiles temps;
  FailureOr<std::string> in = temps.create("ptx"), out = temps.create("cubin"),
                         log = temps.create("log");
  if (failed(in) || failed(out) || failed(log))
    return anchor->emitError("cannot create temporary files for ptxas");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(*in, ec);
    if (ec)
      return anchor->emitError("cannot write ") << *in << ": " << ec.message();
    os << ptx;
  }
  if (!llvm::sys::fs::can_execute(ptxas))
    return anchor->emitError("ptxas not found at '")
           << ptxas << "'; set the toolkit option or CUDA_HOME";
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args{ptxas, "-v", arch};
  SmallVector<StringRef> extra;
  StringRef(extraOptions).split(extra, ' ', -1, /*KeepEmpty=*/false);
  args.append(extra.begin(), extra.end());
  args.append({*in, "-o", *out});
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(*log),
                                          StringRef(*log)};
  std::string errMsg;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &errMsg);
  auto logText = llvm::MemoryBuffer::getFile(*log);
  Assembled result;
  if (logText)
    result.log = (*logText)->getBuffer().str();
  if (rc != 0)
    return anchor->emitError("ptxas failed (exit ")
           << rc << ") " << errMsg << "\n"
           << result.log;
  auto cubin = llvm::MemoryBuffer::getFile(*out, /*IsText=*/false);
  if (!cubin)
    return anchor->emitError("ptxas produced no cubin at ") << *out;
  result.cubin = (*cubin)->getBuffer().str();
  return result;
}

DictionaryAttr resourcesAttr(Builder &b,
                             const ::megamoe::PtxasFunctionInfo &f) {
  return b.getDictionaryAttr({
      b.getNamedAttr("registers", b.getI64IntegerAttr(f.registers)),
      b.getNamedAttr("spill_stores_bytes",
                     b.getI64IntegerAttr(f.spillStoresBytes)),
      b.getNamedAttr("spill_loads_bytes",
                     b.getI64IntegerAttr(f.spillLoadsBytes)),
      b.getNamedAttr("static_smem_bytes",
                     b.getI64IntegerAttr(f.staticSmemBytes)),
      b.getNamedAttr("stack_bytes", b.getI64IntegerAttr(f.stackFrameBytes)),
  });
}

/// Adds ptxas's resources to each kernel of `entry` (one gpu.binary's
/// manifest); a kernel ptxas did not report is an error.
FailureOr<DictionaryAttr>
addResources(gpu::BinaryOp binary, DictionaryAttr entry,
             ArrayRef<::megamoe::PtxasFunctionInfo> infos) {
  Builder b(binary.getContext());
  NamedAttrList updated(entry);
  auto kernels = entry.getAs<ArrayAttr>("kernels");
  SmallVector<Attribute> newKernels;
  for (Attribute k : kernels ? kernels.getValue() : ArrayRef<Attribute>{}) {
    auto kernel = cast<DictionaryAttr>(k);
    StringRef name = kernel.getAs<StringAttr>("name").getValue();
    const ::megamoe::PtxasFunctionInfo *info = nullptr;
    for (const auto &f : infos)
      if (f.name == name)
        info = &f;
    if (!info)
      return binary.emitError("ptxas reported nothing for kernel '")
             << name << "'";
    NamedAttrList k2(kernel);
    k2.set("resources", resourcesAttr(b, *info));
    newKernels.push_back(k2.getDictionary(b.getContext()));
  }
  updated.set("kernels", b.getArrayAttr(newKernels));
  return updated.getDictionary(b.getContext());
}

struct AssemblePTXPass
    : mlir::megamoe::impl::MegaMoEAssemblePTXBase<AssemblePTXPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    std::string ptxas = ptxasPath(toolkit);
    NamedAttrList manifests;
    if (auto existing = module->getAttrOfType<DictionaryAttr>(mf::kManifests))
      manifests.append(existing.getValue());
    for (auto binary : module.getOps<gpu::BinaryOp>()) {
      SmallVector<Attribute> objects;
      for (Attribute a : binary.getObjectsAttr()) {
        auto object = cast<gpu::ObjectAttr>(a);
        auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
        if (!target || object.getFormat() != gpu::CompilationTarget::Assembly) {
          objects.push_back(object);
          continue;
        }
        StringRef ptx = object.getObject().getValue();
        FailureOr<Assembled> assembled =
            runPtxas(binary, ptxas, target.getChip(), ptx, ptxasOptions);
        if (failed(assembled))
          return signalPassFailure();
        // ptxas warnings (e.g. C7508: setmaxnreg ignored) matter for
        // performance; they are passed on.
        for (StringRef line : llvm::split(assembled->log, '\n'))
          if (line.contains("ptxas warning"))
            mlir::emitWarning(binary.getLoc()) << line.trim();
        std::vector<::megamoe::PtxasFunctionInfo> infos =
            ::megamoe::parsePtxasVerbose(assembled->log);
        for (const auto &f : infos)
          if (f.spillStoresBytes > 0 || f.spillLoadsBytes > 0)
            mlir::emitWarning(binary.getLoc(), "kernel '")
                << f.name << "' spills registers: " << f.spillStoresBytes
                << " bytes spill stores, " << f.spillLoadsBytes
                << " bytes spill loads (ptxas: " << f.usedLine << ")";
        if (auto entry = manifests.get(binary.getName())) {
          FailureOr<DictionaryAttr> updated =
              addResources(binary, cast<DictionaryAttr>(entry), infos);
          if (failed(updated))
            return signalPassFailure();
          manifests.set(binary.getName(), *updated);
        }
        NamedAttrList props;
        if (DictionaryAttr p = object.getProperties())
          props.append(p.getValue());
        props.set("ptx", b.getStringAttr(ptx));
        objects.push_back(gpu::ObjectAttr::get(
            &getContext(), target, gpu::CompilationTarget::Binary,
            b.getStringAttr(assembled->cubin),
            props.getDictionary(&getContext()), object.getKernels()));
      }
      binary.setObjectsAttr(b.getArrayAttr(objects));
    }
    if (!manifests.empty())
      module->setAttr(mf::kManifests, manifests.getDictionary(&getContext()));
  }
};

} // namespace
