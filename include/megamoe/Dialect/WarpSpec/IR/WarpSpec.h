//===- WarpSpec.h - the warpspec dialect -----------------------*- C++ -*-===//
#ifndef MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H
#define MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H

#include "megamoe/Config/Chip.h"

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

} // namespace mlir::warpspec

#endif // MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H
