//===- MoeStages.h - the stage bodies of the layer's kernels --*- C++ -*-===//
//
// Each data-movement stage of the schedule (route, layout, pull, combine
// barrier, combine reduce) as three pieces: its parameters, the check of the
// regions it addresses and its body. A stage kernel (moe_route, ...) is one
// body in a kernel of its own; the merged kernels (moe_dispatch,
// moe_combine; docs/UnfusedSchedule.md, "Merged stages") run several bodies
// in one kernel, separated by grid barriers instead of kernel boundaries.
// Parameter names are the stages' own, so the bodies look their operands up
// by name in either kind of kernel. Private to lib/Kernels.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_MOESTAGES_H
#define MEGAMOE_LIB_KERNELS_MOESTAGES_H

#include "megamoe/Kernels/KernelBuilder.h"
#include "megamoe/Kernels/MoeKernels.h"

#include "mlir/IR/Builders.h"

namespace megamoe::moe {

/// The counters of the `barriers` region (u32 [32], docs/UnfusedSchedule.md):
/// cross-rank barriers (phase counters) and the merged kernels' grid
/// barriers (each used by one kernel, whose grid is always num_sms).
inline constexpr int64_t kLayoutBarrierSlot = 0;
inline constexpr int64_t kCombineBarrierSlot = 1;
inline constexpr int64_t kDispatchRoutedSlot = 2;
inline constexpr int64_t kDispatchLaidOutSlot = 3;
inline constexpr int64_t kCombineArrivedSlot = 4;
/// moe_fused only (MoeFused.cpp): the pool is filled; every L2 tile's rows
/// are scattered.
inline constexpr int64_t kFusedPulledSlot = 5;
inline constexpr int64_t kFusedScatteredSlot = 6;
inline constexpr int64_t kBarrierSlots = 7;

/// A grid barrier on barriers[slot] (gridBarrier), its timeout reported as
/// "<kernel kernelBase>: barriers[slot], <what>"; with `ctaBarrier` only its
/// threads take part, `thread` 0 of them arriving.
void slotGridBarrier(mlir::OpBuilder &b, mlir::Location loc,
                     const MoeKernelContext &ctx, const BoundKernel &args,
                     llvm::StringRef kernelBase, int64_t slot,
                     llvm::StringRef what, mlir::Value ctaBarrier = {},
                     mlir::Value thread = {});

/// moe_route: every slot's index to its expert's owner (grid-stride over
/// the slots; every CTA of the grid takes part).
llvm::SmallVector<KernelParam> routeParams(mlir::MLIRContext *ctx);
bool checkRouteRegions(mlir::Location loc, const MoeKernelContext &ctx);
void buildRouteBody(mlir::OpBuilder &b, mlir::Location loc,
                    const MoeKernelContext &ctx, const BoundKernel &args,
                    int64_t ctaThreads);

/// moe_layout: the counts to their owners, the cross-rank barrier, the
/// pool layout. Run by all `ctaThreads` threads of ONE CTA (block syncs);
/// the barrier's timeout message names kernel `kernelBase`.
llvm::SmallVector<KernelParam> layoutParams(mlir::MLIRContext *ctx,
                                            const MoeKernelContext &c);
bool checkLayoutRegions(mlir::Location loc, const MoeKernelContext &ctx);
void buildLayoutBody(mlir::OpBuilder &b, mlir::Location loc,
                     const MoeKernelContext &ctx, const BoundKernel &args,
                     int64_t ctaThreads, llvm::StringRef kernelBase);

/// moe_pull: one warp per used pool row (grid-stride over the warps).
llvm::SmallVector<KernelParam> pullParams(mlir::MLIRContext *ctx,
                                          const MoeKernelContext &c);
bool checkPullRegions(mlir::Location loc, const MoeKernelContext &ctx);
void buildPullBody(mlir::OpBuilder &b, mlir::Location loc,
                   const MoeKernelContext &ctx, const BoundKernel &args,
                   int64_t ctaThreads);

/// The merged dispatch (moe_dispatch, and moe_fused before its roles): the
/// route, layout and pull parameters, and their bodies with a grid barrier
/// where each kernel boundary was (barriers[2] after the route, CTA 0's
/// layout, barriers[3] after it, the pull). Every CTA, `ctaThreads` threads.
llvm::SmallVector<KernelParam> dispatchParams(mlir::MLIRContext *ctx,
                                              const MoeKernelContext &c);
void buildDispatchBody(mlir::OpBuilder &b, mlir::Location loc,
                       const MoeKernelContext &ctx, const BoundKernel &args,
                       int64_t ctaThreads, llvm::StringRef kernelBase);

/// moe_combine_barrier: the cross-rank barrier before the reduce, run by
/// one thread of the grid.
llvm::SmallVector<KernelParam> combineBarrierParams(mlir::MLIRContext *ctx);
void buildCombineBarrierBody(mlir::OpBuilder &b, mlir::Location loc,
                             const MoeKernelContext &ctx,
                             const BoundKernel &args, llvm::StringRef name);

/// moe_combine_reduce: y from the combine rows (grid-stride over the
/// 16-byte vectors of y), by `ctaThreads` threads of each CTA: thread
/// `thread` (i32) of them, or all, by threadIdx, when it is null.
llvm::SmallVector<KernelParam> combineReduceParams(mlir::MLIRContext *ctx);
bool checkCombineReduceShape(mlir::Location loc, const MoeKernelContext &ctx);
void buildCombineReduceBody(mlir::OpBuilder &b, mlir::Location loc,
                            const MoeKernelContext &ctx,
                            const BoundKernel &args, int64_t ctaThreads,
                            mlir::Value thread = {});

/// The merged combine (moe_combine, and moe_fused's math warpgroups): the
/// combine barrier and reduce parameters, and their bodies: CTA 0's thread 0
/// crosses the ranks' barrier, then every CTA meets at barriers[4] and
/// reduces. `thread` and `ctaBarrier` as for slotGridBarrier and
/// buildCombineReduceBody (null: every thread of the CTA, by threadIdx).
llvm::SmallVector<KernelParam> combineParams(mlir::MLIRContext *ctx);
void buildCombineBody(mlir::OpBuilder &b, mlir::Location loc,
                      const MoeKernelContext &ctx, const BoundKernel &args,
                      llvm::StringRef kernelBase, int64_t ctaThreads,
                      mlir::Value thread = {}, mlir::Value ctaBarrier = {});

} // namespace megamoe::moe

#endif // MEGAMOE_LIB_KERNELS_MOESTAGES_H
