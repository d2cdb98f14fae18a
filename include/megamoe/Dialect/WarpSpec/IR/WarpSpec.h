//===- WarpSpec.h - the warpspec dialect -----------------------*- C++ -*-===//
#ifndef MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H
#define MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H

#include "megamoe/Config/Chip.h"
#include "megamoe/Config/SmemModel.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsDialect.h.inc"
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOps.h.inc"

namespace mlir::warpspec {

/// The limits (megamoe/Config/Chip.h) of the chip a kernel names: sm_90*
/// or sm_100*; nullopt for any other.
std::optional<::megamoe::config::ChipLimits>
getChipLimits(llvm::StringRef chip);

/// The per-block dynamic shared-memory limit of `chip`, or 0 if unknown.
int64_t getSmemLimit(llvm::StringRef chip);

/// Discardable kernel attribute: the shared memory (bytes) the kernel's plan
/// reserves (config::KernelPlan::smemBytes), set by the builder;
/// warpspec-plan-smem fails when its layout needs more.
inline constexpr llvm::StringLiteral kPlannedSmemBytesAttrName =
    "warpspec.planned_smem_bytes";

/// Discardable kernel attribute set by warpspec-plan-smem on sm_100 kernels
/// with block-scaled MMAs: the byte offset of their TMEM bookkeeping
/// (TmemPartialsPlan::stateBytes()).
inline constexpr llvm::StringLiteral kTmemStateOffsetAttrName =
    "warpspec.tmem_state_offset";

/// How an sm_100 kernel's `warpspec.mma.block_scaled` ops use tensor memory
/// (docs/SM100.md, recipe (b)): every warpgroup of an `mma` role that issues
/// them owns `n` TMEM columns (the accumulator's width) for the partial
/// product of one K block, which it loads back and promotes into its
/// register total. Warpgroups are numbered in warp order over those roles.
/// The bookkeeping in shared memory: the 32-bit TMEM address that
/// `tcgen05.alloc` writes (8 B), then one 8-byte mbarrier per warpgroup on
/// which `tcgen05.commit` signals the partial.
struct TmemPartialsPlan {
  struct Role {
    RoleOp role;
    int64_t n = 0;              // accumulator columns of its MMAs
    int64_t firstWarpgroup = 0; // index of its first MMA warpgroup
  };
  llvm::SmallVector<Role, 2> roles;
  int64_t warpgroups = 0;
  /// Columns the partials need (sum of warpgroups x n) and the power of two
  /// >= 32 that tcgen05.alloc is asked for.
  int64_t columns = 0;
  int64_t allocColumns = 0;
  /// Shared-memory bytes of the bookkeeping (0 without partials).
  int64_t bytesOfState() const {
    return ::megamoe::config::tmemStateBytes(warpgroups);
  }
};

/// The TMEM plan of `kernel`: empty (no roles) unless the kernel names an
/// sm_100 chip and has block-scaled MMAs. Fails with a diagnostic when the
/// MMAs of one role have different accumulator widths.
FailureOr<TmemPartialsPlan> planTmemPartials(KernelOp kernel);

} // namespace mlir::warpspec

#endif // MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H
