//===- Symmetric.h - symmetric memory across the ranks ----------*- C++ -*-===//
//
// One buffer of the same size on every rank (one rank per process, one GPU
// per rank) that kernels reach on every peer through an offset table:
//
//   peer address of a local address q on rank p = q + offsets[p]
//
// Built either through NCCL (ncclMemAlloc + ncclCommWindowRegister as a
// symmetric window; peer bases from ncclGetLsaPointer in an nvcc-built setup
// kernel, translated as notes/NCCL_SYMMETRIC.md found necessary: the local
// ncclMemAlloc pointer is not inside NCCL's flat peer mapping, so
// offsets[p] = lsa[p] - local), or from peer pointers the caller already has
// (PyTorch symmetric memory). NVLink multicast is never used.
//
// The last kControlBytes of the buffer hold the cross-rank barrier's counters;
// usableBytes() excludes them.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_SYMMETRIC_H
#define MEGAMOE_RUNTIME_SYMMETRIC_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

typedef struct CUstream_st *CUstream;
typedef struct ncclComm *ncclComm_t;

namespace megamoe::rt {

class SymmetricMemory {
public:
  static constexpr size_t kControlBytes = 4096;
  static constexpr int kMaxRanks = 72; // one NVLink domain

  /// Creates an NCCL communicator from `uniqueId` (the 128 bytes of an
  /// ncclUniqueId that rank 0 made and the caller distributed) and a
  /// symmetric window of `usableBytes` (+ control). Collective: every rank
  /// must call it. Owns the communicator.
  static std::unique_ptr<SymmetricMemory> createNccl(const void *uniqueId,
                                                     int nranks, int rank,
                                                     int device,
                                                     size_t usableBytes);
  /// As createNccl over an existing communicator (not owned).
  static std::unique_ptr<SymmetricMemory>
  createWithComm(ncclComm_t comm, int device, size_t usableBytes);
  /// Over buffers the caller allocated and mapped on every rank: `local` and
  /// `peers[p]` (the address of rank p's buffer in this process; peers[rank]
  /// may equal local) of `totalBytes` each, the last kControlBytes reserved.
  /// The caller must make sure every rank has returned from this call before
  /// any rank calls barrier().
  static std::unique_ptr<SymmetricMemory>
  createFromPeers(int nranks, int rank, int device, void *local,
                  const std::vector<uint64_t> &peers, size_t totalBytes);
  ~SymmetricMemory();
  SymmetricMemory(const SymmetricMemory &) = delete;
  SymmetricMemory &operator=(const SymmetricMemory &) = delete;

  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  int device() const { return device_; }
  void *local() const { return local_; }
  size_t usableBytes() const { return usableBytes_; }
  /// Device array of nranks int64 offsets (see the file comment).
  const int64_t *deviceOffsets() const { return deviceOffsets_; }
  const std::vector<int64_t> &hostOffsets() const { return hostOffsets_; }
  ncclComm_t comm() const { return comm_; }

  /// A cross-rank barrier on `stream` (a one-block kernel: release-add on
  /// every peer's counter, acquire-spin on its own). Graph capturable: the
  /// epoch lives in device memory. A rank that waits longer than about
  /// `timeoutMs` records a timeout readable with barrierTimedOut().
  void barrier(CUstream stream, unsigned timeoutMs = 10000) const;
  /// Waits for `stream` (the one the barriers ran on; other streams are not
  /// waited for) and reports whether a barrier on this rank ever timed out.
  bool barrierTimedOut(CUstream stream) const;
  /// The same barrier driven from the host: arrive once, then short checks
  /// (about 1 ms on the GPU each) relaunched on `stream` until every rank
  /// arrived (true) or `timeoutMs` passed (false). No kernel stays resident
  /// while peers are still getting there, so ranks sharing one GPU can load
  /// their modules meanwhile (module loading can wait for running kernels).
  /// Not graph capturable: for setup, not for the forward.
  bool meet(CUstream stream, unsigned timeoutMs) const;

private:
  SymmetricMemory() = default;
  void finishSetup(const std::vector<uint64_t> &peerBases);

  int rank_ = 0, nranks_ = 0, device_ = 0;
  void *local_ = nullptr;
  size_t usableBytes_ = 0, controlOffset_ = 0;
  int64_t *deviceOffsets_ = nullptr;
  std::vector<int64_t> hostOffsets_;
  ncclComm_t comm_ = nullptr;
  bool ownsComm_ = false;
  void *window_ = nullptr; // ncclWindow_t
  bool ownsBuffer_ = false;
};

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_SYMMETRIC_H
