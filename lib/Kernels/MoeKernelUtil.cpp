//===- MoeKernelUtil.cpp - IR helpers of the layer kernels ----------------===//
#include "MoeKernelUtil.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
namespace ws = mlir::warpspec;

namespace megamoe::moe {

ws::GlobalType globalType(Type elementType) {
  return ws::GlobalType::get(elementType.getContext(), elementType);
}

KernelParam regionParam(MLIRContext *ctx, const std::string &name,
                        Type elementType) {
  return {name, "region:" + name, globalType(elementType)};
}

KernelParam peerOffsetsParam(MLIRContext *ctx) {
  return {"peer_offsets", "peer_offsets",
          globalType(IntegerType::get(ctx, 64))};
}

KernelParam valueParam(MLIRContext *ctx, const std::string &name) {
  return {name, "value:" + name, IntegerType::get(ctx, 32)};
}

const KernelParam *appendParams(SmallVectorImpl<KernelParam> &params,
                                ArrayRef<KernelParam> more) {
  for (const KernelParam &p : more) {
    auto same = llvm::find_if(
        params, [&](const KernelParam &q) { return q.name == p.name; });
    if (same == params.end())
      params.push_back(p);
    else if (same->bind != p.bind || same->type != p.type)
      return &p;
  }
  return nullptr;
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

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value indexToI32(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
}

Value blockStart(OpBuilder &b, Location loc, Value block, int64_t size) {
  return indexToI32(
      b, loc, arith::MulIOp::create(b, loc, block, indexConst(b, loc, size)));
}

Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value widen(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(64))
    return v;
  return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
}

Value castPtr(OpBuilder &b, Location loc, Value ptr, Type elementType) {
  ws::GlobalType type = globalType(elementType);
  if (ptr.getType() == type)
    return ptr;
  // A cast of a cast reads the original pointer (the fold of global.cast).
  if (auto cast = ptr.getDefiningOp<ws::GlobalCastOp>())
    ptr = cast.getSource();
  if (ptr.getType() == type)
    return ptr;
  return ws::GlobalCastOp::create(b, loc, type, ptr);
}

Value elementPtr(OpBuilder &b, Location loc, Value base, Type elementType,
                 Value index) {
  return ws::GlobalOffsetOp::create(b, loc, castPtr(b, loc, base, elementType),
                                    index);
}

Value byteOffset(OpBuilder &b, Location loc, Value base, Value bytes) {
  return elementPtr(b, loc, base, b.getI8Type(), bytes);
}

Value rowPtr(OpBuilder &b, Location loc, Value base, Value index,
             int64_t rowBytes) {
  Value bytes =
      arith::MulIOp::create(b, loc, index, i64Const(b, loc, rowBytes));
  return byteOffset(b, loc, base, bytes);
}

Value poolRowStartIndex(OpBuilder &b, Location loc, Value l, Value r,
                        int64_t ranks) {
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, l, i32Const(b, loc, ranks + 1)),
      r);
}

static IntegerAttr alignAttr(OpBuilder &b, unsigned align) {
  return align ? b.getI64IntegerAttr(align) : IntegerAttr();
}

Value load(OpBuilder &b, Location loc, Type type, Value ptr, unsigned align) {
  return ws::GlobalLoadOp::create(b, loc, castPtr(b, loc, ptr, type),
                                  alignAttr(b, align));
}

void store(OpBuilder &b, Location loc, Value value, Value ptr,
           unsigned align) {
  ws::GlobalStoreOp::create(b, loc, value,
                            castPtr(b, loc, ptr, value.getType()),
                            alignAttr(b, align));
}

Value loadAt(OpBuilder &b, Location loc, Type type, Value base, Value index,
             unsigned align) {
  return load(b, loc, type, elementPtr(b, loc, base, type, index), align);
}

void storeAt(OpBuilder &b, Location loc, Value value, Value base, Value index,
             unsigned align) {
  store(b, loc, value, elementPtr(b, loc, base, value.getType(), index),
        align);
}

Value atomicAdd(OpBuilder &b, Location loc, Value ptr, Value value) {
  return ws::GlobalAtomicOp::create(b, loc, ws::AtomicKind::add,
                                    castPtr(b, loc, ptr, value.getType()),
                                    value);
}

Type vector16BytesType(OpBuilder &b) {
  return VectorType::get({4}, b.getI32Type());
}

Value umin(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MinUIOp::create(b, loc, x, y);
}

Value clampCount(OpBuilder &b, Location loc, Value v, int64_t hi) {
  Value lo = arith::MaxSIOp::create(b, loc, v, i32Const(b, loc, 0));
  return arith::MinSIOp::create(b, loc, lo, i32Const(b, loc, hi));
}

