//===- ManifestAttrs.h - attribute names shared by the emit passes -*- C++
//-*-===//
//
// The lowering annotates kernels with `megamoe.*` discardable attributes
// (their names: megamoe/Conversion/ManifestNames.h); megamoe-collect-manifest
// turns them into `megamoe.manifests` on the builtin.module,
// megamoe-assemble-ptx adds ptxas resources, and megamoe-emit-kernels writes
// the JSON.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_CONVERSION_EMIT_MANIFESTATTRS_H
#define MEGAMOE_LIB_CONVERSION_EMIT_MANIFESTATTRS_H

#include "megamoe/Conversion/ManifestNames.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/JSON.h"

namespace mlir::megamoe::manifest {

// The attribute names (kSymbols, kParamBind, ...).
using namespace ::megamoe::manifest;

/// Converts an attribute built from dictionaries, arrays, strings, integers,
/// floats, booleans and unit into JSON; anything else is printed as a string.
llvm::json::Value toJSON(Attribute attr);

} // namespace mlir::megamoe::manifest

#endif // MEGAMOE_LIB_CONVERSION_EMIT_MANIFESTATTRS_H
