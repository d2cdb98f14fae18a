//===- ManifestAttrs.h - attribute names shared by the emit passes -*- C++
//-*-===//
//
// The lowering annotates kernels with `megamoe.*` discardable attributes;
// megamoe-collect-manifest turns them into `megamoe.manifests` on the
// builtin.module, megamoe-assemble-ptx adds ptxas resources, and
// megamoe-emit-kernels writes the JSON. The names live here only.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_CONVERSION_EMIT_MANIFESTATTRS_H
#define MEGAMOE_LIB_CONVERSION_EMIT_MANIFESTATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/JSON.h"

namespace mlir::megamoe::manifest {

// On the builtin.module: {gpu-module-name = {chip, symbols, runtime_symbols,
// kernels = [...]}}.
inline constexpr char kManifests[] = "megamoe.manifests";
// On a gpu.module (copied into its manifest).
inline constexpr char kSymbols[] = "megamoe.symbols";
inline constexpr char kRuntimeSymbols[] = "megamoe.runtime_symbols";
// The launch order of a layer's kernels (array of names) and the symmetric
// buffer layout (the JSON text of computeBufferLayout), from megamoe-expand.
inline constexpr char kSchedule[] = "megamoe.schedule";
// Several schedules by token count: [{min_tokens, max_tokens, block_m,
// schedule}], instead of kSchedule.
inline constexpr char kVariants[] = "megamoe.variants";
inline constexpr char kBufferLayout[] = "megamoe.buffer_layout";
// The layer's activation and recipe (a dictionary), from megamoe-expand.
inline constexpr char kLayer[] = "megamoe.layer";
// On a kernel llvm.func.
inline constexpr char kGrid[] = "megamoe.grid";
inline constexpr char kDynamicSmem[] = "megamoe.dynamic_smem_bytes";
// On kernel arguments.
inline constexpr char kParamName[] = "megamoe.name";
inline constexpr char kParamKind[] = "megamoe.kind";
inline constexpr char kTma[] = "megamoe.tma";
// What the runtime passes (docs/UnfusedSchedule.md, "Parameter binding").
inline constexpr char kParamBind[] = "megamoe.bind";

/// Converts an attribute built from dictionaries, arrays, strings, integers,
/// floats, booleans and unit into JSON; anything else is printed as a string.
llvm::json::Value toJSON(Attribute attr);

} // namespace mlir::megamoe::manifest

#endif // MEGAMOE_LIB_CONVERSION_EMIT_MANIFESTATTRS_H
