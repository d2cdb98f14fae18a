//===- DeviceKernels.cu - the runtime's own nvcc-built kernels ------------===//
#include "DeviceKernels.h"
#include "megamoe/runtime/WeightTransform.h"

#include <nccl_device.h>

namespace megamoe::rt::kernels {
namespace {

__global__ void lsaPointersKernel(ncclWindow_t window, int nranks,
                                  uint64_t *out) {
  for (int p = threadIdx.x; p < nranks; p += blockDim.x)
    out[p] = (uint64_t)ncclGetLsaPointer(window, 0, p);
}

__device__ uint32_t loadAcquireSys(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(v)
               : "l"(p)
               : "memory");
  return v;
}

__device__ void redReleaseSysAdd(uint32_t *p, uint32_t v) {
  asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(p), "r"(v)
               : "memory");
}

__device__ uint64_t globalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One block of >= nranks threads; thread p signals and waits for rank p.
// Every rank adds 1 to its slot on every peer per barrier, so after the n-th
// barrier each slot holds n: the epoch is this rank's own barrier count, kept
// in device memory so that graph replays need no host state.
__global__ void barrierKernel(char *local, const int64_t *offsets, int rank,
                              int nranks, size_t controlOffset,
                              uint64_t timeoutNs) {
  char *control = local + controlOffset;
  uint32_t *arrive = (uint32_t *)(control + kArriveOffset);
  uint32_t *epochWord = (uint32_t *)(control + kEpochOffset);
  uint32_t *timeoutWord = (uint32_t *)(control + kTimeoutOffset);
  const uint32_t epoch = *(volatile uint32_t *)epochWord + 1;
  const int p = threadIdx.x;
  if (p < nranks) {
    // Writes of earlier kernels on this stream must be visible to the peer
    // before it sees the arrival.
    __threadfence_system();
    redReleaseSysAdd((uint32_t *)((char *)(arrive + rank) + offsets[p]), 1u);
    const uint64_t start = globalTimerNs();
    while ((int32_t)(loadAcquireSys(arrive + p) - epoch) < 0) {
      if (globalTimerNs() - start > timeoutNs) {
        atomicExch(timeoutWord, 1u);
        break;
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0)
    *(volatile uint32_t *)epochWord = epoch;
}

__global__ void meetArriveKernel(char *local, const int64_t *offsets,
                                 int rank, int nranks, size_t controlOffset) {
  char *control = local + controlOffset;
  uint32_t *arrive = (uint32_t *)(control + kArriveOffset);
  const int p = threadIdx.x;
  if (threadIdx.x == 0)
    *(volatile uint32_t *)(control + kMetOffset) = 0u;
  if (p < nranks) {
    __threadfence_system();
    redReleaseSysAdd((uint32_t *)((char *)(arrive + rank) + offsets[p]), 1u);
  }
}

__global__ void meetCheckKernel(char *local, int nranks, size_t controlOffset,
                                uint64_t budgetNs) {
  char *control = local + controlOffset;
  uint32_t *arrive = (uint32_t *)(control + kArriveOffset);
  uint32_t *epochWord = (uint32_t *)(control + kEpochOffset);
  const uint32_t epoch = *(volatile uint32_t *)epochWord + 1;
  __shared__ int missing;
  if (threadIdx.x == 0)
    missing = 0;
  __syncthreads();
  const int p = threadIdx.x;
  if (p < nranks) {
    const uint64_t start = globalTimerNs();
    while ((int32_t)(loadAcquireSys(arrive + p) - epoch) < 0)
      if (globalTimerNs() - start > budgetNs) {
        atomicAdd(&missing, 1);
        break;
      }
  }
  __syncthreads();
  if (threadIdx.x == 0 && missing == 0) {
    *(volatile uint32_t *)epochWord = epoch;
    *(volatile uint32_t *)(control + kMetOffset) = 1u;
  }
}

__global__ void interleaveKernel(const uint4 *w, uint4 *out, int64_t rows,
                                 int64_t intermediate, int64_t vecPerRow,
                                 int64_t total, bool tiled) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t v = i % vecPerRow, row = i / vecPerRow;
    int64_t e = row / rows, r = row % rows;
    int64_t src = interleavedSourceRow(r, intermediate);
    // Tiled: the vector's 16 bytes stay contiguous inside their tile.
    int64_t o =
        tiled ? tiledWeightOffset(row, v * 16, vecPerRow * 16) / 16 : i;
    out[o] = w[(e * rows + src) * vecPerRow + v];
  }
}

