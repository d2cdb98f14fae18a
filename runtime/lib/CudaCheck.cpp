//===- CudaCheck.cpp - device and context helpers -------------------------===//
#include "CudaCheck.h"

namespace megamoe::rt {

ScopedDevice::ScopedDevice(int device) {
  CUresult r = cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE)
    fail(ErrorKind::Unsupported, "no CUDA device is visible");
  checkCu(r, "cuInit");
  int count = 0;
  checkCu(cuDeviceGetCount(&count), "cuDeviceGetCount");
  require(device >= 0 && device < count,
          "device " + std::to_string(device) + " does not exist (" +
              std::to_string(count) + " visible)");
  checkCu(cuDeviceGet(&dev_, device), "cuDeviceGet");
  checkCu(cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
  checkCu(cuCtxPushCurrent(ctx_), "cuCtxPushCurrent");
}

ScopedDevice::~ScopedDevice() {
  CUcontext popped;
  cuCtxPopCurrent(&popped);
  cuDevicePrimaryCtxRelease(dev_);
}

std::pair<int, int> deviceComputeCapability(int device) {
  ScopedDevice scope(device);
  CUdevice dev;
  checkCu(cuDeviceGet(&dev, device), "cuDeviceGet");
  int major = 0, minor = 0;
  checkCu(cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
          "cuDeviceGetAttribute");
  checkCu(cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
          "cuDeviceGetAttribute");
  return {major, minor};
}

} // namespace megamoe::rt
