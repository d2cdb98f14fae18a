//===- Passes.h - megamoe conversion passes ---------------------*- C++ -*-===//
#ifndef MEGAMOE_CONVERSION_PASSES_H
#define MEGAMOE_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::megamoe {

#define GEN_PASS_DECL
#include "megamoe/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "megamoe/Conversion/Passes.h.inc"

/// Registers `megamoe-to-cubin`: warpspec in a gpu.module -> gpu.binary with
/// a cubin, plus the manifest (and files when `emit-dir` is given).
void registerMegaMoEToCubinPipeline();

} // namespace mlir::megamoe

#endif // MEGAMOE_CONVERSION_PASSES_H
