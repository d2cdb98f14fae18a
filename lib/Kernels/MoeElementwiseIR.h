//===- MoeElementwiseIR.h - element-wise kernel IR helpers ----*- C++ -*-===//
//
// Private to lib/Kernels: the few IR idioms moe_activation and the combine
// kernels share (byte-addressed global loads and stores, vectors, bounds,
// grid-stride loops). Constants, thread coordinates and the system fence
// are MoeKernelUtil's, shared with the routing kernels. Plain upstream ops
// only.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_MOEELEMENTWISEIR_H
#define MEGAMOE_LIB_KERNELS_MOEELEMENTWISEIR_H

#include "MoeKernelUtil.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace megamoe::ewir {

using moe::blockIdX;
using moe::gridDimX;
using moe::i32Const;
using moe::i64Const;
using moe::systemFence;
using moe::threadIdX;

inline mlir::Value f32Const(mlir::OpBuilder &b, mlir::Location loc, double v) {
  return mlir::arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}
/// An i32 (non-negative) widened to i64 for byte offsets.
inline mlir::Value toI64(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value v) {
  return mlir::arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
}

inline mlir::Type globalPtrType(mlir::OpBuilder &b) {
  return moe::globalPtrType(b.getContext());
}

/// `base + bytes` (bytes: i64) as a global pointer.
inline mlir::Value byteOffset(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value base, mlir::Value bytes) {
  return mlir::LLVM::GEPOp::create(b, loc, globalPtrType(b), b.getI8Type(),
                                   base, mlir::ValueRange{bytes});
}

/// `base[index]` of an array of `elementBytes`-byte elements (index: i64).
inline mlir::Value elementPtr(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value base, mlir::Value index,
                              int64_t elementBytes) {
  mlir::Value bytes = mlir::arith::MulIOp::create(
      b, loc, index, i64Const(b, loc, elementBytes));
  return byteOffset(b, loc, base, bytes);
}

inline mlir::Value load(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                        mlir::Value ptr, unsigned alignment = 0) {
  return mlir::LLVM::LoadOp::create(b, loc, type, ptr, alignment);
}
inline void store(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                  mlir::Value ptr, unsigned alignment = 0) {
  mlir::LLVM::StoreOp::create(b, loc, value, ptr, alignment);
}

/// The 16 bytes of a vector copy: ld/st.global.v4.b32.
inline mlir::Type vector16BytesType(mlir::OpBuilder &b) {
  return mlir::VectorType::get({4}, b.getI32Type());
}

/// Element `i` of an LLVM-compatible vector value.
inline mlir::Value extractElement(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value vector, int64_t i) {
  return mlir::LLVM::ExtractElementOp::create(b, loc, vector,
                                              i32Const(b, loc, i));
}

/// min(max(v, 0), hi) for i32: a count read from memory, bounded so that no
/// value written by a faulty earlier stage can index out of bounds.
inline mlir::Value clampCount(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value v, int64_t hi) {
  mlir::Value lo = mlir::arith::MaxSIOp::create(b, loc, v, i32Const(b, loc, 0));
  return mlir::arith::MinSIOp::create(b, loc, lo, i32Const(b, loc, hi));
}

/// lo <= v < hi for i32 or i64 values (signed).
inline mlir::Value inRange(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, mlir::Value lo, mlir::Value hi) {
  using mlir::arith::CmpIPredicate;
  mlir::Value ge =
      mlir::arith::CmpIOp::create(b, loc, CmpIPredicate::sge, v, lo);
  mlir::Value lt =
      mlir::arith::CmpIOp::create(b, loc, CmpIPredicate::slt, v, hi);
  return mlir::arith::AndIOp::create(b, loc, ge, lt);
}

/// for (i = first; i < count; i += step) body(i), i32 induction (the
/// grid-stride loop: correct for any grid). The loop op exists before `body`
/// runs, so the body can look up enclosing symbol tables (buildExpF32).
inline void stridedLoop(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value first,
    mlir::Value count, mlir::Value step,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value)>
        body) {
  auto loop = mlir::scf::ForOp::create(b, loc, first, count, step);
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(b, loc, loop.getInductionVar());
}

} // namespace megamoe::ewir

#endif // MEGAMOE_LIB_KERNELS_MOEELEMENTWISEIR_H
