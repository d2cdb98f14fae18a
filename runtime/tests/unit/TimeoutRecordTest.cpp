//===- TimeoutRecordTest.cpp - a timeout record's report line -------------===//
//
// The record is written by the lowering of a timed wait
// (LowerCounters.cpp, layout in TimeoutRecord.h) and read by the runtime;
// these build records word by word as the kernel does (the name packed
// little-endian, NUL-terminated) and check the line the runtime prints.
//
//===----------------------------------------------------------------------===//
#include "megamoe/Conversion/WarpSpecToNVVM/TimeoutRecord.h"
#include "megamoe/runtime/TimeoutReport.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>

using namespace megamoe;
namespace t = megamoe::timeout;

namespace {

using Record = std::array<uint32_t, t::kRecordWords>;

/// A complete record of `kind` named `name` (as the kernel packs it).
Record record(t::RecordKind kind, const std::string &name) {
  Record r{};
  r[t::kClaimed] = 1;
  r[t::kComplete] = 1;
  r[t::kKind] = static_cast<uint32_t>(kind);
  std::string cut = name.substr(0, t::kNameBytes - 1);
  std::memcpy(&r[t::kName], cut.data(), cut.size());
  return r;
}

TEST(TimeoutRecord, LayoutFitsTheWords) {
  static_assert(t::kName + t::kNameBytes / 4 == t::kRecordWords);
  static_assert(t::kCyclesHi < t::kName);
  EXPECT_EQ(sizeof(Record), 128u);
}

TEST(TimeoutRecord, CounterLine) {
  Record r = record(t::RecordKind::Counter, "l2_arrival");
  r[t::kBlock] = 3;
  r[t::kThread] = 96;
  r[t::kValue] = 6;
  r[t::kExpected] = 8;
  uint64_t cycles = 20000000000ull; // past 32 bits: both words
  r[t::kCyclesLo] = static_cast<uint32_t>(cycles);
  r[t::kCyclesHi] = static_cast<uint32_t>(cycles >> 32);
  EXPECT_EQ(rt::formatTimeoutRecord(r.data()),
            "megamoe: timeout waiting for counter 'l2_arrival' (block 3, "
            "thread 96): value 6, expected >= 8 after 20000000000 cycles");
}

TEST(TimeoutRecord, CrossRankBarrierLine) {
  Record r = record(t::RecordKind::CrossRankBarrier,
                    "moe_layout: barriers[0], before the pull");
  r[t::kRank] = 1;
  r[t::kPhase] = 2;
  r[t::kValue] = 1;
  r[t::kExpected] = 2;
  r[t::kCyclesLo] = 5000;
  EXPECT_EQ(rt::formatTimeoutRecord(r.data()),
            "megamoe: timeout in cross-rank barrier 'moe_layout: barriers[0], "
            "before the pull' on rank 1 (block 0, thread 0): phase 2, 1 of 2 "
            "ranks arrived after 5000 cycles");
}

TEST(TimeoutRecord, IncompleteIsEmpty) {
  // Claimed but not complete: the kernel is still writing (or trapped
  // before its fence); nothing is reported from half-written fields.
  Record r = record(t::RecordKind::Counter, "l2_arrival");
  r[t::kComplete] = 0;
  EXPECT_EQ(rt::formatTimeoutRecord(r.data()), "");
  Record zero{};
  EXPECT_EQ(rt::formatTimeoutRecord(zero.data()), "");
}

TEST(TimeoutRecord, LongestNameAndMissingNul) {
  // The kernel cuts a name to kNameBytes - 1 bytes and its NUL.
  std::string longName(100, 'x');
  Record r = record(t::RecordKind::Counter, longName);
  std::string line = rt::formatTimeoutRecord(r.data());
  EXPECT_NE(line.find("'" + std::string(t::kNameBytes - 1, 'x') + "'"),
            std::string::npos)
      << line;
  // A field with no NUL (a corrupted record) is cut, never read past.
  std::memset(&r[t::kName], 'y', t::kNameBytes);
  line = rt::formatTimeoutRecord(r.data());
  EXPECT_NE(line.find(std::string(t::kNameBytes - 3, 'y') + "...'"),
            std::string::npos)
      << line;
}

TEST(TimeoutRecord, UnknownKind) {
  Record r = record(static_cast<t::RecordKind>(7), "c");
  EXPECT_EQ(rt::formatTimeoutRecord(r.data()),
            "megamoe: timeout in 'c' (block 0, thread 0): (unknown record kind "
            "7)");
}

} // namespace
