//===- MoeKernelUtil.h - helpers of route/layout/pull ---------*- C++ -*-===//
//
// Small builders shared by moe_route, moe_layout and moe_pull: constants,
// typed global loads/stores at an element index, thread coordinates,
// grid-stride loops and the check that a region of the symmetric buffer is
// large enough for what a kernel addresses. Private to lib/Kernels.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_MOEKERNELUTIL_H
#define MEGAMOE_LIB_KERNELS_MOEKERNELUTIL_H

#include "megamoe/Kernels/KernelBuilder.h"
#include "megamoe/Kernels/MoeKernels.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace megamoe::moe {

/// !llvm.ptr<1>, the type of every pointer parameter.
mlir::Type globalPtrType(mlir::MLIRContext *ctx);

/// Parameters bound to a region (`region:NAME`), to the peer-offset table and
/// to a per-call value (`value:NAME`, i32).
KernelParam regionParam(mlir::MLIRContext *ctx, const std::string &name);
KernelParam peerOffsetsParam(mlir::MLIRContext *ctx);
KernelParam valueParam(mlir::MLIRContext *ctx, const std::string &name);

/// Emits an error at `loc` and returns false unless the layout has a region
/// `name` of at least `bytes` bytes (the kernel addresses that many).
bool checkRegion(mlir::Location loc, const MoeKernelContext &ctx,
                 const std::string &name, int64_t bytes);

mlir::Value i32Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value i64Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// Address of element `index` (i32 or i64, zero-extended when i32 and
/// `unsignedIndex`) of `elementType` from `base`.
mlir::Value elementPtr(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                       mlir::Type elementType, mlir::Value index);
/// base[index] and base[index] = value; `index` as in elementPtr.
mlir::Value loadAt(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                   mlir::Value base, mlir::Value index, unsigned align = 0);
void storeAt(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
             mlir::Value base, mlir::Value index, unsigned align = 0);

/// i64 zero extension of a non-negative i32 (offsets above 2^31 bytes).
mlir::Value widen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value umin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::Value y);

/// Thread coordinates as i32.
mlir::Value threadIdX(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value blockIdX(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value gridDimX(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value laneId(mlir::OpBuilder &b, mlir::Location loc);

/// for (iv = begin; iv < end; iv += step) body(iv), over i32 values.
void forLoop(mlir::OpBuilder &b, mlir::Location loc, mlir::Value begin,
             mlir::Value end, mlir::Value step,
             llvm::function_ref<void(mlir::OpBuilder &, mlir::Value)> body);
/// if (cond) then(); with an optional else.
void ifThen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
            llvm::function_ref<void(mlir::OpBuilder &)> thenBody,
            llvm::function_ref<void(mlir::OpBuilder &)> elseBody = nullptr);

/// fence.sc.sys: the thread's prior (remote) stores are visible to every
/// GPU of the system before its later accesses.
void systemFence(mlir::OpBuilder &b, mlir::Location loc);

} // namespace megamoe::moe

#endif // MEGAMOE_LIB_KERNELS_MOEKERNELUTIL_H