Value inRange(OpBuilder &b, Location loc, Value v, Value lo, Value hi) {
  Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v, lo);
  Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, hi);
  return arith::AndIOp::create(b, loc, ge, lt);
}

/// An index-typed GPU coordinate as i32 (the hardware register's width).
static Value toI32(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
}

namespace {
/// The nesting depth of OpaqueSpecialRegisters scopes being built.
thread_local int opaqueSpecialRegisterScopes = 0;

/// `mov.u32 $0, %<name>` as inline PTX with side effects: never merged with
/// another read of the register, nor hoisted.
Value opaqueSpecialRegister(OpBuilder &b, Location loc, StringRef name) {
  std::string text = ("mov.u32 $0, %" + name + ";").str();
  return LLVM::InlineAsmOp::create(
             b, loc, b.getI32Type(), ValueRange{}, text, "=r",
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
             ArrayAttr())
      .getResult(0);
}
} // namespace

OpaqueSpecialRegisters::OpaqueSpecialRegisters() {
  ++opaqueSpecialRegisterScopes;
}
OpaqueSpecialRegisters::~OpaqueSpecialRegisters() {
  --opaqueSpecialRegisterScopes;
}

Value threadIdX(OpBuilder &b, Location loc) {
  if (opaqueSpecialRegisterScopes)
    return opaqueSpecialRegister(b, loc, "tid.x");
  return toI32(b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
}
Value blockIdX(OpBuilder &b, Location loc) {
  if (opaqueSpecialRegisterScopes)
    return opaqueSpecialRegister(b, loc, "ctaid.x");
  return toI32(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
}
Value gridDimX(OpBuilder &b, Location loc) {
  if (opaqueSpecialRegisterScopes)
    return opaqueSpecialRegister(b, loc, "nctaid.x");
  return toI32(b, loc, gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
}
Value laneId(OpBuilder &b, Location loc) {
  if (opaqueSpecialRegisterScopes)
    return opaqueSpecialRegister(b, loc, "laneid");
  return toI32(b, loc,
               gpu::LaneIdOp::create(b, loc, /*upper_bound=*/IntegerAttr()));
}

void forLoop(OpBuilder &b, Location loc, Value begin, Value end, Value step,
             function_ref<void(OpBuilder &, Value)> body) {
  auto loop = scf::ForOp::create(b, loc, begin, end, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(b, loop.getInductionVar());
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
  ws::FenceOp::create(b, loc, ws::Scope::sys);
}

void gridBarrier(OpBuilder &b, Location loc, Value counter, StringRef name,
                 int64_t timeoutCycles, Value ctaBarrier, Value thread) {
  auto ctaSync = [&] {
    if (ctaBarrier)
      ws::BarrierSyncOp::create(b, loc, ctaBarrier);
    else
      gpu::BarrierOp::create(b, loc);
  };
  ctaSync();
  Value isThread0 = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      ctaBarrier ? thread : threadIdX(b, loc), i32Const(b, loc, 0));
  ifThen(b, loc, isThread0, [&](OpBuilder &tb) {
    ws::GridSyncOp::create(tb, loc, counter, gridDimX(tb, loc),
                           tb.getStringAttr(name),
                           tb.getI64IntegerAttr(timeoutCycles));
  });
  ctaSync();
}

void buildStageKernel(OpBuilder &b, Location loc, const MoeKernelContext &ctx,
                      StringRef base, SmallVector<KernelParam> params,
                      int64_t threads, int64_t maxnreg, ArrayRef<Attribute> grid,
                      function_ref<void(OpBuilder &, const BoundKernel &)> body) {
  OpBuilder::InsertionGuard guard(b);
  addProfileParam(params, ctx, base);
  BoundKernel kernel =
      createBoundKernel(b, loc, ctx.kernelName(base), params, threads, maxnreg,
                        config::toString(ctx.config.chip), grid);
  collectives::PhaseProfile profile = kernelProfile(kernel, ctx, base);
  profile.stampCta(b, loc, /*end=*/false);
  body(b, kernel);
  profile.stampCta(b, loc, /*end=*/true);
  ws::ReturnOp::create(b, loc);
}

void addProfileParam(SmallVectorImpl<KernelParam> &params,
                     const MoeKernelContext &ctx, StringRef base) {
  if (ctx.profileSection(base))
    params.push_back({kParamProfile, kProfileBind,
                      globalType(IntegerType::get(
                          params.front().type.getContext(), 64))});
}

collectives::PhaseProfile kernelProfile(const BoundKernel &kernel,
                                        const MoeKernelContext &ctx,
                                        StringRef base) {
  std::optional<ProfileSection> section = ctx.profileSection(base);
  if (!section)
    return {};
  return {kernel.arg(kParamProfile), *section};
}

} // namespace megamoe::moe
