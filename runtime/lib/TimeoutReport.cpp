//===- TimeoutReport.cpp - the process's timeout record -------------------===//
//
// One record per process (TimeoutReport.h): every module of every device
// points at it, and the first wait to time out anywhere claims it. Pinned,
// mapped and portable host memory: the kernel writes it over PCIe / C2C, and
// the host reads it after the trap has ended the context (device memory
// could no longer be copied then). Never freed: the exit handler reads it.
//
//===----------------------------------------------------------------------===//
#include "megamoe/runtime/TimeoutReport.h"
#include "CudaCheck.h"
#include "megamoe/Conversion/WarpSpecToNVVM/TimeoutRecord.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace megamoe::rt {

namespace {

namespace t = megamoe::timeout;

std::mutex allocation;
std::atomic<uint32_t *> hostRecord{nullptr};
CUdeviceptr deviceRecord = 0;
std::atomic<bool> printed{false};

void reportAtExit() { (void)timeoutReport(); }

} // namespace

uint64_t timeoutRecordAddress() {
  std::lock_guard<std::mutex> lock(allocation);
  if (!hostRecord.load()) {
    void *p = nullptr;
    checkCu(
        cuMemHostAlloc(&p, t::kRecordWords * sizeof(uint32_t),
                       CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
        "cuMemHostAlloc(timeout record)");
    std::memset(p, 0, t::kRecordWords * sizeof(uint32_t));
    checkCu(cuMemHostGetDevicePointer(&deviceRecord, p, 0),
            "cuMemHostGetDevicePointer(timeout record)");
    hostRecord.store(static_cast<uint32_t *>(p));
    std::atexit(reportAtExit);
  }
  return deviceRecord;
}

std::string timeoutReport() {
  const volatile uint32_t *record = hostRecord.load();
  if (!record || record[t::kComplete] != 1)
    return "";
  // The kernel fenced its fields before `complete` (fence.sc.sys).
  std::atomic_thread_fence(std::memory_order_acquire);
  uint32_t words[t::kRecordWords];
  for (int i = 0; i < t::kRecordWords; ++i)
    words[i] = record[i];
  std::string line = formatTimeoutRecord(words);
  if (!printed.exchange(true)) {
    std::fprintf(stdout, "%s\n", line.c_str());
    std::fflush(stdout);
  }
  return line;
}

} // namespace megamoe::rt
