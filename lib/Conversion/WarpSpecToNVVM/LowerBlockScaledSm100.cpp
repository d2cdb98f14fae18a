//===- LowerBlockScaledSm100.cpp - the block-scaled MMA on SM100 ----------===//
//
// On sm_100 a block-scaled K block follows recipe (b) of docs/SM100.md, the
// numbers of the SM90 contract (FP32 scales per 128 K): one elected thread of
// the MMA warpgroup issues K / 32 un-scaled `tcgen05.mma.kind::f8f6f4` (M =
// 64, the warpgroup's rows) into the warpgroup's TMEM partial, commits them
// to the warpgroup's mbarrier, the whole warpgroup waits on it, loads the
// partial with `tcgen05.ld.16x256b` and promotes it into its register total
// with `warpspec.acc.promote` (the FMAs of the SM90 lowering).
//
// Why the register fragment is the SM90 one: the M = 64 MMA writes TMEM
// layout F (PTX ISA "Data path layout organization": rows 16w..16w+15 in
// lanes 32w..32w+15 of warp w's sub-partition), and `16x256b` gives lane l
// of warp w, register r, the element (row 16w + l/4 + 8 * (r/2 % 2),
// column 8 * (r/4) + 2 * (l % 4) + r % 2): the wgmma D fragment that
// !warpspec.acc, acc.promote and acc.store are defined on.
//
// Per kernel, around the roles (all threads): warp 0 allocates the columns of
// all MMA warpgroups (TmemPartialsPlan) and relinquishes the allocation
// permit, thread 0 initialises the commit mbarriers, then a block barrier
// between tcgen05 fences; after the roles the same barrier, then warp 0
// deallocates.
//
// SMEM descriptor of tcgen05 (PTX ISA "Shared memory descriptor"): bits
// [0,14) start address >> 4, [16,30) leading byte offset >> 4 (unused for
// swizzled K-major, 1), [32,46) stride byte offset >> 4 (8 rows x 128 B =
// 1024 B between core-matrix groups), [46,49) the fixed value 0b001,
// [49,52) base offset 0 (atom-aligned tiles), [61,64) swizzle (2 = 128 B).
// Instruction descriptor of kind::f8f6f4 (PTX ISA "Instruction
// descriptor"): [4,6) D type (1 = f32), [7,10) / [10,13) A / B type
// (0 = e4m3, 1 = e5m2), [15] / [16] transpose A / B (0: K-major),
// [17,23) N >> 3, [24,29) M >> 4.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "megamoe/Conversion/WarpSpecToNVVM/WarpSpecToNVVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::warpspec;

namespace {

/// The MMA M of one warpgroup's partial (TMEM layout F) and the K of one
/// f8f6f4 instruction (32 bytes of fp8).
constexpr int64_t kMmaM = 64;
constexpr int64_t kMmaKBytes = 32;
/// Threads of the warpgroup that issue and wait together.
constexpr int64_t kWarpgroupThreads = 128;
/// Suspend-time hint of mbarrier.try_wait (ns), as the pipelines use.
constexpr int64_t kTryWaitTicks = 10000000;

std::optional<int64_t> f8f6f4Type(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return 0;
  if (isa<Float8E5M2Type>(t))
    return 1;
  return std::nullopt;
}

/// The only operand form lowered: fp8, K-major, 128-byte swizzle, one atom
/// (128 bytes) of K per row, the tiles the block-scaled mainloop stages.
LogicalResult checkOperand(Operation *op, StringRef which, SmemType t) {
  if (t.getShape().size() != 2 || !f8f6f4Type(t.getElementType()) ||
      t.getSwizzle() != 128 || t.getShape()[1] != 128)
    return op->emitOpError()
           << "on sm_100 lowers " << which
           << " tiles of fp8 [rows, 128] with a 128-byte swizzle only; got "
           << t;
  return success();
}

/// The tcgen05 descriptor of a K-major 128B-swizzled tile starting at `addr`.
Value buildDescriptor(OpBuilder &b, Location loc, Value addr) {
  Value a = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), addr);
  a = arith::AndIOp::create(b, loc, a, i64Const(b, loc, 0x3FFFF));
  a = arith::ShRUIOp::create(b, loc, a, i64Const(b, loc, 4));
  uint64_t fixed = (uint64_t(1) << 16) | (uint64_t(1024 / 16) << 32) |
                   (uint64_t(1) << 46) | (uint64_t(2) << 61);
  return arith::OrIOp::create(b, loc, a, i64Const(b, loc, (int64_t)fixed));
}

