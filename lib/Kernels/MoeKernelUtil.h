//===- MoeKernelUtil.h - IR helpers of the layer kernels ------*- C++ -*-===//
//
// Small builders shared by the unfused schedule's kernels (moe_route,
// moe_layout, moe_pull, moe_activation, the combine kernels): constants,
// kernel parameters, element and byte addressing over typed global
// pointers (!warpspec.global<T>), loads and stores, thread coordinates,
// loops and the check that a region of the symmetric buffer is large enough
// for what a kernel addresses. Only upstream and warpspec ops. Private to
// lib/Kernels.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_LIB_KERNELS_MOEKERNELUTIL_H
#define MEGAMOE_LIB_KERNELS_MOEKERNELUTIL_H

#include "Collectives/PhaseProfile.h"
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"
#include "megamoe/Kernels/KernelBuilder.h"
#include "megamoe/Kernels/MoeKernels.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace megamoe::moe {

/// !warpspec.global<elementType>, the type of a pointer parameter.
mlir::warpspec::GlobalType globalType(mlir::Type elementType);

/// Parameters bound to a region (`region:NAME`) of `elementType` elements,
/// to the peer-offset table (i64) and to a per-call value (`value:NAME`,
/// i32).
KernelParam regionParam(mlir::MLIRContext *ctx, const std::string &name,
                        mlir::Type elementType);
KernelParam peerOffsetsParam(mlir::MLIRContext *ctx);
KernelParam valueParam(mlir::MLIRContext *ctx, const std::string &name);

/// Appends to `params` those of `more` whose name it does not have yet (a
/// kernel that runs several stages takes the union of their parameters).
/// Returns the first of `more` whose name `params` has with another binding
/// or type (one name, two meanings: nothing of `more` after it is
/// appended), or null.
const KernelParam *appendParams(llvm::SmallVectorImpl<KernelParam> &params,
                                llvm::ArrayRef<KernelParam> more);

/// Emits an error at `loc` and returns false unless the layout has a region
/// `name` of at least `bytes` bytes (the kernel addresses that many).
bool checkRegion(mlir::Location loc, const MoeKernelContext &ctx,
                 const std::string &name, int64_t bytes);

mlir::Value i32Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value i64Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
/// An index value (a loop variable, a tile coordinate) as i32.
mlir::Value indexToI32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// block * size (block: index) as i32: the first row or column of a tile.
mlir::Value blockStart(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value block, int64_t size);
mlir::Value f32Const(mlir::OpBuilder &b, mlir::Location loc, double v);

/// `ptr` seen as a pointer to `elementType` (no code; `ptr` itself when it
/// already is one).
mlir::Value castPtr(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                    mlir::Type elementType);

/// Address of element `index` (i32, zero-extended, or i64) of `elementType`
/// from `base`.
mlir::Value elementPtr(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                       mlir::Type elementType, mlir::Value index);
/// `base + bytes` (bytes: i64) as a byte pointer (!warpspec.global<i8>);
/// load/store cast it to the type they access.
mlir::Value byteOffset(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value base, mlir::Value bytes);
/// `base + index * rowBytes` bytes (index: i64): row `index` of an array of
/// `rowBytes`-byte rows, as a byte pointer.
mlir::Value rowPtr(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                   mlir::Value index, int64_t rowBytes);

/// The element of pool_row_start [L, R + 1] for expert `l` and column `r`
/// (i32 values; `ranks` = R): its first pool row from source rank r < R,
/// or with r = R its first padding row (what moe_layout writes).
mlir::Value poolRowStartIndex(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value l, mlir::Value r, int64_t ranks);

/// A `type` load from / store to `ptr` (align 0: the type's natural one).
mlir::Value load(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                 mlir::Value ptr, unsigned align = 0);
void store(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
           mlir::Value ptr, unsigned align = 0);
/// base[index] and base[index] = value; `index` as in elementPtr.
mlir::Value loadAt(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                   mlir::Value base, mlir::Value index, unsigned align = 0);
void storeAt(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
             mlir::Value base, mlir::Value index, unsigned align = 0);
/// Relaxed atomic add of an i32 to the u32 at `ptr`; returns the old value.
mlir::Value atomicAdd(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                      mlir::Value value);

/// The 16 bytes of a vector copy: ld/st.global.v4.b32.
mlir::Type vector16BytesType(mlir::OpBuilder &b);

