//===- KernelBuilder.h - kernels whose parameters the runtime binds -*- C++
//-*-===//
//
// Every kernel of a layer schedule is launched by the runtime from its
// manifest entry alone: each parameter has a name and a binding
// (docs/UnfusedSchedule.md, "Parameter binding"). createBoundKernel is the one
// place that spells those argument attributes.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_KERNELS_KERNELBUILDER_H
#define MEGAMOE_KERNELS_KERNELBUILDER_H

#include "megamoe/Config/KernelPlan.h"
#include "megamoe/Conversion/ManifestNames.h"
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace megamoe {

/// One kernel parameter: its name, its binding ("region:x", "peer_offsets",
/// "input:y", "value:num_tokens"; empty = the caller passes it), its type and,
/// for a TMA descriptor, its `megamoe.tma` spec.
struct KernelParam {
  std::string name;
  std::string bind;
  mlir::Type type;
  mlir::DictionaryAttr tma = {};
};

/// Creates `warpspec.kernel @name` at the insertion point with these
/// parameters (names, bindings, TMA specs as argument attributes), the grid
/// `grid` (e.g. persistentGrid(b)), an entry block with one argument per
/// parameter; leaves the insertion point at the start of that block.
/// A kernel being built whose parameters are reached by name: the one way
/// every builder binds its parameters (no positional indices to keep in step
/// with the parameter list).
class BoundKernel {
public:
  BoundKernel(mlir::warpspec::KernelOp op, llvm::ArrayRef<KernelParam> params);
  mlir::warpspec::KernelOp op() const { return op_; }
  /// The argument of parameter `name` (a builder bug, and a fatal error,
  /// when the kernel has none).
  mlir::Value arg(llvm::StringRef name) const;
  /// The argument of parameter `name`, or null when this kernel has no such
  /// parameter (a build option left it out).
  mlir::Value find(llvm::StringRef name) const;
  /// A view of the same kernel in which `name` finds parameter
  /// `prefix + name` where the kernel has one, else `name`: code that reads
  /// its operands by their stage's names then uses its own copies of them.
  BoundKernel preferring(llvm::StringRef prefix) const;

private:
  mlir::warpspec::KernelOp op_;
  llvm::SmallVector<std::string> names_;
  std::string prefix_;
};

BoundKernel createBoundKernel(mlir::OpBuilder &b, mlir::Location loc,
                              llvm::StringRef name,
                              llvm::ArrayRef<KernelParam> params,
                              int64_t threads, int64_t maxnreg,
                              llvm::StringRef chip,
                              llvm::ArrayRef<mlir::Attribute> grid);

/// The warpspec.role of a role of a kernel plan (warps, registers, mma), at
/// the insertion point (inside warpspec.roles), with an empty body block.
mlir::warpspec::RoleOp createPlannedRole(mlir::OpBuilder &b, mlir::Location loc,
                                         const config::RolePlan &role);

/// The grid of a persistent kernel (one CTA per SM: {ctas = "num_sms"}, 1,
/// 1), of one capped at `maxCtas` CTAs (min(num_sms, maxCtas)), and of one
/// CTA (1, 1, 1) (docs/Manifest.md, "Launch shapes").
llvm::SmallVector<mlir::Attribute, 3> persistentGrid(mlir::Builder &b);
llvm::SmallVector<mlir::Attribute, 3> persistentGrid(mlir::Builder &b,
                                                     int64_t maxCtas);
llvm::SmallVector<mlir::Attribute, 3> singleCtaGrid(mlir::Builder &b);

} // namespace megamoe

#endif // MEGAMOE_KERNELS_KERNELBUILDER_H
