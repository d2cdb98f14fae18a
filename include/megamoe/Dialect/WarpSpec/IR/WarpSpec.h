//===- WarpSpec.h - the warpspec dialect ----------------------------------*- C++ -*-===//
#ifndef MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H
#define MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOps.h.inc"

#endif // MEGAMOE_DIALECT_WARPSPEC_IR_WARPSPEC_H
