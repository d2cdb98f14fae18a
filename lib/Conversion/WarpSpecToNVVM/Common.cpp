//===- Common.cpp - helpers shared by the warpspec lowering ---------------===//
#include "Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::warpspec;

Value warpspec::i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value warpspec::i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

Value warpspec::toI32(OpBuilder &b, Location loc, Value index) {
  if (index.getType().isInteger(32))
    return index;
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
}

Value warpspec::toI64(OpBuilder &b, Location loc, Value index) {
  if (index.getType().isInteger(64))
    return index;
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
}

Value warpspec::dynamicSmemBase(OpBuilder &b, Location loc) {
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), kDynamicSmemName);
}

Value warpspec::smemOffset(OpBuilder &b, Location loc, Value base,
                           Value byteOffset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{byteOffset});
}

Value warpspec::smemOffset(OpBuilder &b, Location loc, Value base,
                           int64_t byteOffset) {
  if (byteOffset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{byteOffset});
}

Value warpspec::uniformWarpId(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  Value tid = NVVM::ThreadIdXOp::create(b, loc, i32);
  Value warp = arith::DivUIOp::create(b, loc, tid, i32Const(b, loc, 32));
  return NVVM::ShflOp::create(b, loc, i32, i32Const(b, loc, -1), warp,
                              i32Const(b, loc, 0), i32Const(b, loc, 31),
                              NVVM::ShflKind::idx, UnitAttr());
}

Value warpspec::threadInWarpgroup(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return arith::RemUIOp::create(b, loc, tid, i32Const(b, loc, 128));
}

Value warpspec::isLaneZero(OpBuilder &b, Location loc) {
  Value lane = NVVM::LaneIdOp::create(b, loc, b.getI32Type());
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                               i32Const(b, loc, 0));
}

void warpspec::buildIf(OpBuilder &b, Location loc, Value cond,
                       function_ref<void(OpBuilder &, Location)> body) {
  scf::IfOp::create(b, loc, cond, [&](OpBuilder &nb, Location nl) {
    body(nb, nl);
    scf::YieldOp::create(nb, nl);
  });
}

void warpspec::emitTmaStore(OpBuilder &b, Location loc, Value desc, Value src,
                            ValueRange coords) {
  buildIf(b, loc, isLaneZero(b, loc), [&](OpBuilder &ib, Location l) {
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        ib, l, desc, src, coords, Value(), NVVM::TMAStoreMode::TILE, Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(ib, l);
  });
}

Value warpspec::mbarrierAddress(OpBuilder &b, Location loc, Value base,
                                unsigned stages, bool isEmpty, Value stage) {
  Value index = toI32(b, loc, stage);
  if (isEmpty)
    index = arith::AddIOp::create(b, loc, index, i32Const(b, loc, stages));
  Value bytes = arith::MulIOp::create(b, loc, index, i32Const(b, loc, 8));
  return smemOffset(b, loc, base, bytes);
}

Value warpspec::slotAddress(OpBuilder &b, Location loc, SmemType type,
                            Value base, Value stage, int64_t extraBytes) {
  Value s = toI32(b, loc, stage);
  Value bytes =
      arith::MulIOp::create(b, loc, s, i32Const(b, loc, type.getSlotStride()));
  if (extraBytes)
    bytes = arith::AddIOp::create(b, loc, bytes, i32Const(b, loc, extraBytes));
  return smemOffset(b, loc, base, bytes);
}

/// Bits [4, 4+B) of the swizzle: bits [7, 7+B) of `off` (B = log2(S / 16)),
/// moved down to be XORed into the 16-byte chunk index.
Value warpspec::swizzleBits(OpBuilder &b, Location loc, Value off, unsigned swizzle) {
  Value bits = arith::ShRUIOp::create(b, loc, off, i32Const(b, loc, 7));
  bits =
      arith::AndIOp::create(b, loc, bits, i32Const(b, loc, swizzle / 16 - 1));
  return arith::ShLIOp::create(b, loc, bits, i32Const(b, loc, 4));
}

std::string warpspec::manifestDType(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return "e4m3";
  if (isa<Float8E5M2Type>(t))
    return "e5m2";
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isF32())
    return "f32";
  if (t.isInteger(8))
    return "u8";
  if (t.isInteger(32))
    return "i32";
  return "";
}

Value warpspec::inlinePtx(OpBuilder &b, Location loc, Type result,
                          ValueRange operands, StringRef text,
                          StringRef constraints, bool sideEffects) {
  return LLVM::InlineAsmOp::create(
             b, loc, result, operands, text, constraints, sideEffects,
             /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}
