//===- MoeKernelUtil.cpp - helpers of route/layout/pull -------------------===//
#include "MoeKernelUtil.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace megamoe::moe {

Type globalPtrType(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx, 1);
}

KernelParam regionParam(MLIRContext *ctx, const std::string &name) {
  return {name, "region:" + name, globalPtrType(ctx)};
}

KernelParam peerOffsetsParam(MLIRContext *ctx) {
  return {"peer_offsets", "peer_offsets", globalPtrType(ctx)};
}

KernelParam valueParam(MLIRContext *ctx, const std::string &name) {
  return {name, "value:" + name, IntegerType::get(ctx, 32)};
}

bool checkRegion(Location loc, const MoeKernelContext &ctx,
                 const std::string &name, int64_t bytes) {
  const config::Region *region = ctx.layout.find(name);
  if (!region) {
    emitError(loc) << "the buffer layout has no region '" << name
                   << "' (schedule=unfused needs it)";
    return false;
  }
  if (region->bytes < bytes) {
    emitError(loc) << "region '" << name << "' has " << region->bytes
                   << " bytes, the kernel addresses " << bytes;
    return false;
  }
  return true;
}

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}

Value widen(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(64))
    return v;
  return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
}

Value elementPtr(OpBuilder &b, Location loc, Value base, Type elementType,
                 Value index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), elementType, base,
                             ValueRange{widen(b, loc, index)});
}

Value loadAt(OpBuilder &b, Location loc, Type type, Value base, Value index,
             unsigned align) {
  return LLVM::LoadOp::create(b, loc, type,
                              elementPtr(b, loc, base, type, index), align);
}

void storeAt(OpBuilder &b, Location loc, Value value, Value base, Value index,
             unsigned align) {
  LLVM::StoreOp::create(
      b, loc, value, elementPtr(b, loc, base, value.getType(), index), align);
}

Value umin(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MinUIOp::create(b, loc, x, y);
}

Value threadIdX(OpBuilder &b, Location loc) {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}
Value blockIdX(OpBuilder &b, Location loc) {
  return NVVM::BlockIdXOp::create(b, loc, b.getI32Type());
}
Value gridDimX(OpBuilder &b, Location loc) {
  return NVVM::GridDimXOp::create(b, loc, b.getI32Type());
}
Value laneId(OpBuilder &b, Location loc) {
  return NVVM::LaneIdOp::create(b, loc, b.getI32Type());
}

void forLoop(OpBuilder &b, Location loc, Value begin, Value end, Value step,
             function_ref<void(OpBuilder &, Value)> body) {
  scf::ForOp::create(b, loc, begin, end, step, ValueRange{},
                     [&](OpBuilder &lb, Location l, Value iv, ValueRange) {
                       body(lb, iv);
                       scf::YieldOp::create(lb, l);
                     });
}

void ifThen(OpBuilder &b, Location loc, Value cond,
            function_ref<void(OpBuilder &)> thenBody,
            function_ref<void(OpBuilder &)> elseBody) {
  auto op = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/bool(elseBody));
  OpBuilder tb = op.getThenBodyBuilder();
  thenBody(tb);
  if (elseBody) {
    OpBuilder eb = op.getElseBodyBuilder();
    elseBody(eb);
  }
}

void systemFence(OpBuilder &b, Location loc) {
  // seq_cst at system scope (no syncscope) is fence.sc.sys on NVPTX.
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::seq_cst);
}

} // namespace megamoe::moe
