//===- PeerWrite.h - test kernels over the symmetric buffer -----*- C++ -*-===//
#ifndef MEGAMOE_RUNTIME_TESTS_GPU_PEERWRITE_H
#define MEGAMOE_RUNTIME_TESTS_GPU_PEERWRITE_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

/// Rank `rank` writes a pattern into slot `rank` of every rank's buffer
/// (peer p's buffer reached as local + offsets[p]).
cudaError_t launchFillPeers(char *local, const int64_t *offsets, int rank,
                            int nranks, size_t slotBytes, cudaStream_t s);
/// Counts words of this rank's slots that differ from what rank s wrote.
cudaError_t launchCheckSlots(const char *local, int self, int nranks,
                             size_t slotBytes, unsigned long long *mismatches,
                             cudaStream_t s);
/// Streams 16-byte stores over [dst, dst + bytes) (bandwidth probe).
cudaError_t launchWrite(char *dst, size_t bytes, int blocks, cudaStream_t s);

#endif
