//===- Profile.h - the phase profile's buffer layout and phases -*- C++ -*-===//
//
// The facts that the kernel builders, megamoe-expand (which writes them into
// the manifest's "profile") and python/megamoe/profile.py (which decodes a
// dumped buffer) share; docs/Profile.md describes the format. The records
// are written by the PhaseProfile collective (lib/Kernels/Collectives).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_KERNELS_PROFILE_H
#define MEGAMOE_KERNELS_PROFILE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace megamoe {

/// A record: u64 %globaltimer (ns), then u64 tag | sm << 32 | role << 48 |
/// (phase << 1 | end) << 56 (tag: the tile or CTA it is about).
inline constexpr int64_t kProfileRecordBytes = 16;
/// CTAs per kernel that get a slice; the CTAs past it record nothing (every
/// grid is one CTA per SM or a single CTA; an H100/H200 has 132 SMs).
inline constexpr int64_t kProfileMaxCtas = 160;
/// The kernel parameter (bound to "profile": the runtime's profile buffer).
inline constexpr char kParamProfile[] = "profile";
inline constexpr char kProfileBind[] = "profile";
/// Records per (CTA, role) of the stage kernels that only stamp their CTA's
/// begin and end.
inline constexpr int64_t kProfileCtaCapacity = 2;

/// One kernel's part of the buffer: records [firstRecord, firstRecord +
/// kProfileMaxCtas * roles * capacity), slice (cta, role) at
/// firstRecord + (cta * roles + role) * capacity.
/// The role slices of a GEMM kernel: the TMA role, the math warpgroups
/// and, where its dispatch warps pull the pool rows (l1-pull), their warp 0.
inline constexpr int64_t kProfileGemmRoles = 3;
inline constexpr int64_t kProfileDispatchRole = 3;

struct ProfileSection {
  int64_t firstRecord = 0;
  int64_t roles = 1;
  int64_t capacity = kProfileCtaCapacity;
  int64_t records() const { return kProfileMaxCtas * roles * capacity; }
};

/// The phases a record can open or close (ids are the enum values).
enum class ProfilePhase : uint8_t {
  Cta = 0,        // a stage kernel's CTA, thread 0: first to last op
  L1Mainloop = 1, // an L1 tile's mainloop (producer or math role)
  L1Epilogue = 2, // an L1 tile's epilogue (math roles)
  L2Wait = 3,     // the fused kernel's L2 arrival wait (producer)
  L2Mainloop = 4, // an L2 tile's mainloop
  L2Epilogue = 5, // an L2 tile's epilogue (combine scatter)
  Pull = 6,       // a GEMM kernel's dispatch warp 0: its rows' copy loop
  RingWait = 7,   // its wait for a ring slot's previous m-block (pool ring)
};
inline constexpr int kNumProfilePhases = 8;

inline llvm::StringRef profilePhaseName(int phase) {
  static const char *const names[kNumProfilePhases] = {
      "cta",         "l1_mainloop", "l1_epilogue", "l2_wait",
      "l2_mainloop", "l2_epilogue", "pull",        "ring_wait"};
  return phase >= 0 && phase < kNumProfilePhases ? names[phase] : "?";
}

} // namespace megamoe

#endif // MEGAMOE_KERNELS_PROFILE_H
