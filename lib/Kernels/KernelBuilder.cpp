//===- KernelBuilder.cpp - kernels whose parameters the runtime binds -----===//
#include "megamoe/Kernels/KernelBuilder.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using megamoe::BoundKernel;

BoundKernel::BoundKernel(warpspec::KernelOp op, ArrayRef<KernelParam> params)
    : op_(op) {
  for (const KernelParam &p : params)
    names_.push_back(p.name);
}

Value BoundKernel::find(StringRef name) const {
  auto lookup = [&](StringRef wanted) -> Value {
    for (auto [i, n] : llvm::enumerate(names_))
      if (n == wanted)
        return warpspec::KernelOp(op_).getBody().front().getArgument(i);
    return Value();
  };
  if (!prefix_.empty())
    if (Value v = lookup(prefix_ + name.str()))
      return v;
  return lookup(name);
}

BoundKernel BoundKernel::preferring(StringRef prefix) const {
  BoundKernel view = *this;
  view.prefix_ = prefix.str();
  return view;
}

Value BoundKernel::arg(StringRef name) const {
  Value v = find(name);
  if (!v)
    llvm::report_fatal_error(llvm::Twine("kernel '") +
                             warpspec::KernelOp(op_).getSymName() +
                             "' has no parameter '" + name + "'");
  return v;
}

BoundKernel megamoe::createBoundKernel(OpBuilder &b, Location loc,
                                       StringRef name,
                                       ArrayRef<KernelParam> params,
                                       int64_t threads, int64_t maxnreg,
                                       StringRef chip,
                                       ArrayRef<Attribute> grid) {
  SmallVector<Type> types;
  SmallVector<Attribute> argAttrs;
  for (const KernelParam &p : params) {
    types.push_back(p.type);
    SmallVector<NamedAttribute> attrs = {b.getNamedAttr(
        ::megamoe::manifest::kParamName, b.getStringAttr(p.name))};
    if (!p.bind.empty())
      attrs.push_back(b.getNamedAttr(::megamoe::manifest::kParamBind,
                                     b.getStringAttr(p.bind)));
    if (p.tma)
      attrs.push_back(b.getNamedAttr(::megamoe::manifest::kTma, p.tma));
    argAttrs.push_back(b.getDictionaryAttr(attrs));
  }
  auto kernel = warpspec::KernelOp::create(
      b, loc, name, b.getFunctionType(types, {}), b.getArrayAttr(argAttrs),
      ArrayAttr(), static_cast<int32_t>(threads), static_cast<int32_t>(maxnreg),
      chip, DenseI32ArrayAttr(), IntegerAttr());
  kernel->setAttr(::megamoe::manifest::kGrid, b.getArrayAttr(grid));
  Block *body = &kernel.getBody().emplaceBlock();
  for (Type t : types)
    body->addArgument(t, loc);
  b.setInsertionPointToStart(body);
  return BoundKernel(kernel, params);
}

SmallVector<Attribute, 3> megamoe::persistentGrid(Builder &b) {
  return persistentGrid(b, 0);
}

SmallVector<Attribute, 3> megamoe::persistentGrid(Builder &b, int64_t maxCtas) {
  namespace mf = ::megamoe::manifest;
  SmallVector<NamedAttribute, 2> x{
      b.getNamedAttr(mf::kGridCtas, b.getStringAttr(mf::kNumSms))};
  if (maxCtas > 0)
    x.push_back(b.getNamedAttr(mf::kGridMax, b.getI64IntegerAttr(maxCtas)));
  return {b.getDictionaryAttr(x), b.getI64IntegerAttr(1),
          b.getI64IntegerAttr(1)};
}

SmallVector<Attribute, 3> megamoe::singleCtaGrid(Builder &b) {
  return {b.getI64IntegerAttr(1), b.getI64IntegerAttr(1),
          b.getI64IntegerAttr(1)};
}

warpspec::RoleOp megamoe::createPlannedRole(OpBuilder &b, Location loc,
                                            const config::RolePlan &role) {
  auto op = warpspec::RoleOp::create(b, loc, role.name, role.warpBegin,
                                     role.warpEnd, role.registers, role.mma);
  op.getBody().emplaceBlock();
  return op;
}
