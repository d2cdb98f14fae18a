//===- LowerKernel.cpp - kernel, return, roles, role.warp_id --------------===//
//
// Roles become one if/else chain over warp ranges. Each branch covers whole
// warpgroups with the same roles and starts with that warpgroup's
// setmaxnreg (inc above the kernel's maxnreg, dec below): setmaxnreg is
// warpgroup-collective and ptxas honours it only when each warpgroup's code
// is one branch of a single if/else (else it warns C7508).
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/ManifestNames.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

struct RoleWarpIdLowering : OpConversionPattern<RoleWarpIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RoleWarpIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto role = op->getParentOfType<RoleOp>();
    if (!role)
      return op.emitError("warpspec.role.warp_id outside a role");
    Location loc = op.getLoc();
    Value w =
        arith::SubIOp::create(rewriter, loc, uniformWarpId(rewriter, loc),
                              i32Const(rewriter, loc, role.getWarpBegin()));
    rewriter.replaceOpWithNewOp<arith::IndexCastUIOp>(
        op, rewriter.getIndexType(), w);
    return success();
  }
};

/// CTAs per cluster of the kernel around `op` (a warpspec.kernel, or the
/// llvm.func it already became).
int64_t clusterSizeOf(Operation *op) {
  if (auto kernel = op->getParentOfType<KernelOp>())
    return kernel.getClusterSize();
  int64_t ctas = 1;
  if (auto func = op->getParentOfType<LLVM::LLVMFuncOp>())
    if (auto dims = func->getAttrOfType<DenseI32ArrayAttr>(
            NVVM::NVVMDialect::getClusterDimAttrName()))
      for (int32_t d : dims.asArrayRef())
        ctas *= d;
  return ctas;
}

struct ReturnLowering : OpConversionPattern<ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // In a cluster a peer may still arrive on this CTA's mbarriers or
    // multicast into its shared memory: every CTA waits for all of them
    // before any exits (non-aligned: the roles reach it from different
    // code).
    if (clusterSizeOf(op) > 1) {
      NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), UnitAttr());
      NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), UnitAttr());
    }
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange{});
    return success();
  }
};

/// A run of consecutive warps dispatched as one branch.
struct Segment {
  unsigned warpBegin, warpEnd;
  unsigned regs;
  SmallVector<RoleOp> roles;
};

/// Groups warpgroups with the same roles; warpgroups with no role and the
/// kernel's register budget are left out (their warps skip the roles).
SmallVector<Segment> buildSegments(RolesOp roles, unsigned numWarps,
                                   unsigned maxnreg) {
  SmallVector<Segment> segments;
  for (unsigned wg = 0; wg * 4 < numWarps; ++wg) {
    unsigned lo = 4 * wg, hi = std::min(numWarps, 4 * wg + 4);
    Segment s{lo, hi, maxnreg, {}};
    for (auto role : roles.getBody().front().getOps<RoleOp>())
      if (role.getWarpBegin() < hi && role.getWarpEnd() > lo) {
        s.roles.push_back(role);
        s.regs = role.getRegs();
      }
    if (s.roles.empty() && s.regs == maxnreg)
      continue;
    if (!segments.empty() && segments.back().warpEnd == lo &&
        segments.back().regs == s.regs && segments.back().roles == s.roles) {
      segments.back().warpEnd = hi;
      continue;
    }
    segments.push_back(s);
  }
  return segments;
}

Value warpInRange(OpBuilder &b, Location loc, Value warp, unsigned lo,
                  unsigned hi) {
  Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warp,
                                   i32Const(b, loc, lo));
  Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warp,
                                   i32Const(b, loc, hi));
  return arith::AndIOp::create(b, loc, ge, lt);
}