__global__ void relayoutKernel(const float *sf, float2 *out, int64_t nb,
                               int64_t kb, int64_t upBase, int64_t total) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t k = i % kb, b = (i / kb) % nb, e = i / (kb * nb);
    out[i] = make_float2(sf[(e * nb + b / 2) * kb + k],
                         sf[(e * nb + upBase + b / 2) * kb + k]);
  }
}

unsigned gridFor(int64_t total, int threads) {
  int64_t blocks = (total + threads - 1) / threads;
  return (unsigned)(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

} // namespace

cudaError_t lsaPointers(ncclWindow_t window, int nranks, uint64_t *out,
                        cudaStream_t stream) {
  lsaPointersKernel<<<1, 128, 0, stream>>>(window, nranks, out);
  return cudaGetLastError();
}

cudaError_t barrier(char *local, const int64_t *offsets, int rank, int nranks,
                    size_t controlOffset, uint64_t timeoutNs,
                    cudaStream_t stream) {
  barrierKernel<<<1, 128, 0, stream>>>(local, offsets, rank, nranks,
                                       controlOffset, timeoutNs);
  return cudaGetLastError();
}

cudaError_t meetArrive(char *local, const int64_t *offsets, int rank,
                       int nranks, size_t controlOffset, cudaStream_t stream) {
  meetArriveKernel<<<1, 128, 0, stream>>>(local, offsets, rank, nranks,
                                          controlOffset);
  return cudaGetLastError();
}

cudaError_t meetCheck(char *local, int nranks, size_t controlOffset,
                      uint64_t budgetNs, cudaStream_t stream) {
  meetCheckKernel<<<1, 128, 0, stream>>>(local, nranks, controlOffset,
                                         budgetNs);
  return cudaGetLastError();
}

cudaError_t interleaveL1Weights(const uint8_t *w, uint8_t *out,
                                int64_t localExperts, int64_t intermediate,
                                int64_t hidden, bool tiled,
                                cudaStream_t stream) {
  // hidden % 128 == 0, so rows are whole 16-byte vectors.
  int64_t vecPerRow = hidden / 16, rows = 2 * intermediate;
  int64_t total = localExperts * rows * vecPerRow;
  interleaveKernel<<<gridFor(total, 256), 256, 0, stream>>>(
      (const uint4 *)w, (uint4 *)out, rows, intermediate, vecPerRow, total,
      tiled);
  return cudaGetLastError();
}

cudaError_t relayoutL1Scales(const float *sf, float *out, int64_t localExperts,
                             int64_t intermediate, int64_t hidden,
                             cudaStream_t stream) {
  int64_t nb = 2 * intermediate / 128, kb = hidden / 128;
  int64_t total = localExperts * nb * kb;
  relayoutKernel<<<gridFor(total, 256), 256, 0, stream>>>(
      sf, (float2 *)out, nb, kb, intermediate / 128, total);
  return cudaGetLastError();
}

namespace {

__global__ void addExpertRecvCountsKernel(const int32_t *poolRowStart,
                                          int32_t *stats, int localExperts,
                                          int ranks) {
  for (int l = blockIdx.x * blockDim.x + threadIdx.x; l < localExperts;
       l += gridDim.x * blockDim.x) {
    const int32_t *row = poolRowStart + (size_t)l * (ranks + 1);
    stats[l] += row[ranks] - row[0];
  }
}

} // namespace

cudaError_t addExpertRecvCounts(const int32_t *poolRowStart, int32_t *stats,
                                int localExperts, int ranks,
                                cudaStream_t stream) {
  int blocks = (localExperts + 255) / 256;
  addExpertRecvCountsKernel<<<blocks, 256, 0, stream>>>(poolRowStart, stats,
                                                        localExperts, ranks);
  return cudaGetLastError();
}

} // namespace megamoe::rt::kernels