/// i64 zero extension of a non-negative i32 (offsets above 2^31 bytes).
mlir::Value widen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value umin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::Value y);
/// min(max(v, 0), hi) for i32: a count read from memory, bounded so that no
/// value written by a faulty earlier stage can index out of bounds.
mlir::Value clampCount(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       int64_t hi);
/// lo <= v < hi for i32 or i64 values (signed).
mlir::Value inRange(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    mlir::Value lo, mlir::Value hi);

/// Thread coordinates as i32.
/// While one is alive, threadIdX, blockIdX, gridDimX and laneId build their
/// reads as inline PTX with side effects instead of the gpu dialect's ops:
/// LLVM then cannot merge them with the same reads in code that follows.
/// For code that runs before a kernel's roles (moe_fused's dispatch): a read
/// merged into it stays live in a register through every role, and the math
/// warpgroups spilled (V4-Flash BLOCK_M 128: 112 bytes with merged reads, 40
/// without).
class OpaqueSpecialRegisters {
public:
  OpaqueSpecialRegisters();
  ~OpaqueSpecialRegisters();
  OpaqueSpecialRegisters(const OpaqueSpecialRegisters &) = delete;
  OpaqueSpecialRegisters &operator=(const OpaqueSpecialRegisters &) = delete;
};

mlir::Value threadIdX(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value blockIdX(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value gridDimX(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value laneId(mlir::OpBuilder &b, mlir::Location loc);

/// for (iv = begin; iv < end; iv += step) body(iv), over i32 values. The
/// loop op exists before `body` runs, so the body can look up enclosing
/// symbol tables.
void forLoop(mlir::OpBuilder &b, mlir::Location loc, mlir::Value begin,
             mlir::Value end, mlir::Value step,
             llvm::function_ref<void(mlir::OpBuilder &, mlir::Value)> body);
/// if (cond) then(); with an optional else.
void ifThen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
            llvm::function_ref<void(mlir::OpBuilder &)> thenBody,
            llvm::function_ref<void(mlir::OpBuilder &)> elseBody = nullptr);

/// fence.sc.sys: the thread's prior (remote) stores are visible to every
/// GPU of the system before its later accesses.
void systemFence(mlir::OpBuilder &b, mlir::Location loc);

/// A barrier of every thread of the grid (all CTAs resident: one per SM):
/// a block sync, thread 0's warpspec.grid.sync on the u32 `counter` (never
/// reset: each counter serves one grid size), a block sync. Whatever a
/// thread wrote before it is visible to every thread of the grid after it
/// (release/acquire at gpu scope through the block syncs). Past
/// `timeoutCycles` the waiting thread prints `name` and traps.
/// With `ctaBarrier` (a warpspec named barrier) only its threads take part:
/// it replaces the block syncs, and `thread` (i32) 0 of them arrives.
void gridBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Value counter,
                 llvm::StringRef name, int64_t timeoutCycles,
                 mlir::Value ctaBarrier = {}, mlir::Value thread = {});

/// With the profile on for kernel `base` (ctx.profileSection): appends its
/// `profile` parameter (bound to "profile", docs/Profile.md).
void addProfileParam(llvm::SmallVectorImpl<KernelParam> &params,
                     const MoeKernelContext &ctx, llvm::StringRef base);
/// A stage kernel `base` of the layer (its context name): `params` plus the
/// profile's, `threads` threads of at most `maxnreg` registers, `grid`;
/// `body` builds its code between the CTA's profile stamps, then the kernel
/// returns. The insertion point is restored after it.
void buildStageKernel(
    mlir::OpBuilder &b, mlir::Location loc, const MoeKernelContext &ctx,
    llvm::StringRef base, llvm::SmallVector<KernelParam> params,
    int64_t threads, int64_t maxnreg, llvm::ArrayRef<mlir::Attribute> grid,
    llvm::function_ref<void(mlir::OpBuilder &, const BoundKernel &)> body);

/// The profile writer of kernel `base` (off without the profile).
collectives::PhaseProfile kernelProfile(const BoundKernel &kernel,
                                        const MoeKernelContext &ctx,
                                        llvm::StringRef base);

} // namespace megamoe::moe

#endif // MEGAMOE_LIB_KERNELS_MOEKERNELUTIL_H