int64_t instructionDescriptor(int64_t aType, int64_t bType, int64_t n) {
  return (int64_t(1) << 4) | (aType << 7) | (bType << 10) | ((n >> 3) << 17) |
         ((kMmaM >> 4) << 24);
}

/// What the expansion of one kernel shares: the plan, the bookkeeping in
/// SMEM, the named barrier of each MMA warpgroup, the commit phase counter.
struct KernelTmem {
  TmemPartialsPlan plan;
  int64_t stateOffset = 0;
  int64_t firstBarrierId = 0;
  Value phaseCounter; // i32 alloca at the top of the kernel
};

Value stateAddress(OpBuilder &b, Location loc, const KernelTmem &k,
                   int64_t extra) {
  return smemOffset(b, loc, dynamicSmemBase(b, loc), k.stateOffset + extra);
}

/// The commit mbarrier of MMA warpgroup `wg` (an i32).
Value commitBarrier(OpBuilder &b, Location loc, const KernelTmem &k, Value wg) {
  Value bytes = arith::MulIOp::create(b, loc, wg, i32Const(b, loc, 8));
  return smemOffset(b, loc, stateAddress(b, loc, k, 8), bytes);
}

Value tmemPointer(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 6), address);
}

/// The ids of `count` consecutive named barriers the kernel does not
/// declare, the lowest such range in [1, 15] (ptxas reserves barriers up to
/// the highest id used).
FailureOr<int64_t> freeBarrierIds(KernelOp kernel, int64_t count) {
  llvm::DenseSet<int64_t> used;
  for (auto barrier : kernel.getBody().front().getOps<NamedBarrierOp>())
    used.insert(barrier.getId());
  for (int64_t first = 1; first + count <= 16; ++first) {
    bool free = true;
    for (int64_t id = first; id < first + count; ++id)
      free &= !used.contains(id);
    if (free)
      return first;
  }
  return kernel.emitOpError("needs ")
         << count << " consecutive free named barrier ids (one per MMA "
         << "warpgroup of its sm_100 block-scaled MMAs) in [1, 15]";
}

/// Allocation before the roles, deallocation after them.
void emitAllocation(KernelOp kernel, RolesOp roles, KernelTmem &k) {
  Location loc = roles.getLoc();
  OpBuilder b(roles);
  Value cols = i32Const(b, loc, k.plan.allocColumns);
  Value warp0 = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, uniformWarpId(b, loc),
      i32Const(b, loc, 0));
  buildIf(b, loc, warp0, [&](OpBuilder &ib, Location l) {
    NVVM::Tcgen05AllocOp::create(ib, l, stateAddress(ib, l, k, 0), cols);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(ib, l);
  });
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      i32Const(b, loc, 0));
  for (int64_t wg = 0; wg < k.plan.warpgroups; ++wg)
    NVVM::MBarrierInitOp::create(b, loc, stateAddress(b, loc, k, 8 + 8 * wg),
                                 i32Const(b, loc, 1), first);
  NVVM::FenceMbarrierInitOp::create(b, loc);
  auto blockSync = [&](OpBuilder &sb) {
    NVVM::Tcgen05FenceOp::create(sb, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    NVVM::Barrier0Op::create(sb, loc);
    NVVM::Tcgen05FenceOp::create(sb, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  };
  blockSync(b);

  // Every MMA warpgroup's last tcgen05.ld has completed (tcgen05.wait::ld
  // before its promotion) when the block barrier after the roles passes.
  b.setInsertionPointAfter(roles);
  blockSync(b);
  Value warp0After = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, uniformWarpId(b, loc),
      i32Const(b, loc, 0));
  buildIf(b, loc, warp0After, [&](OpBuilder &ib, Location l) {
    Value base = LLVM::LoadOp::create(ib, l, ib.getI32Type(),
                                      stateAddress(ib, l, k, 0), 4);
    NVVM::Tcgen05DeallocOp::create(ib, l, tmemPointer(ib, l, base),
                                   i32Const(ib, l, k.plan.allocColumns));
  });
}

