//===- WarpSpecVerifyUtils.h - helpers shared by the op verifiers -*- C++
//-*-===//
#ifndef MEGAMOE_LIB_DIALECT_WARPSPEC_IR_WARPSPECVERIFYUTILS_H
#define MEGAMOE_LIB_DIALECT_WARPSPEC_IR_WARPSPECVERIFYUTILS_H

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

namespace mlir::warpspec::checks {

/// Emits "must be inside a warpspec.role" unless `op` is nested in a role.
LogicalResult verifyInsideRole(Operation *op);

/// Checks that `op` runs in a role that takes part in `barrier` (when it is
/// a warpspec.named_barrier).
LogicalResult verifyBarrierUse(Operation *op, Value barrier);

/// The chip of the enclosing kernel, or "" outside a kernel.
StringRef getKernelChip(Operation *op);

/// Fails with a message if the enclosing kernel's chip is not `prefix`*.
LogicalResult verifyChip(Operation *op, StringRef prefix, StringRef chipName);

/// Checks a stage index used with `buffer`: a constant must be below the
/// slot count; a stage produced by a pipeline must come from a pipeline with
/// one stage per slot.
LogicalResult verifyStageForBuffer(Operation *op, Value stage, SmemType buffer);

/// The pipeline whose acquire/wait produced `stage`, or null.
Value getStagePipeline(Value stage);

/// Checks that `stage`, when produced by a pipeline op, comes from
/// `pipeline` and from the wanted side (producer.acquire if `wantProducer`,
/// consumer.wait otherwise).
LogicalResult verifyStageSource(Operation *op, Value stage, Value pipeline,
                                bool wantProducer);

/// Checks that the enclosing kernel runs clusters of `ctas` CTAs along x
/// (`cluster = [ctas, 1, 1]`); `what` names the op's use in the message.
LogicalResult verifyKernelCluster(Operation *op, int64_t ctas, StringRef what);

/// Bytes of one element of `type` (integers and floats).
int64_t elementBytes(Type type);

bool isFp8(Type type);

} // namespace mlir::warpspec::checks

#endif // MEGAMOE_LIB_DIALECT_WARPSPEC_IR_WARPSPECVERIFYUTILS_H
