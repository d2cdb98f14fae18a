//===- WarpSpecToNVVM.h - warpspec -> NVVM/LLVM patterns --------*- C++ -*-===//
//
// The lowering runs in two conversions inside one pass:
//  1. "leaf" ops (everything but kernel/return/roles/role) become NVVM, LLVM,
//     arith and scf while the role structure is still there, so that a
//     pipeline iterator can be keyed on its role and role.warp_id can read
//     its warp range;
//  2. roles become a warp-index dispatch and the kernel an llvm.func.
// A timed wait's timeout report is stores into the runtime's record
// (TimeoutRecord.h), never a device printf.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONVERSION_WARPSPECTONVVM_WARPSPECTONVVM_H
#define MEGAMOE_CONVERSION_WARPSPECTONVVM_WARPSPECTONVVM_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>
#include <string>
#include <tuple>

namespace mlir::warpspec {

/// Converts warpspec types: tma_desc -> !llvm.ptr, smem and pipeline ->
/// !llvm.ptr<3> (slot 0 / full[0] mbarrier), barrier -> i32 (its id),
/// acc<MxN> -> !llvm.struct<(f32 x N/2)>, global<T> -> !llvm.ptr<1>.
void populateWarpSpecTypeConversions(TypeConverter &converter);

/// State shared by the pipeline patterns: one iteration counter (an i32
/// alloca in the kernel's entry block, promoted to registers by SROA) per
/// (pipeline, side, role).
struct PipelineCounters {
  std::map<std::tuple<Operation *, bool, Operation *>, Value> counters;
};

/// State of the sequence.next pattern: one i32 count (an entry-block alloca,
/// promoted to a register by SROA) per (key, enclosing role or kernel).
struct SequenceCounters {
  std::map<std::pair<std::string, Operation *>, Value> counters;
};

void populateWarpSpecStructureLeafPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns);
void populateWarpSpecSmemPatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns);
void populateWarpSpecPipelinePatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      PipelineCounters &counters);
void populateWarpSpecAsyncCopyPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns);
void populateWarpSpecCounterPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns);
void populateWarpSpecMmaSm90Patterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns);
/// Epilogue math on the SM90 accumulator fragment (acc.map, acc.deinterleave,
/// acc.row_reduce, acc_rows.*).
void populateWarpSpecAccMathSm90Patterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
/// The arch-neutral tile ops whose lowering is plain data movement:
/// smem.view (the source's address), tile.store (one TMA store per column
/// panel), tile.load (one swizzled 16-byte load).
void populateWarpSpecTilePatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns);

/// Phase 0, before the conversion: warpspec.tile_loop and warpspec.wave_loop
/// become scf.for loops over the CTA's tiles, and each
/// warpspec.mma.block_scaled becomes the chip's sequence of warpspec ops
/// (sm_90a: mma.sm90 + mma.wait + acc.promote; sm_100: tcgen05 MMA into a TMEM
/// partial, tcgen05.ld + acc.promote, with the TMEM allocation around the
/// roles). The SM100 expansion runs first; the SM90 one fails with a diagnostic
/// on any chip left over.
LogicalResult expandTileLoops(gpu::GPUModuleOp module);
LogicalResult expandWaveLoops(gpu::GPUModuleOp module);
LogicalResult expandBlockScaledMmaSm90(gpu::GPUModuleOp module);
LogicalResult expandBlockScaledMmaSm100(gpu::GPUModuleOp module);
/// Typed global memory: global.offset/load/store/cast/atomic and fence
/// (LowerGlobalMemory.cpp).
void populateWarpSpecGlobalMemoryPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns);
/// Element math: approx (ex2/rcp.approx.ftz) and cvt.e4m3x2
/// (LowerElementMath.cpp).
void populateWarpSpecElementMathPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);

/// The phase profile's ops: timestamp (%globaltimer), sm_id (%smid) and
/// sequence.next (LowerProfile.cpp).
void populateWarpSpecProfilePatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns,
                                     SequenceCounters &counters);

/// Phase 2: warpspec.kernel -> llvm.func, warpspec.return -> llvm.return,
/// warpspec.roles -> warp-index dispatch with setmaxnreg per warpgroup.
void populateWarpSpecKernelPatterns(const TypeConverter &converter,
                                    RewritePatternSet &patterns);

} // namespace mlir::warpspec

#endif // MEGAMOE_CONVERSION_WARPSPECTONVVM_WARPSPECTONVVM_H