/// One K block: MMA into the partial, commit, wait, load, promote.
LogicalResult expandOne(MmaBlockScaledOp op, const KernelTmem &k,
                        TmemPartialsPlan::Role role) {
  SmemType aType = op.getA().getType(), bType = op.getB().getType();
  if (failed(checkOperand(op, "A", aType)) ||
      failed(checkOperand(op, "B", bType)))
    return failure();
  // A 2-d tile, even with `a_scale_groups 1`: its promotion reads one row of
  // scales per slot.
  if (op.getAScales().getType().getShape().size() != 1)
    return op.emitOpError("on sm_100 promotes one activation scale per row "
                          "and K block: a_scales of [groups, M] tiles (per-64 "
                          "activation scales) have no tcgen05 lowering");
  if (op.getTurn())
    return op.emitOpError("on sm_100 has no issue turn: one thread issues "
                          "the CTA's tcgen05 MMAs, in order");
  if (op.getSwapAb())
    return op.emitOpError("swap_ab has no sm_100 lowering (tcgen05 takes M "
                          "= 64 with N down to 8 unswapped)");
  AccType accType = op.getTotal().getType();
  int64_t n = accType.getN();
  // tcgen05.mma with M = 64 takes N in [8, 256] in steps of 8: the widths
  // !warpspec.acc allows.
  if (n % 8 != 0 || n < 8 || n > 256)
    return op.emitOpError("on sm_100 needs an accumulator width that is a "
                          "multiple of 8 in [8, 256] (tcgen05.mma with "
                          "M = 64), got ")
           << n;
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();

  // This warpgroup: its index among the kernel's MMA warpgroups, its warp
  // inside the warpgroup (the TMEM lane quarter it may access).
  Value warpInRole = toI32(b, loc, RoleWarpIdOp::create(b, loc));
  // A one-warpgroup role (the kernels' usual layout) gets constant
  // warpgroup, barrier id and column, so ptxas sees which barrier it uses.
  Value wgInRole =
      role.role.getNumWarps() == 4
          ? i32Const(b, loc, 0)
          : (Value)arith::DivUIOp::create(b, loc, warpInRole,
                                          i32Const(b, loc, 4));
  Value wg = arith::AddIOp::create(b, loc, wgInRole,
                                   i32Const(b, loc, role.firstWarpgroup));
  Value warpInWg =
      arith::RemUIOp::create(b, loc, warpInRole, i32Const(b, loc, 4));
  Value base =
      LLVM::LoadOp::create(b, loc, i32, stateAddress(b, loc, k, 0), 4);
  // Column offset of warpgroup k's partial: role columns before it plus its
  // own n per earlier warpgroup of the role (all of a role's MMAs share n).
  int64_t roleColumn = 0;
  for (TmemPartialsPlan::Role r : k.plan.roles) {
    if (r.role == role.role)
      break;
    roleColumn += (r.role.getNumWarps() / 4) * r.n;
  }
  Value column = arith::AddIOp::create(
      b, loc, i32Const(b, loc, roleColumn),
      arith::MulIOp::create(b, loc, wgInRole, i32Const(b, loc, n)));
  Value partialAddr = arith::AddIOp::create(b, loc, base, column);
  Value mbar = commitBarrier(b, loc, k, wg);

  // The previous K block's loads of the partial (every warp's
  // tcgen05.wait::ld) are ordered before this block's MMA overwrites it.
  Value barrierId =
      arith::AddIOp::create(b, loc, wg, i32Const(b, loc, k.firstBarrierId));
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  NVVM::BarrierOp::create(b, loc, Type(), barrierId,
                          i32Const(b, loc, kWarpgroupThreads),
                          NVVM::BarrierReductionAttr(), Value());
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);

  // One elected thread issues the K block's MMAs and their commit.
  Value elected =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            threadInWarpgroup(b, loc), i32Const(b, loc, 0));
  int64_t idesc = instructionDescriptor(*f8f6f4Type(aType.getElementType()),
                                        *f8f6f4Type(bType.getElementType()), n);
  int64_t steps = aType.getShape()[1] / kMmaKBytes;
  Value stage = op.getStage(), row = op.getRow();
  buildIf(b, loc, elected, [&](OpBuilder &ib, Location l) {
    // Rows [row, row + 64) of A: 128 bytes per row in the swizzled tile.
    Value aRowBytes = arith::MulIOp::create(ib, l, toI32(ib, l, row),
                                            i32Const(ib, l, 128));
    Value aBuf = UnrealizedConversionCastOp::create(
                     ib, l, LLVM::LLVMPointerType::get(ctx, 3), op.getA())
                     .getResult(0);
    Value bBuf = UnrealizedConversionCastOp::create(
                     ib, l, LLVM::LLVMPointerType::get(ctx, 3), op.getB())
                     .getResult(0);
    Value stageI32 = toI32(ib, l, stage);
    Value aAddr = smemOffset(ib, l, slotAddress(ib, l, aType, aBuf, stageI32),
                             aRowBytes);
    Value bAddr = slotAddress(ib, l, bType, bBuf, stageI32);
    Value descA = buildDescriptor(ib, l, aAddr);
    Value descB = buildDescriptor(ib, l, bAddr);
    Value d = tmemPointer(ib, l, partialAddr);
    Value id = i32Const(ib, l, idesc);
    for (int64_t j = 0; j < steps; ++j) {
      // Stepping K by 32 bytes inside the swizzle atom: start address + 2.
      Value step = i64Const(ib, l, 2 * j);
      Value da = j ? arith::AddIOp::create(ib, l, descA, step) : descA;
      Value db = j ? arith::AddIOp::create(ib, l, descB, step) : descB;
      Value accumulate = arith::ConstantIntOp::create(ib, l, ib.getI1Type(),
                                                      j ? 1 : 0);
      NVVM::Tcgen05MMAOp::create(
          ib, l, NVVM::Tcgen05MMAKind::F8F6F4, NVVM::CTAGroupKind::CTA_1,
          NVVM::Tcgen05MMACollectorOp::DISCARD, /*aShift=*/false, d, da, db,
          id, accumulate, /*scaleInputD=*/Value(),
          /*disableOutputLane=*/Value());
    }
    NVVM::Tcgen05CommitOp::create(ib, l, mbar, /*multicastMask=*/Value());
  });

  // The whole warpgroup waits for the commit: phase p of the barrier is K
  // block p of this warpgroup.
  Value count = LLVM::LoadOp::create(b, loc, i32, k.phaseCounter);
  Value parity = arith::AndIOp::create(b, loc, count, i32Const(b, loc, 1));
  LLVM::StoreOp::create(
      b, loc, arith::AddIOp::create(b, loc, count, i32Const(b, loc, 1)),
      k.phaseCounter);
  NVVM::MBarrierTryWaitParityOp::create(b, loc, mbar, parity,
                                        i32Const(b, loc, kTryWaitTicks));
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);

  // Warp w of the warpgroup reads lanes [32w, 32w + 16): its 16 rows.
  Value lane = arith::ShLIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warpInWg, i32Const(b, loc, 32)),
      i32Const(b, loc, 16));
  Value ldAddrBase = arith::AddIOp::create(b, loc, partialAddr, lane);
  // One 16x256b load per power-of-two run of 8-column groups (.num must be
  // a power of two, at most 32): group j's 4 registers are fragment
  // elements 4j .. 4j + 3.
  SmallVector<Type> fields(n / 2, f32);
  Type structTy = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value partial = LLVM::UndefOp::create(b, loc, structTy);
  SmallVector<std::pair<int64_t, Value>> loads; // (first group, registers)
  for (int64_t group = 0, left = n / 8; left > 0;) {
    int64_t run =
        int64_t(1) << llvm::Log2_64(uint64_t(std::min<int64_t>(left, 32)));
    Value addr = group ? arith::AddIOp::create(b, loc, ldAddrBase,
                                               i32Const(b, loc, 8 * group))
                       : ldAddrBase;
    loads.push_back(
        {group, NVVM::Tcgen05LdOp::create(
                    b, loc, VectorType::get({4 * run}, i32), /*pack=*/false,
                    NVVM::Tcgen05LdStShape::SHAPE_16X256B,
                    tmemPointer(b, loc, addr), /*offset=*/Value())});
    group += run;
    left -= run;
  }
  NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::LOAD);
  for (auto [group, regs] : loads) {
    int64_t count = cast<VectorType>(regs.getType()).getNumElements();
    for (int64_t r = 0; r < count; ++r) {
      Value v =
          LLVM::ExtractElementOp::create(b, loc, regs, i32Const(b, loc, r));
      partial = LLVM::InsertValueOp::create(
          b, loc, partial, LLVM::BitcastOp::create(b, loc, f32, v),
          4 * group + r);
    }
  }
  Value partialAcc =
      UnrealizedConversionCastOp::create(b, loc, accType, partial)
          .getResult(0);
  AffineMapAttr map;
  if (std::optional<AffineMap> m = op.getBScaleMap())
    map = AffineMapAttr::get(*m);
  Value total = AccPromoteOp::create(b, loc, partialAcc, op.getTotal(),
                                     op.getAScales(), op.getStage(),
                                     op.getRow(), op.getBScales(),
                                     ValueRange{}, map);
  op.replaceAllUsesWith(total);
  op.erase();
  return success();
}

