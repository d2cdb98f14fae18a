//===- WarpSpec.h - the warpspec dialect -----------------------*- C++ -*-===//
#ifndef MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H
#define MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H

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

#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsDialect.h.inc"
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOps.h.inc"

namespace mlir::warpspec {

/// Registers per SM (and the most one CTA may use) on SM90 and SM100.
constexpr int64_t kRegistersPerSM = 65536;
/// Dynamic shared memory one CTA may use on SM90 (H100/H200) and SM100.
constexpr int64_t kMaxSmemBytesSm90 = 232448;

/// The per-block dynamic shared-memory limit of `chip`, or 0 if unknown.
int64_t getSmemLimit(llvm::StringRef chip);

} // namespace mlir::warpspec

#endif // MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H
