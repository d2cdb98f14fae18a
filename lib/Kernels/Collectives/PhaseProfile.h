//===- PhaseProfile.h - the phase profile's event writer --------*- C++ -*-===//
//
// Part of the collectives (docs/Collectives.md): a kernel built with the
// profile (megamoe-expand profile=true, docs/Profile.md) stamps
// %globaltimer at its phase boundaries into its section of the profile
// buffer. One elected thread per role per CTA (lane 0 of the role's warp 0,
// or thread 0 of a kernel without roles) appends a 16-byte record to its
// (CTA, role) slice; the slot is a per-thread sequence number in a register
// (warpspec.sequence.next), so a stamp is a timer read and two stores, no
// memory round trip. Records past the slice's capacity, and CTAs past
// kProfileMaxCtas, are dropped: nothing is written out of bounds.
//
// A default PhaseProfile (no buffer) emits nothing: the kernels built
// without the option are those of a compiler without it.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_COLLECTIVES_PHASEPROFILE_H
#define MEGAMOE_LIB_KERNELS_COLLECTIVES_PHASEPROFILE_H

#include "megamoe/Kernels/Profile.h"

#include "mlir/IR/Builders.h"

namespace megamoe::collectives {

struct PhaseProfile {
  mlir::Value records; // !warpspec.global<i64>: the buffer; null = off
  ProfileSection section;

  explicit operator bool() const { return static_cast<bool>(records); }

  /// Role `role`'s elected lane records the begin (or end) of `phase` about
  /// `tag` (an index or i32: the tile; null = 0).
  void stamp(mlir::OpBuilder &b, mlir::Location loc, int64_t role,
             ProfilePhase phase, bool end, mlir::Value tag) const;
  /// stamp(begin), body(), stamp(end); just body() when off.
  void span(mlir::OpBuilder &b, mlir::Location loc, int64_t role,
            ProfilePhase phase, mlir::Value tag,
            llvm::function_ref<void()> body) const;
  /// A kernel without roles: thread 0 records the CTA's begin (or end),
  /// tagged with the CTA index.
  void stampCta(mlir::OpBuilder &b, mlir::Location loc, bool end) const;
};

} // namespace megamoe::collectives

#endif // MEGAMOE_LIB_KERNELS_COLLECTIVES_PHASEPROFILE_H