struct RolesLowering : OpConversionPattern<RolesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RolesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The kernel may already be an llvm.func (parents convert first).
    unsigned maxnreg = 0, numWarps = 0;
    if (auto kernel = op->getParentOfType<KernelOp>()) {
      maxnreg = kernel.getMaxnreg();
      numWarps = kernel.getNumWarps();
    } else if (auto func = op->getParentOfType<LLVM::LLVMFuncOp>()) {
      if (auto reg = func->getAttrOfType<IntegerAttr>(
              NVVM::NVVMDialect::getMaxnregAttrName()))
        maxnreg = reg.getInt();
      if (auto ntid = func->getAttrOfType<DenseI32ArrayAttr>(
              NVVM::NVVMDialect::getReqntidAttrName()))
        numWarps = ntid.asArrayRef()[0] / 32;
    }
    if (!maxnreg || !numWarps)
      return op.emitError("warpspec.roles outside a lowered warpspec.kernel");
    Location loc = op.getLoc();
    SmallVector<Segment> segments = buildSegments(op, numWarps, maxnreg);
    Value warp = uniformWarpId(rewriter, loc);

    // Builds "if (segment i) {...} else { segments i+1... }" at the
    // rewriter's insertion point.
    std::function<void(unsigned)> emit = [&](unsigned i) {
      if (i == segments.size())
        return;
      Segment &seg = segments[i];
      Value cond = warpInRange(rewriter, loc, warp, seg.warpBegin, seg.warpEnd);
      bool hasElse = i + 1 < segments.size();
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, cond, hasElse);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      if (seg.regs > maxnreg)
        NVVM::SetMaxRegisterOp::create(rewriter, loc, seg.regs,
                                       NVVM::SetMaxRegisterAction::increase);
      else if (seg.regs < maxnreg)
        NVVM::SetMaxRegisterOp::create(rewriter, loc, seg.regs,
                                       NVVM::SetMaxRegisterAction::decrease);
      for (RoleOp role : seg.roles) {
        Block *body = &role.getBody().front();
        bool whole = role.getWarpBegin() <= seg.warpBegin &&
                     role.getWarpEnd() >= seg.warpEnd;
        if (whole) {
          rewriter.inlineBlockBefore(body, ifOp.thenBlock()->getTerminator());
          continue;
        }
        Value inRole = warpInRange(rewriter, loc, warp, role.getWarpBegin(),
                                   role.getWarpEnd());
        auto inner =
            scf::IfOp::create(rewriter, loc, TypeRange{}, inRole, false);
        rewriter.inlineBlockBefore(body, inner.thenBlock()->getTerminator());
      }
      if (hasElse) {
        rewriter.setInsertionPoint(ifOp.elseBlock()->getTerminator());
        emit(i + 1);
      }
    };
    // A role whose warps span several segments (e.g. different registers
    // per warpgroup) would need its body twice; the verifier's rule that
    // roles sharing a warpgroup share registers keeps that from happening
    // except for a role spanning warpgroups with different partners.
    DenseMap<Operation *, int> uses;
    for (Segment &s : segments)
      for (RoleOp r : s.roles)
        if (++uses[r] > 1)
          return r.emitError("role '")
                 << r.getName()
                 << "' spans warpgroups dispatched separately (they hold "
                    "different roles); split it into one role per warpgroup";
    rewriter.setInsertionPoint(op);
    emit(0);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The manifest's TMA descriptor spec of a kernel argument.
DictionaryAttr tmaSpec(Builder &b, TmaDescType t, DictionaryAttr userSpec) {
  NamedAttrList spec;
  spec.set("dtype", b.getStringAttr(manifestDType(t.getElementType())));
  spec.set("rank", b.getI64IntegerAttr(t.getBox().size()));
  SmallVector<int64_t> box(llvm::reverse(t.getBox())); // innermost first
  spec.set("box", b.getI64ArrayAttr(box));
  spec.set("element_strides",
           b.getI64ArrayAttr(SmallVector<int64_t>(box.size(), 1)));
  spec.set("swizzle",
           b.getStringAttr(t.getSwizzle() ? std::to_string(t.getSwizzle()) + "B"
                                          : std::string("none")));
  spec.set("interleave", b.getStringAttr("none"));
  spec.set("l2_promotion", b.getStringAttr("256B"));
  spec.set("oob_fill", b.getStringAttr("zero"));
  // Global shape/strides are runtime data of the descriptor: the kernel's
  // author states them (symbolically) in the argument's megamoe.tma.
  if (userSpec)
    for (NamedAttribute a : userSpec)
      spec.set(a.getName(), a.getValue());
  return spec.getDictionary(b.getContext());
}

