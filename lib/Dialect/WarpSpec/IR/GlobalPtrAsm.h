//===- GlobalPtrAsm.h - custom<GlobalPtrTypes> directive -------*- C++ -*-===//
//
// The counter and symmetric-memory ops take typed (!warpspec.global<T>) or
// untyped (!llvm.ptr<1>) global pointers. Their pointer types are printed
// after a colon only when one of them is typed, so IR written for untyped
// pointers reads as before.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_DIALECT_WARPSPEC_IR_GLOBALPTRASM_H
#define MEGAMOE_LIB_DIALECT_WARPSPEC_IR_GLOBALPTRASM_H

#include "mlir/IR/OpImplementation.h"

namespace mlir::warpspec {

ParseResult parseGlobalPtrTypes(OpAsmParser &parser, Type &first);
ParseResult parseGlobalPtrTypes(OpAsmParser &parser, Type &first,
                                Type &second);
void printGlobalPtrTypes(OpAsmPrinter &printer, Operation *op, Type first);
void printGlobalPtrTypes(OpAsmPrinter &printer, Operation *op, Type first,
                         Type second);

} // namespace mlir::warpspec

#endif // MEGAMOE_LIB_DIALECT_WARPSPEC_IR_GLOBALPTRASM_H
