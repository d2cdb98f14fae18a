//===- Common.h - helpers shared by the warpspec lowering -------*- C++ -*-===//
#ifndef MEGAMOE_LIB_CONVERSION_WARPSPECTONVVM_COMMON_H
#define MEGAMOE_LIB_CONVERSION_WARPSPECTONVVM_COMMON_H

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::warpspec {

/// Name of the extern shared array that is the kernel's dynamic SMEM.
inline constexpr char kDynamicSmemName[] = "__dynamic_smem";

Value i32Const(OpBuilder &b, Location loc, int64_t v);
Value i64Const(OpBuilder &b, Location loc, int64_t v);
/// An index value (from a stage or row operand) as i32 / i64.
Value toI32(OpBuilder &b, Location loc, Value index);
Value toI64(OpBuilder &b, Location loc, Value index);

/// Start of the dynamic shared memory (llvm.mlir.addressof @__dynamic_smem).
Value dynamicSmemBase(OpBuilder &b, Location loc);
/// `base + byteOffset` (i8 gep) in shared memory.
Value smemOffset(OpBuilder &b, Location loc, Value base, Value byteOffset);
Value smemOffset(OpBuilder &b, Location loc, Value base, int64_t byteOffset);

/// tid.x / 32 made warp-uniform with shfl.sync (lane 0's value), so ptxas
/// knows branches on it do not diverge inside a warp.
Value uniformWarpId(OpBuilder &b, Location loc);
/// Thread index inside its warpgroup: tid.x % 128.
Value threadInWarpgroup(OpBuilder &b, Location loc);
/// laneid == 0.
Value isLaneZero(OpBuilder &b, Location loc);

/// Runs `body` in an scf.if on `cond` (no results).
void buildIf(OpBuilder &b, Location loc, Value cond,
             function_ref<void(OpBuilder &, Location)> body);

/// One TMA tile store of the box at `src` to `coords` of `desc`, then its
/// commit_group, issued by lane 0 of the executing warp.
void emitTmaStore(OpBuilder &b, Location loc, Value desc, Value src,
                  ValueRange coords);

/// The mbarrier of `stage` (an i32) in the full (isEmpty = false) or empty
/// array of a pipeline whose full[0] is at `base`.
Value mbarrierAddress(OpBuilder &b, Location loc, Value base, unsigned stages,
                      bool isEmpty, Value stage);

/// Address of slot `stage` of `buffer` (plus `extraBytes`).
Value slotAddress(OpBuilder &b, Location loc, SmemType type, Value base,
                  Value stage, int64_t extraBytes = 0);

/// Bits [4, 4+B) of the swizzle: bits [7, 7+B) of the byte offset `off`
/// within a swizzled tile (B = log2(swizzle / 16)), moved down to be XORed
/// into the 16-byte chunk index. The one definition of the 32/64/128-byte
/// swizzle for every SMEM tile access of the lowering.
Value swizzleBits(OpBuilder &b, Location loc, Value off, unsigned swizzle);

/// One inline-PTX instruction with one result; `sideEffects` keeps it in
/// place (never hoisted, merged or dropped).
Value inlinePtx(OpBuilder &b, Location loc, Type result, ValueRange operands,
                StringRef text, StringRef constraints, bool sideEffects);

/// Manifest name of an element type (e4m3, e5m2, bf16, f16, f32, u8, i32), or
/// an empty string.
std::string manifestDType(Type elementType);

} // namespace mlir::warpspec

#endif // MEGAMOE_LIB_CONVERSION_WARPSPECTONVVM_COMMON_H
