//===- TestUtil.h - helpers of the runtime unit tests -----------*- C++ -*-===//
#ifndef MEGAMOE_RUNTIME_TESTS_UNIT_TESTUTIL_H
#define MEGAMOE_RUNTIME_TESTS_UNIT_TESTUTIL_H

#include "megamoe/runtime/Error.h"

#include <gtest/gtest.h>

#include <string>

/// Runs `stmt`, expects an Error of `kind` whose message contains `needle`.
#define EXPECT_RT_ERROR(stmt, wantKind, needle)                                \
  do {                                                                         \
    try {                                                                      \
      stmt;                                                                    \
      ADD_FAILURE() << "expected an error containing \"" << (needle) << "\"";  \
    } catch (const megamoe::rt::Error &e) {                                    \
      EXPECT_EQ(e.kind(), (wantKind)) << e.what();                             \
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)         \
          << "message: " << e.what();                                          \
    }                                                                          \
  } while (0)

#endif
