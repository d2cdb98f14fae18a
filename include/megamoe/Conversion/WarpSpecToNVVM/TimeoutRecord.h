//===- TimeoutRecord.h - where a timed-out wait reports ---------*- C++ -*-===//
//
// A timed wait (warpspec.counter.wait, grid.sync, cross_rank.barrier with
// `timeout_cycles`) that runs out does not print: a device printf is a call
// to vprintf, and ptxas serializes every wgmma of a kernel that contains a
// call (C7510; about 3% of the fused GEMM kernel at 8192 tokens,
// bench/RESULTS.md 2026-12-07). Instead the first thread to time out claims
// one record in host-mapped memory, writes what it waited for, fences it to
// the system and traps. The runtime reads the record from the host (it
// survives the trap, which ends the context) and prints the same line a
// printf would have, and adds it to the CUDA error it reports.
//
// The record is found through one 8-byte global of the cubin, named
// kTimeoutRecordSymbol, that the runtime sets at module load to the device
// address of its record (0: no record; the wait then only traps). This file
// is the one definition of that contract: the lowering (LowerCounters.cpp)
// writes the words below, the runtime (runtime/lib/TimeoutReport.cpp)
// reads them. Plain C++ (the runtime builds without LLVM).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONVERSION_WARPSPECTONVVM_TIMEOUTRECORD_H
#define MEGAMOE_CONVERSION_WARPSPECTONVVM_TIMEOUTRECORD_H

#include <cstdint>

namespace megamoe::timeout {

/// The cubin global that holds the record's device address (u64).
inline constexpr char kRecordSymbol[] = "megamoe_timeout_record";

/// The record: 32 little-endian u32 words (128 bytes).
inline constexpr int kRecordWords = 32;

/// Word indices. `claimed` is taken with a compare-and-swap 0 -> 1 by the
/// first thread that times out (the others wait, at most kLoserWaitCycles,
/// for `complete`, then trap); that thread writes
/// the fields, fences (fence.sc.sys), sets `complete` to 1 and fences again,
/// so a host that reads complete == 1 reads the fields it wrote.
enum Word : int {
  kClaimed = 0,
  kComplete = 1,
  kKind = 2,     ///< RecordKind
  kBlock = 3,    ///< %ctaid.x of the thread that timed out
  kThread = 4,   ///< its %tid.x
  kValue = 5,    ///< counter: the last value read; barrier: ranks arrived
  kExpected = 6, ///< counter: the target (>=); barrier: the rank count
  kRank = 7,     ///< barrier only: the waiting rank
  kPhase = 8,    ///< barrier only: the phase (generation) it waited for
  kCyclesLo = 9, ///< the wait's timeout_cycles, low and high words
  kCyclesHi = 10,
  kName = 16, ///< the counter's or barrier's name, NUL-terminated bytes
};

/// How long a thread that timed out after another one claimed the record
/// waits for it to be complete before it traps (2^27 cycles, ~75 ms at
/// 1.8 GHz; the winner's stores and fences take microseconds): a trap ends
/// the whole grid, the winner's unfinished stores with it.
inline constexpr int64_t kLoserWaitCycles = int64_t(1) << 27;

/// Bytes of the name field; a longer name is cut to kNameBytes - 1.
inline constexpr int kNameBytes = (kRecordWords - kName) * 4;

enum class RecordKind : uint32_t { Counter = 1, CrossRankBarrier = 2 };

} // namespace megamoe::timeout

#endif // MEGAMOE_CONVERSION_WARPSPECTONVVM_TIMEOUTRECORD_H