struct KernelLowering : OpConversionPattern<KernelOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(KernelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getFunctionType().getNumResults() != 0)
      return op.emitError("a kernel returns nothing");
    MLIRContext *ctx = rewriter.getContext();
    const TypeConverter &tc = *getTypeConverter();
    TypeConverter::SignatureConversion sig(op.getNumArguments());
    SmallVector<Type> argTypes;
    for (auto [i, t] : llvm::enumerate(op.getArgumentTypes())) {
      Type c = tc.convertType(t);
      if (!c)
        return op.emitError("cannot lower kernel argument type ") << t;
      sig.addInputs(i, c);
      argTypes.push_back(c);
    }
    auto funcType =
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), argTypes);
    auto func = LLVM::LLVMFuncOp::create(rewriter, op.getLoc(), op.getSymName(),
                                         funcType);
    // Discardable megamoe.* attributes (e.g. megamoe.grid) go along.
    for (NamedAttribute a : op->getDiscardableAttrs())
      func->setAttr(a.getName(), a.getValue());
    func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                  rewriter.getUnitAttr());
    func->setAttr(
        NVVM::NVVMDialect::getReqntidAttrName(),
        rewriter.getDenseI32ArrayAttr({(int32_t)op.getThreads(), 1, 1}));
    func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                  rewriter.getI32IntegerAttr(op.getMaxnreg()));
    if (auto cluster = op.getClusterAttr())
      func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(), cluster);
    func->setAttr(::megamoe::manifest::kDynamicSmem,
                  rewriter.getI64IntegerAttr(op.getSmemBytes().value_or(0)));
    for (unsigned i = 0; i < op.getNumArguments(); ++i) {
      SmallVector<NamedAttribute> attrs;
      if (DictionaryAttr user = op.getArgAttrDict(i))
        for (NamedAttribute a : user)
          if (a.getName() != ::megamoe::manifest::kTma)
            attrs.push_back(a);
      if (auto t = dyn_cast<TmaDescType>(op.getArgumentTypes()[i])) {
        attrs.push_back(
            rewriter.getNamedAttr(LLVM::LLVMDialect::getByValAttrName(),
                                  TypeAttr::get(LLVM::LLVMArrayType::get(
                                      rewriter.getI8Type(), 128))));
        attrs.push_back(
            rewriter.getNamedAttr(LLVM::LLVMDialect::getAlignAttrName(),
                                  rewriter.getI64IntegerAttr(64)));
        attrs.push_back(
            rewriter.getNamedAttr(NVVM::NVVMDialect::getGridConstantAttrName(),
                                  rewriter.getUnitAttr()));
        attrs.push_back(
            rewriter.getNamedAttr(::megamoe::manifest::kTma,
                                  tmaSpec(rewriter, t,
                                          op.getArgAttrOfType<DictionaryAttr>(
                                              i, ::megamoe::manifest::kTma))));
      }
      func.setArgAttrs(i, attrs);
    }
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    if (op.getProgrammaticLaunch()) {
      func->setAttr(::megamoe::manifest::kProgrammaticLaunch,
                    rewriter.getUnitAttr());
      // Before anything of the body: wait for the previous grid, then let
      // the next one be scheduled (the kernel op's description).
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&func.getBody().front());
      NVVM::GriddepcontrolOp::create(rewriter, op.getLoc(),
                                     NVVM::GridDepActionKind::wait);
      if (op.getTriggerDependentsAtEntry())
        NVVM::GriddepcontrolOp::create(
            rewriter, op.getLoc(), NVVM::GridDepActionKind::launch_dependents);
    }
    if (failed(rewriter.convertRegionTypes(&func.getBody(), tc, &sig)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void warpspec::populateWarpSpecStructureLeafPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<RoleWarpIdLowering>(converter, patterns.getContext());
}

void warpspec::populateWarpSpecKernelPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<KernelLowering, ReturnLowering, RolesLowering>(
      converter, patterns.getContext());
}
