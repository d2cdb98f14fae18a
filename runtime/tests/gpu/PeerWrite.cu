//===- PeerWrite.cu - test kernels over the symmetric buffer --------------===//
#include "PeerWrite.h"

namespace {

__device__ uint32_t pattern(int writer, int reader, size_t word) {
  return (uint32_t)writer * 1000003u + (uint32_t)reader * 7919u +
         (uint32_t)word;
}

__global__ void fillPeers(char *local, const int64_t *offsets, int rank,
                          int nranks, size_t slotBytes) {
  size_t words = slotBytes / 4;
  for (int p = 0; p < nranks; ++p) {
    uint32_t *dst = (uint32_t *)(local + offsets[p] + rank * slotBytes);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
      dst[i] = pattern(rank, p, i);
  }
}

__global__ void checkSlots(const char *local, int self, int nranks,
                           size_t slotBytes, unsigned long long *mismatches) {
  size_t words = slotBytes / 4;
  unsigned long long bad = 0;
  for (int s = 0; s < nranks; ++s) {
    const uint32_t *src = (const uint32_t *)(local + s * slotBytes);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
      bad += src[i] != pattern(s, self, i);
  }
  if (bad)
    atomicAdd(mismatches, bad);
}

__global__ void writeStream(uint4 *dst, size_t n) {
  uint4 v = make_uint4(1, 2, 3, 4);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    dst[i] = v;
}

} // namespace

cudaError_t launchFillPeers(char *local, const int64_t *offsets, int rank,
                            int nranks, size_t slotBytes, cudaStream_t s) {
  fillPeers<<<264, 512, 0, s>>>(local, offsets, rank, nranks, slotBytes);
  return cudaGetLastError();
}

cudaError_t launchCheckSlots(const char *local, int self, int nranks,
                             size_t slotBytes, unsigned long long *mismatches,
                             cudaStream_t s) {
  checkSlots<<<264, 512, 0, s>>>(local, self, nranks, slotBytes, mismatches);
  return cudaGetLastError();
}

cudaError_t launchWrite(char *dst, size_t bytes, int blocks, cudaStream_t s) {
  writeStream<<<blocks, 512, 0, s>>>((uint4 *)dst, bytes / 16);
  return cudaGetLastError();
}
