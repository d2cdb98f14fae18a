//===- TimeoutReport.h - what a timed-out wait waited for -------*- C++ -*-===//
//
// The host side of megamoe/Conversion/WarpSpecToNVVM/TimeoutRecord.h: a
// kernel's timed wait that runs out fills one host-mapped record and traps
// (no device printf: its call would serialize the kernel's wgmma). The
// runtime allocates the record, points every loaded cubin's record global at
// it (Module::load), and turns a filled record into the line a printf would
// have printed, e.g.
//   megamoe: timeout waiting for counter 'l2_arrival' (block 3, thread 0):
//   value 6, expected >= 8 after 20000000000 cycles
// It prints that line to stdout once (when it is first read, or at process
// exit if nothing read it), adds it to the message of the CUDA error that
// reports the trap (checkCu), and the C API returns it
// (megamoe_timeout_report).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_RUNTIME_TIMEOUTREPORT_H
#define MEGAMOE_RUNTIME_TIMEOUTREPORT_H

#include <cstdint>
#include <string>

namespace megamoe::rt {

/// The line of a record (megamoe::timeout::kRecordWords words as the kernel
/// wrote them), or "" if its `complete` word is not set. An unknown kind or
/// a name without its NUL is reported as such, never read past the record.
std::string formatTimeoutRecord(const uint32_t *words);

/// The device address of this process's record (host-mapped, portable to
/// every context; allocated at the first call, which needs a current
/// context). What Module::load writes into a cubin's record global.
uint64_t timeoutRecordAddress();

/// The line of the first wait of this process that timed out, or "" while
/// none has (a host-memory read: cheap, and valid after the trap has ended
/// the CUDA context). The first call that sees it prints it to stdout.
std::string timeoutReport();

} // namespace megamoe::rt

#endif // MEGAMOE_RUNTIME_TIMEOUTREPORT_H
