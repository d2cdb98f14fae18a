//===- MoeKernels.h - the kernels of the unfused MoE schedule ---*- C++ -*-===//
//
// Builders for the data-movement and element-wise kernels of the unfused
// schedule (docs/UnfusedSchedule.md): routing, pool layout, pull, SwiGLU +
// requantization, combine. Each appends one `warpspec.kernel` at the
// builder's insertion point (the body of the layer's gpu.module), with every
// parameter named (`megamoe.name`) and bound (`megamoe.bind`) so the runtime
// launches it from the manifest alone. The GEMM stages come from
// GroupedGemm.h. megamoe-expand calls these in launch order.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_KERNELS_MOEKERNELS_H
#define MEGAMOE_KERNELS_MOEKERNELS_H

#include "megamoe/Config/BufferLayout.h"
#include "megamoe/Config/LayerConfig.h"
#include "megamoe/Config/Plan.h"
#include "megamoe/Kernels/Profile.h"

#include "llvm/ADT/StringMap.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <optional>
#include <string>

namespace megamoe {

/// What every MoE kernel builder needs: the layer, its plan and the
/// symmetric buffer's regions (shapes come from there).
struct MoeKernelContext {
  const config::LayerConfig &config;
  const config::Plan &plan;
  const config::BufferLayout &layout;
  /// Pool block = GEMM BLOCK_M (rows per pool block).
  int64_t blockM = 128;
  /// Pool rows each expert's segment is padded to (config::Variant::
  /// expertAlign): blockM, or 64 with half blocks.
  int64_t expertAlign = 128;
  bool halfBlocks() const { return expertAlign < blockM; }
  /// The variant's L2 GEMM computes expert blocks (config::Variant::
  /// l2ExpertBlocks): moe_layout writes their table too.
  bool l2ExpertBlocks = false;
  /// The variant's L1 kernel runs in clusters of 2 (config::Variant::
  /// l1Cluster): moe_layout pairs each expert's m-blocks in the table.
  bool l1Cluster = false;
  /// The plan variant a per-variant kernel is built for (two variants may
  /// share a BLOCK_M: config::sharedWeightsMinTokens); null outside the
  /// per-variant loop.
  const config::Variant *variant = nullptr;
  /// Cycles a cross-rank barrier waits before it traps with a message.
  int64_t barrierTimeoutCycles = int64_t(20) * 1000 * 1000 * 1000;
  /// Fault injection (tests): L1 arrivals the fused GEMM kernel's L2 tiles
  /// wait for beyond those that come.
  int64_t missingArrivals = 0;
  /// The most bytes of the L1 weights moe_pull asks the L2 cache for per
  /// call (collectives::prefetchExpertWeights); 0 = none.
  int64_t weightPrefetchBytes = 0;
  /// Appended to the kernel's name: `_bm<BLOCK_M>` for a kernel built once
  /// per plan variant, empty otherwise.
  std::string nameSuffix;
  /// The phase profile (megamoe-expand profile=true, docs/Profile.md): each
  /// kernel's section of the profile buffer by kernel name; null = off.
  const llvm::StringMap<ProfileSection> *profile = nullptr;

  /// The name of the kernel `base` as built in this context.
  std::string kernelName(llvm::StringRef base) const {
    return (base + nameSuffix).str();
  }
  /// Kernel `base`'s profile section, or nullopt (profile off).
  std::optional<ProfileSection> profileSection(llvm::StringRef base) const {
    if (!profile)
      return std::nullopt;
    auto it = profile->find(kernelName(base));
    if (it == profile->end())
      return std::nullopt;
    return it->second;
  }
};

// Kernel names, in launch order (the manifest's "schedule").
inline constexpr char kRouteKernel[] = "moe_route";
inline constexpr char kLayoutKernel[] = "moe_layout";
inline constexpr char kPullKernel[] = "moe_pull";
inline constexpr char kL1GemmKernel[] = "moe_l1_gemm";
inline constexpr char kActivationKernel[] = "moe_activation";
/// The split schedule's L1: the grouped GEMM with the SwiGLU + requant
/// epilogue (docs/SplitSchedule.md).
inline constexpr char kL1SwiGLUKernel[] = "moe_l1_swiglu";
inline constexpr char kL2GemmKernel[] = "moe_l2_gemm";
inline constexpr char kFusedGemmKernel[] = "moe_fused_gemm";
inline constexpr char kCombineBarrierKernel[] = "moe_combine_barrier";
inline constexpr char kCombineReduceKernel[] = "moe_combine_reduce";
/// megamoe-expand merge-stages: route + layout + pull, and combine barrier +
/// reduce, each one kernel (docs/UnfusedSchedule.md, "Merged stages").
inline constexpr char kDispatchKernel[] = "moe_dispatch";
inline constexpr char kCombineKernel[] = "moe_combine";
/// megamoe-expand one-kernel: the whole fused-gemm layer as one kernel per
/// variant (docs/FusedSchedule.md, "One kernel").
inline constexpr char kFusedKernel[] = "moe_fused";

void buildMoeRouteKernel(mlir::OpBuilder &b, mlir::Location loc,
                         const MoeKernelContext &ctx);
void buildMoeLayoutKernel(mlir::OpBuilder &b, mlir::Location loc,
                          const MoeKernelContext &ctx);
void buildMoePullKernel(mlir::OpBuilder &b, mlir::Location loc,
                        const MoeKernelContext &ctx);
void buildMoeActivationKernel(mlir::OpBuilder &b, mlir::Location loc,
                              const MoeKernelContext &ctx);
void buildMoeCombineBarrierKernel(mlir::OpBuilder &b, mlir::Location loc,
                                  const MoeKernelContext &ctx);
void buildMoeCombineReduceKernel(mlir::OpBuilder &b, mlir::Location loc,
                                 const MoeKernelContext &ctx);
void buildMoeDispatchKernel(mlir::OpBuilder &b, mlir::Location loc,
                            const MoeKernelContext &ctx);
void buildMoeCombineKernel(mlir::OpBuilder &b, mlir::Location loc,
                           const MoeKernelContext &ctx);

struct GroupedGemmConfig;
struct FusedGemmBinds;
/// moe_fused (MoeFused.cpp): the fused GEMM kernel of `l1` and `l2` with
/// the dispatch before its roles and the combine after its math tiles.
void buildMoeFusedKernel(mlir::OpBuilder &b, mlir::Location loc,
                         const MoeKernelContext &ctx,
                         const GroupedGemmConfig &l1,
                         const GroupedGemmConfig &l2, FusedGemmBinds binds);

} // namespace megamoe

#endif // MEGAMOE_KERNELS_MOEKERNELS_H
