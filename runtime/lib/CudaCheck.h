//===- CudaCheck.h - turning CUDA/NCCL failures into errors -----*- C++ -*-===//
#ifndef MEGAMOE_RUNTIME_LIB_CUDACHECK_H
#define MEGAMOE_RUNTIME_LIB_CUDACHECK_H

#include "megamoe/runtime/Error.h"
#include "megamoe/runtime/TimeoutReport.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>
#include <utility>

namespace megamoe::rt {

/// A CUDA failure's message, with the report of a timed-out wait where one
/// trapped (the trap is what the CUDA error reports).
[[noreturn]] inline void failCuda(std::string message) {
  std::string timeout = timeoutReport();
  if (!timeout.empty())
    message += "; " + timeout;
  fail(ErrorKind::Cuda, message);
}

inline void checkCu(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  failCuda(std::string(what) +
           " failed: " + (name ? name : "CUDA error " + std::to_string(r)) +
           (text ? std::string(" (") + text + ")" : ""));
}

inline void checkCudart(cudaError_t r, const char *what) {
  if (r == cudaSuccess)
    return;
  failCuda(std::string(what) + " failed: " + cudaGetErrorName(r) + " (" +
           cudaGetErrorString(r) + ")");
}

inline void checkNccl(ncclResult_t r, const char *what) {
  if (r == ncclSuccess || r == ncclInProgress)
    return;
  fail(ErrorKind::Nccl,
       std::string(what) + " failed: " + ncclGetErrorString(r));
}

/// Makes the primary context of `device` current for the scope (the context
/// the CUDA runtime, PyTorch and NCCL use), restoring the caller's after.
class ScopedDevice {
public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  CUcontext context() const { return ctx_; }

private:
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
};

/// `device`'s compute capability (major, minor).
std::pair<int, int> deviceComputeCapability(int device);

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_LIB_CUDACHECK_H
