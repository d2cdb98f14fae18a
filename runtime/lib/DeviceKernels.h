//===- DeviceKernels.h - the runtime's own nvcc-built kernels ---*- C++ -*-===//
//
// Small kernels compiled by nvcc into the runtime library (sm_90a): the
// symmetric-window setup (ncclGetLsaPointer is device-side only), the
// cross-rank barrier, the weight transform and the EPLB counters. Each returns the launch's
// cudaError_t; none synchronizes.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_LIB_DEVICEKERNELS_H
#define MEGAMOE_RUNTIME_LIB_DEVICEKERNELS_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>

namespace megamoe::rt::kernels {

/// Control-region layout of the symmetric buffer (offsets in bytes).
constexpr size_t kArriveOffset = 0;    // uint32 per source rank
constexpr size_t kEpochOffset = 512;   // uint32, this rank's barrier count
constexpr size_t kTimeoutOffset = 516; // uint32, nonzero after a timeout
constexpr size_t kMetOffset = 520;     // uint32, 1 once meetCheck saw all

/// out[p] = ncclGetLsaPointer(window, 0, p) for p < nranks.
cudaError_t lsaPointers(ncclWindow_t window, int nranks, uint64_t *out,
                        cudaStream_t stream);

/// The cross-rank barrier over the control region at local + controlOffset.
cudaError_t barrier(char *local, const int64_t *offsets, int rank, int nranks,
                    size_t controlOffset, uint64_t timeoutNs,
                    cudaStream_t stream);

/// The host-polled form of the barrier (SymmetricMemory::meet): meetArrive
/// adds this rank's arrival on every peer once; each meetCheck waits at most
/// budgetNs for every peer's arrival and, when all arrived, advances the epoch
/// and sets the met word (the host reads it and relaunches otherwise). Same
/// counters and epoch as barrier(), so the two forms may alternate.
cudaError_t meetArrive(char *local, const int64_t *offsets, int rank,
                       int nranks, size_t controlOffset, cudaStream_t stream);
cudaError_t meetCheck(char *local, int nranks, size_t controlOffset,
                      uint64_t budgetNs, cudaStream_t stream);

/// GPU versions of interleaveL1WeightsHost / relayoutL1ScalesHost.
cudaError_t interleaveL1Weights(const uint8_t *w, uint8_t *out,
                                int64_t localExperts, int64_t intermediate,
                                int64_t hidden, bool tiled,
                                cudaStream_t stream);
cudaError_t relayoutL1Scales(const float *sf, float *out, int64_t localExperts,
                             int64_t intermediate, int64_t hidden,
                             cudaStream_t stream);

/// stats[l] += poolRowStart[l][R] - poolRowStart[l][0] for l < L: the tokens
/// local expert l received in the call whose moe_layout wrote poolRowStart
/// (i32 [L, R + 1], docs/UnfusedSchedule.md), the EPLB statistics.
cudaError_t addExpertRecvCounts(const int32_t *poolRowStart, int32_t *stats,
                                int localExperts, int ranks,
                                cudaStream_t stream);

} // namespace megamoe::rt::kernels

#endif // MEGAMOE_RUNTIME_LIB_DEVICEKERNELS_H
