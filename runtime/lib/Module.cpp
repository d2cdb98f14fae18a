//===- Module.cpp - loaded cubins and kernel launch -----------------------===//
#include "megamoe/runtime/Module.h"
#include "CudaCheck.h"
#include "TmaEncode.h"
#include "megamoe/Conversion/WarpSpecToNVVM/TimeoutRecord.h"
#include "megamoe/runtime/ChipCheck.h"
#include "megamoe/runtime/TimeoutReport.h"

#include <cuda.h>

#include <array>
#include <vector>

namespace megamoe::rt {

namespace {
/// The launch of `spec` on `grid`: its block and dynamic SMEM, and with a
/// manifest cluster the cluster-dimension attribute, kept in `cluster`
/// (which must outlive the config).
CUlaunchConfig launchConfig(const KernelSpec &spec,
                            const std::array<uint32_t, 3> &grid,
                            CUstream stream, CUlaunchAttribute (&attrs)[2]) {
  CUlaunchConfig config = {};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = spec.block[0];
  config.blockDimY = spec.block[1];
  config.blockDimZ = spec.block[2];
  config.sharedMemBytes = spec.dynamicSmemBytes;
  config.hStream = stream;
  config.attrs = attrs;
  config.numAttrs = 0;
  if (spec.cluster[0] * spec.cluster[1] * spec.cluster[2] > 1) {
    CUlaunchAttribute &cluster = attrs[config.numAttrs++];
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = spec.cluster[0];
    cluster.value.clusterDim.y = spec.cluster[1];
    cluster.value.clusterDim.z = spec.cluster[2];
  }
  // Programmatic dependent launch: only for a kernel that begins with
  // griddepcontrol.wait (KernelSpec::programmaticLaunch).
  if (spec.programmaticLaunch) {
    CUlaunchAttribute &pdl = attrs[config.numAttrs++];
    pdl.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    pdl.value.programmaticStreamSerializationAllowed = 1;
  }
  if (config.numAttrs == 0)
    config.attrs = nullptr;
  return config;
}
} // namespace

struct Module::Impl {
  CUmodule module = nullptr;
  std::vector<CUfunction> functions; // parallel to manifest_.kernels
  CUcontext context = nullptr;
  CUdevice dev = 0;
};

void checkChipMatchesDevice(const std::string &chip, int device) {
  auto [major, minor] = deviceComputeCapability(device);
  std::string why = chipMismatch(chip, major, minor);
  if (!why.empty())
    fail(ErrorKind::Unsupported, why + " (device " + std::to_string(device) +
                                     ")");
}

Module::Module(Manifest manifest, int device)
    : manifest_(std::move(manifest)), device_(device),
      impl_(std::make_unique<Impl>()) {}

Module::~Module() {
  if (!impl_ || !impl_->context)
    return;
  try { // A destructor must not throw; a failing unload leaks the module.
    if (impl_->module) {
      ScopedDevice scope(device_);
      cuModuleUnload(impl_->module);
    }
  } catch (const Error &) {
  }
  cuDevicePrimaryCtxRelease(impl_->dev);
}

std::unique_ptr<Module> Module::loadFile(const std::string &manifestPath,
                                         int device) {
  Manifest m = loadManifestFile(manifestPath);
  std::string cubin = readFileBytes(m.cubinPath());
  return loadMemory(std::move(m), cubin.data(), cubin.size(), device);
}

std::unique_ptr<Module> Module::loadMemory(Manifest manifest, const void *cubin,
                                           size_t size, int device) {
  require(cubin && size > 0, "load: the cubin is empty");
  std::unique_ptr<Module> mod(new Module(std::move(manifest), device));
  mod->load(cubin, size);
  return mod;
}

void Module::load(const void *cubin, size_t size) {
  checkChipMatchesDevice(manifest_.chip, device_);
  ScopedDevice scope(device_);
  checkCu(cuDeviceGet(&impl_->dev, device_), "cuDeviceGet");
  // The module lives in the primary context: keep it alive as long as the
  // module (the caller may hold no other reference to it).
  checkCu(cuDevicePrimaryCtxRetain(&impl_->context, impl_->dev),
          "cuDevicePrimaryCtxRetain");
  checkCu(cuDeviceGetAttribute(
              &numSms_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, impl_->dev),
          "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
  int smemOptin = 0;
  checkCu(cuDeviceGetAttribute(
              &smemOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              impl_->dev),
          "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
  // cuModuleLoadData wants the image in memory it may read past the end of a
  // cubin's declared size; copy into an owned, padded buffer.
  std::vector<char> image((const char *)cubin, (const char *)cubin + size);
  image.resize(size + 16, 0);
  checkCu(cuModuleLoadData(&impl_->module, image.data()),
          ("cuModuleLoadData(" + manifest_.cubin + ")").c_str());
  pointTimeoutRecord();
  for (const KernelSpec &k : manifest_.kernels) {
    CUfunction f = nullptr;
    CUresult r = cuModuleGetFunction(&f, impl_->module, k.name.c_str());
    if (r == CUDA_ERROR_NOT_FOUND)
      fail(ErrorKind::Manifest, "the cubin " + manifest_.cubin +
                                    " has no kernel named '" + k.name + "'");
    checkCu(r, "cuModuleGetFunction");
    if ((int)k.dynamicSmemBytes > smemOptin)
      fail(ErrorKind::Unsupported,
           "kernel '" + k.name + "' needs " +
               std::to_string(k.dynamicSmemBytes) +
               " bytes of dynamic shared memory; the device allows " +
               std::to_string(smemOptin));
    checkCu(cuFuncSetAttribute(f,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               (int)k.dynamicSmemBytes),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    int ctas = (int)(k.cluster[0] * k.cluster[1] * k.cluster[2]);
    if (ctas > 1) {
      // A cluster the device cannot co-schedule would fail at every launch
      // with a bare CUDA error: say why once, at load.
      int active = 0;
      if (ctas <= 8) {
        // One cluster's grid: the question is whether one fits at all.
        CUlaunchAttribute attr[2] = {};
        CUlaunchConfig config = launchConfig(
            k, {k.cluster[0], k.cluster[1], k.cluster[2]}, nullptr, attr);
        CUresult r = cuOccupancyMaxActiveClusters(&active, f, &config);
        if (r != CUDA_SUCCESS)
          active = 0;
      }
      std::string why = clusterUnsupported(k.name, ctas, active);
      if (!why.empty())
        fail(ErrorKind::Unsupported, why);
    }
    impl_->functions.push_back(f);
  }
}

void Module::pointTimeoutRecord() {
  // A cubin with a timed wait has the record global (TimeoutRecord.h); its
  // waits write their report where it points, so point it at the process's
  // record before any launch.
  CUdeviceptr slot = 0;
  size_t bytes = 0;
  CUresult r = cuModuleGetGlobal(&slot, &bytes, impl_->module,
                                 megamoe::timeout::kRecordSymbol);
  if (r == CUDA_ERROR_NOT_FOUND)
    return;
  checkCu(r, "cuModuleGetGlobal(megamoe_timeout_record)");
  if (bytes != sizeof(uint64_t))
    fail(ErrorKind::Manifest, "the cubin " + manifest_.cubin + "'s " +
                                  megamoe::timeout::kRecordSymbol + " is " +
                                  std::to_string(bytes) + " bytes, not 8");
  uint64_t address = timeoutRecordAddress();
  checkCu(cuMemcpyHtoD(slot, &address, sizeof(address)),
          "cuMemcpyHtoD(megamoe_timeout_record)");
}

void Module::launch(const std::string &kernel, const ArgMap &args,
                    const SymbolTable &runtimeSymbols, CUstream stream) const {
  size_t index = 0;
  while (index < manifest_.kernels.size() &&
         manifest_.kernels[index].name != kernel)
    ++index;
  if (index == manifest_.kernels.size())
    fail(ErrorKind::InvalidArgument,
         "launch: the manifest has no kernel named '" + kernel + "'");
  const KernelSpec &spec = manifest_.kernels[index];
  BoundLaunch bound =
      bindLaunch(manifest_, spec, args, runtimeSymbols, numSms_);

  // Parameter storage: CUtensorMap is 64-byte aligned and passed by value
  // (the kernels take it as a __grid_constant__ parameter).
  std::vector<CUtensorMap> maps(bound.params.size());
  std::vector<uint64_t> scalars(bound.params.size());
  std::vector<void *> pointers(bound.params.size());
  for (size_t i = 0; i < bound.params.size(); ++i) {
    const BoundParam &p = bound.params[i];
    if (p.kind == ParamKind::TmaDescriptor) {
      maps[i] = encodeTma(p.tma, spec.params[i].tma);
      pointers[i] = &maps[i];
    } else {
      // Little-endian: the low 4 bytes of the slot are the 32-bit value.
      scalars[i] = p.bits;
      pointers[i] = &scalars[i];
    }
  }

  ScopedDevice scope(device_);
  launchPrepared(index, bound.grid, pointers.data(), stream);
}

void Module::launchPrepared(size_t index, const std::array<uint32_t, 3> &grid,
                            void **params, CUstream stream) const {
  require(index < impl_->functions.size(),
          "launch: kernel index " + std::to_string(index) + " out of range");
  const KernelSpec &spec = manifest_.kernels[index];
  CUlaunchAttribute attr[2] = {};
  CUlaunchConfig config = launchConfig(spec, grid, stream, attr);
  CUresult r =
      cuLaunchKernelEx(&config, impl_->functions[index], params, nullptr);
  if (r != CUDA_SUCCESS)
    checkCu(r, ("cuLaunchKernelEx(" + spec.name + ")").c_str());
}

} // namespace megamoe::rt
