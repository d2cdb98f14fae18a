//===- MegaMoE.h - the megamoe dialect ----------------------------------*- C++
//-*-===//
#ifndef MEGAMOE_DIALECT_MEGAMOE_IR_MEGAMOE_H
#define MEGAMOE_DIALECT_MEGAMOE_IR_MEGAMOE_H

#include "megamoe/Config/Plan.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir::megamoe {
/// Parses a `true` / `false` attribute parameter.
FailureOr<bool> parseBoolKeyword(AsmParser &parser);
} // namespace mlir::megamoe

#include "megamoe/Dialect/MegaMoE/IR/MegaMoEOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "megamoe/Dialect/MegaMoE/IR/MegaMoEAttrs.h.inc"

#define GET_OP_CLASSES
#include "megamoe/Dialect/MegaMoE/IR/MegaMoEOps.h.inc"

#endif // MEGAMOE_DIALECT_MEGAMOE_IR_MEGAMOE_H
