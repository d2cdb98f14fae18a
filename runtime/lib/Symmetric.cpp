//===- Symmetric.cpp - symmetric memory across the ranks ------------------===//
#include "megamoe/runtime/Symmetric.h"
#include "CudaCheck.h"
#include "DeviceKernels.h"

#include <chrono>
#include <cstring>

namespace megamoe::rt {
namespace {

/// Makes `device` the CUDA runtime's current device for the scope (NCCL and
/// the nvcc-built kernels use the runtime API), restoring the caller's.
class ScopedRuntimeDevice {
public:
  explicit ScopedRuntimeDevice(int device) {
    checkCudart(cudaGetDevice(&saved_), "cudaGetDevice");
    checkCudart(cudaSetDevice(device), "cudaSetDevice");
  }
  ~ScopedRuntimeDevice() { cudaSetDevice(saved_); }

private:
  int saved_ = 0;
};

size_t roundUp(size_t x, size_t a) { return (x + a - 1) / a * a; }

} // namespace

std::unique_ptr<SymmetricMemory>
SymmetricMemory::createNccl(const void *uniqueId, int nranks, int rank,
                            int device, size_t usableBytes) {
  require(uniqueId != nullptr, "symmetric memory: the NCCL unique id is null");
  require(nranks >= 1 && nranks <= kMaxRanks,
          "symmetric memory: nranks = " + std::to_string(nranks) +
              " must be in [1, " + std::to_string(kMaxRanks) + "]");
  require(rank >= 0 && rank < nranks,
          "symmetric memory: rank = " + std::to_string(rank) +
              " must be in [0, nranks = " + std::to_string(nranks) + ")");
  ScopedRuntimeDevice scope(device);
  ncclUniqueId id;
  std::memcpy(&id, uniqueId, sizeof id);
  ncclComm_t comm = nullptr;
  checkNccl(ncclCommInitRank(&comm, nranks, id, rank), "ncclCommInitRank");
  try {
    auto mem = createWithComm(comm, device, usableBytes);
    mem->ownsComm_ = true;
    return mem;
  } catch (...) {
    ncclCommDestroy(comm);
    throw;
  }
}

std::unique_ptr<SymmetricMemory>
SymmetricMemory::createWithComm(ncclComm_t comm, int device,
                                size_t usableBytes) {
  require(comm != nullptr, "symmetric memory: the NCCL communicator is null");
  require(usableBytes > 0, "symmetric memory: the buffer size is 0");
  ScopedRuntimeDevice scope(device);
  int nranks = 0, rank = 0, commDevice = -1;
  checkNccl(ncclCommCount(comm, &nranks), "ncclCommCount");
  checkNccl(ncclCommUserRank(comm, &rank), "ncclCommUserRank");
  checkNccl(ncclCommCuDevice(comm, &commDevice), "ncclCommCuDevice");
  require(commDevice == device,
          "symmetric memory: the communicator is on device " +
              std::to_string(commDevice) + ", not device " +
              std::to_string(device));
  require(nranks <= kMaxRanks, "symmetric memory: " + std::to_string(nranks) +
                                   " ranks exceed the limit of " +
                                   std::to_string(kMaxRanks));

  std::unique_ptr<SymmetricMemory> mem(new SymmetricMemory());
  mem->comm_ = comm;
  mem->rank_ = rank;
  mem->nranks_ = nranks;
  mem->device_ = device;
  mem->usableBytes_ = usableBytes;
  mem->controlOffset_ = roundUp(usableBytes, NCCL_WIN_REQUIRED_ALIGNMENT);
  size_t total = mem->controlOffset_ + kControlBytes;
  checkNccl(ncclMemAlloc(&mem->local_, total), "ncclMemAlloc");
  mem->ownsBuffer_ = true;
  checkCudart(
      cudaMemset((char *)mem->local_ + mem->controlOffset_, 0, kControlBytes),
      "cudaMemset(control region)");
  ncclWindow_t window = nullptr;
  checkNccl(ncclCommWindowRegister(comm, mem->local_, total, &window,
                                   NCCL_WIN_COLL_SYMMETRIC),
            "ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC)");
  mem->window_ = window;

  std::vector<uint64_t> bases(nranks, (uint64_t)mem->local_);
  // One rank has no peer to resolve (and the setup kernel faulted on a
  // one-rank communicator on the H200 machine): the table is {0}.
  if (nranks > 1) {
    uint64_t *lsa = nullptr;
    checkCudart(cudaMalloc(&lsa, sizeof(uint64_t) * nranks), "cudaMalloc");
    cudaError_t err = kernels::lsaPointers(window, nranks, lsa, nullptr);
    if (err == cudaSuccess)
      err = cudaMemcpy(bases.data(), lsa, sizeof(uint64_t) * nranks,
                       cudaMemcpyDeviceToHost);
    cudaFree(lsa);
    checkCudart(err, "ncclGetLsaPointer setup kernel");
    for (int p = 0; p < nranks; ++p)
      if (bases[p] == 0)
        fail(ErrorKind::Nccl,
             "symmetric memory: NCCL gave no load/store address for rank " +
                 std::to_string(p) +
                 " (is every rank in one NVLink domain, with P2P allowed?)");
  }
  // The local buffer is not inside NCCL's flat mapping: translate relative to
  // the local pointer (notes/NCCL_SYMMETRIC.md).
  mem->finishSetup(bases);

  // Every rank's control region must be zeroed before any peer signals it.
  float *token = nullptr;
  checkCudart(cudaMalloc(&token, sizeof(float)), "cudaMalloc");
  ncclResult_t r =
      ncclAllReduce(token, token, 1, ncclFloat, ncclSum, comm, nullptr);
  cudaError_t s = cudaStreamSynchronize(nullptr);
  cudaFree(token);
  checkNccl(r, "ncclAllReduce(setup fence)");
  checkCudart(s, "cudaStreamSynchronize(setup)");
  return mem;
}

std::unique_ptr<SymmetricMemory>
SymmetricMemory::createFromPeers(int nranks, int rank, int device, void *local,
                                 const std::vector<uint64_t> &peers,
                                 size_t totalBytes) {
  require(nranks >= 1 && nranks <= kMaxRanks,
          "symmetric memory: nranks = " + std::to_string(nranks) +
              " must be in [1, " + std::to_string(kMaxRanks) + "]");
  require(rank >= 0 && rank < nranks,
          "symmetric memory: rank = " + std::to_string(rank) +
              " must be in [0, nranks = " + std::to_string(nranks) + ")");
  require(local != nullptr, "symmetric memory: the local buffer is null");
  require((int)peers.size() == nranks,
          "symmetric memory: got " + std::to_string(peers.size()) +
              " peer pointers for " + std::to_string(nranks) + " ranks");
  require(totalBytes > kControlBytes && totalBytes % 16 == 0,
          "symmetric memory: the buffer size " + std::to_string(totalBytes) +
              " must be a multiple of 16 above the " +
              std::to_string(kControlBytes) + " control bytes");
  for (int p = 0; p < nranks; ++p)
    require(peers[p] != 0 && peers[p] % 16 == 0,
            "symmetric memory: peer pointer " + std::to_string(p) +
                " is null or not 16-byte aligned");
  ScopedRuntimeDevice scope(device);
  std::unique_ptr<SymmetricMemory> mem(new SymmetricMemory());
  mem->rank_ = rank;
  mem->nranks_ = nranks;
  mem->device_ = device;
  mem->local_ = local;
  mem->controlOffset_ = totalBytes - kControlBytes;
  mem->usableBytes_ = mem->controlOffset_;
  checkCudart(cudaMemset((char *)local + mem->controlOffset_, 0, kControlBytes),
              "cudaMemset(control region)");
  checkCudart(cudaDeviceSynchronize(), "cudaDeviceSynchronize(setup)");
  std::vector<uint64_t> bases = peers;
  bases[rank] = (uint64_t)local;
  mem->finishSetup(bases);
  return mem;
}

void SymmetricMemory::finishSetup(const std::vector<uint64_t> &peerBases) {
  hostOffsets_.assign(nranks_, 0);
  for (int p = 0; p < nranks_; ++p)
    hostOffsets_[p] =
        p == rank_ ? 0 : (int64_t)(peerBases[p] - (uint64_t)local_);
  checkCudart(cudaMalloc(&deviceOffsets_, sizeof(int64_t) * nranks_),
              "cudaMalloc(offset table)");
  checkCudart(cudaMemcpy(deviceOffsets_, hostOffsets_.data(),
                         sizeof(int64_t) * nranks_, cudaMemcpyHostToDevice),
              "cudaMemcpy(offset table)");
}

SymmetricMemory::~SymmetricMemory() {
  // Best effort: a destructor reports nothing and must not throw.
  int saved = 0;
  cudaGetDevice(&saved);
  cudaSetDevice(device_);
  cudaDeviceSynchronize();
  if (deviceOffsets_)
    cudaFree(deviceOffsets_);
  if (window_)
    ncclCommWindowDeregister(comm_, (ncclWindow_t)window_);
  if (ownsBuffer_ && local_)
    ncclMemFree(local_);
  if (ownsComm_ && comm_)
    ncclCommDestroy(comm_);
  cudaSetDevice(saved);
}

void SymmetricMemory::barrier(CUstream stream, unsigned timeoutMs) const {
  ScopedRuntimeDevice scope(device_);
  checkCudart(kernels::barrier((char *)local_, deviceOffsets_, rank_, nranks_,
                               controlOffset_, (uint64_t)timeoutMs * 1000000ull,
                               (cudaStream_t)stream),
              "cross-rank barrier launch");
}

bool SymmetricMemory::meet(CUstream stream, unsigned timeoutMs) const {
  ScopedRuntimeDevice scope(device_);
  auto s = (cudaStream_t)stream;
  checkCudart(kernels::meetArrive((char *)local_, deviceOffsets_, rank_,
                                  nranks_, controlOffset_, s),
              "cross-rank meet launch");
  const auto start = std::chrono::steady_clock::now();
  const char *met = (const char *)local_ + controlOffset_ + kernels::kMetOffset;
  for (;;) {
    checkCudart(kernels::meetCheck((char *)local_, nranks_, controlOffset_,
                                   /*budgetNs=*/1000000, s),
                "cross-rank meet check launch");
    uint32_t flag = 0;
    checkCudart(cudaMemcpyAsync(&flag, met, sizeof flag,
                                cudaMemcpyDeviceToHost, s),
                "cudaMemcpyAsync(meet status)");
    checkCudart(cudaStreamSynchronize(s), "cudaStreamSynchronize(meet)");
    if (flag)
      return true;
    if (std::chrono::steady_clock::now() - start >
        std::chrono::milliseconds(timeoutMs))
      return false;
  }
}

bool SymmetricMemory::barrierTimedOut(CUstream stream) const {
  // Only `stream` (where this rank's barriers run) is waited for: a device
  // synchronize would also wait for other streams, e.g. another rank's
  // barrier spinning on the same GPU in the one-GPU multi-rank mode, which
  // may be waiting for this rank.
  ScopedRuntimeDevice scope(device_);
  auto s = (cudaStream_t)stream;
  uint32_t flag = 0;
  checkCudart(
      cudaMemcpyAsync(&flag,
                      (char *)local_ + controlOffset_ + kernels::kTimeoutOffset,
                      sizeof flag, cudaMemcpyDeviceToHost, s),
      "cudaMemcpyAsync(barrier status)");
  checkCudart(cudaStreamSynchronize(s),
              "cudaStreamSynchronize(barrier status)");
  return flag != 0;
}

} // namespace megamoe::rt
