//===- MegaMoE.h - the megamoe dialect ----------------------------------*- C++ -*-===//
#ifndef MEGAMOE_DIALECT_MEGAMOE_IR_MEGAMOE_H
#define MEGAMOE_DIALECT_MEGAMOE_IR_MEGAMOE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "megamoe/Dialect/MegaMoE/IR/MegaMoEOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "megamoe/Dialect/MegaMoE/IR/MegaMoEOps.h.inc"

#endif // MEGAMOE_DIALECT_MEGAMOE_IR_MEGAMOE_H