LogicalResult expandKernel(KernelOp kernel) {
  FailureOr<TmemPartialsPlan> plan = planTmemPartials(kernel);
  if (failed(plan))
    return failure();
  if (!plan->columns)
    return success();
  KernelTmem k;
  k.plan = *plan;
  std::optional<::megamoe::config::ChipLimits> limits =
      getChipLimits(kernel.getChip());
  if (!limits || k.plan.allocColumns > limits->tmemColumns)
    return kernel.emitOpError("TMEM partials need ")
           << k.plan.allocColumns << " columns, more than the chip has";
  auto offset = kernel->getAttrOfType<IntegerAttr>(kTmemStateOffsetAttrName);
  if (!offset)
    return kernel.emitOpError("has block-scaled MMAs on ")
           << kernel.getChip() << " but no '" << kTmemStateOffsetAttrName
           << "'; run warpspec-plan-smem before lowering";
  k.stateOffset = offset.getInt();
  FailureOr<int64_t> ids = freeBarrierIds(kernel, k.plan.warpgroups);
  if (failed(ids))
    return failure();
  k.firstBarrierId = *ids;

  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  Location loc = kernel.getLoc();
  Value one = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                       b.getI32IntegerAttr(1));
  k.phaseCounter = LLVM::AllocaOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), b.getI32Type(), one,
      /*alignment=*/4);
  LLVM::StoreOp::create(b, loc,
                        LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                                 b.getI32IntegerAttr(0)),
                        k.phaseCounter);

  emitAllocation(kernel, kernel.getRolesOp(), k);
  for (TmemPartialsPlan::Role role : k.plan.roles) {
    SmallVector<MmaBlockScaledOp> ops;
    role.role.getBody().walk([&](MmaBlockScaledOp op) { ops.push_back(op); });
    for (MmaBlockScaledOp op : ops)
      if (failed(expandOne(op, k, role)))
        return failure();
  }
  return success();
}

} // namespace

LogicalResult warpspec::expandBlockScaledMmaSm100(gpu::GPUModuleOp module) {
  for (KernelOp kernel : module.getOps<KernelOp>())
    if (kernel.getChip().starts_with("sm_100") && failed(expandKernel(kernel)))
      return failure();
  return success();
}
