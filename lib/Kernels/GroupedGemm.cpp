//===- GroupedGemm.cpp - build the FP8 grouped GEMM in warpspec ----------===//
//
// The kernel's structure and data layouts are described in
// include/megamoe/Kernels/GroupedGemm.h. This file only spells them in IR:
// one function per role, plus the kernel frame (buffers, pipeline, barriers,
// manifest annotations).
//
//===----------------------------------------------------------------------===//
#include "megamoe/Kernels/GroupedGemm.h"
#include "MoeKernelUtil.h"
#include "megamoe/Conversion/TargetAttr.h"
#include "megamoe/Kernels/KernelBuilder.h"

#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace megamoe;
namespace ws = mlir::warpspec;

namespace {

/// Byte-addressed loads and stores through untyped pointers (global and
/// shared), kept local until this builder moves to the collectives and the
/// typed pointers of MoeKernelUtil.
namespace ewir {
using moe::i64Const;
using moe::inRange;
using moe::vector16BytesType;
Type globalPtrType(OpBuilder &b) {
  return LLVM::LLVMPointerType::get(b.getContext(), 1);
}
Value toI64(OpBuilder &b, Location loc, Value v) {
  return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
}
Value byteOffset(OpBuilder &b, Location loc, Value base, Value bytes) {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{bytes});
}
Value elementPtr(OpBuilder &b, Location loc, Value base, Value index,
                 int64_t elementBytes) {
  Value bytes =
      arith::MulIOp::create(b, loc, index, i64Const(b, loc, elementBytes));
  return byteOffset(b, loc, base, bytes);
}
Value load(OpBuilder &b, Location loc, Type type, Value ptr,
           unsigned alignment = 0) {
  return LLVM::LoadOp::create(b, loc, type, ptr, alignment);
}
void store(OpBuilder &b, Location loc, Value value, Value ptr,
           unsigned alignment = 0) {
  LLVM::StoreOp::create(b, loc, value, ptr, alignment);
}
} // namespace ewir

/// Kernel parameter names (the manifest lists them in kernelParams' order).
constexpr char kParamA[] = "a";          // TMA: A [M, K] fp8
constexpr char kParamB[] = "b";          // TMA: B [E*N, K] fp8
constexpr char kParamSfa[] = "a_scales"; // TMA: SFA [K/128, M] f32
constexpr char kParamD[] = "d";          // TMA: D [M, N] (no scatter)
constexpr char kParamSfb[] = "b_scales"; // SFB [E, N/128, K/128(, 2)]
constexpr char kParamBlockExpert[] = "block_expert"; // i32 [M / BLOCK_M]
constexpr char kParamNumMBlocks[] = "num_m_blocks";  // i32 or pointer to i32
constexpr char kParamPoolSource[] = "pool_source";   // i32 [M, 3] (scatter)
constexpr char kParamCombine[] = "combine";          // bf16 [K', T, N]
constexpr char kParamPeerOffsets[] = "peer_offsets"; // i64 [R]

/// The output tile in SMEM is 128B-swizzled (conflict-free acc.store) and so
/// split into panels of 128 bytes of columns (the swizzle span: 64 BF16 or 32
/// F32 columns): the buffer [BLOCK_M, BLOCK_N] holds BLOCK_N / panel-columns
/// panels of [BLOCK_M, panel-columns], each written to global by its own TMA
/// store of 64 rows.
constexpr int64_t kDPanelBytes = 128;
int64_t dPanelCols(const GroupedGemmConfig &c) {
  return kDPanelBytes / c.outBytes();
}

/// Everything the role builders share: config, types and the kernel-level
/// values (arguments, buffers, pipeline).
struct KernelFrame {
  const GroupedGemmConfig &cfg;
  int64_t stages;
  Value a, b, sfa, d, sfb, blockExpert, numMBlocks;
  /// combineScatter only (d is then null).
  Value poolSource, combine, peerOffsets;
  Value aTiles, bTiles, aScales, dTiles, pipe;
  SmallVector<Value> epilogueBarriers; // one per math warpgroup
  ws::AccType accType;
};

Value constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}
Value toI32(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
}

/// N blocks per group of the tile order. When one expert's weights (N * K
/// bytes) take more than about half of the H200's 50 MB L2, the m-major order
/// (one group of all N blocks) streams them from HBM again every wave, so
/// groups of 8 (or 4, 2) N blocks are used; below that m-major measured
/// faster (8 x 4096 rows: K=2048..4096 shapes lost about 4% with groups of 8,
/// N=4096 K=7168 gained 7%).
int64_t nBlocksPerGroup(const GroupedGemmConfig &c) {
  int64_t nBlocks = c.n / c.blockN;
  if (c.n * c.k <= (int64_t(24) << 20))
    return nBlocks;
  for (int64_t g : {8, 4, 2})
    if (nBlocks % g == 0)
      return g;
  return 1;
}

/// The persistent tile loop shared by every role: tiles blockIdx.x,
/// blockIdx.x + gridDim.x, ... below numMBlocks * N / BLOCK_N. Tiles are
/// ordered in groups of G n-blocks (nBlocksPerGroup), m-blocks within a
/// group, n-blocks fastest, so the CTAs running at once share G weight tiles
/// and gridDim / G activation tiles in L2. `body` gets the m-block and
/// n-block indices (index type).
void buildTileLoop(OpBuilder &b, Location loc, const KernelFrame &f,
                   function_ref<void(OpBuilder &, Value, Value)> body) {
  int64_t nBlocks = f.cfg.n / f.cfg.blockN;
  int64_t group = nBlocksPerGroup(f.cfg);
  Value first = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      NVVM::BlockIdXOp::create(b, loc, b.getI32Type()));
  Value step = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      NVVM::GridDimXOp::create(b, loc, b.getI32Type()));
  Value mBlocks =
      arith::IndexCastOp::create(b, loc, b.getIndexType(), f.numMBlocks);
  Value numTiles =
      arith::MulIOp::create(b, loc, mBlocks, constIndex(b, loc, nBlocks));
  Value tilesPerGroup =
      arith::MulIOp::create(b, loc, mBlocks, constIndex(b, loc, group));
  scf::ForOp::create(b, loc, first, numTiles, step, ValueRange{},
                     [&](OpBuilder &lb, Location l, Value tile, ValueRange) {
                       Value g = constIndex(lb, l, group);
                       Value groupIdx =
                           arith::DivUIOp::create(lb, l, tile, tilesPerGroup);
                       Value inGroup =
                           arith::RemUIOp::create(lb, l, tile, tilesPerGroup);
                       Value mBlock = arith::DivUIOp::create(lb, l, inGroup, g);
                       Value nBlock = arith::AddIOp::create(
                           lb, l, arith::MulIOp::create(lb, l, groupIdx, g),
                           arith::RemUIOp::create(lb, l, inGroup, g));
                       body(lb, mBlock, nBlock);
                       scf::YieldOp::create(lb, l);
                     });
}

/// The expert that owns row block `mBlock` (block_expert[mBlock]).
Value loadBlockExpert(OpBuilder &b, Location loc, const KernelFrame &f,
                      Value mBlock) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value addr = LLVM::GEPOp::create(b, loc, ptrTy, b.getI32Type(), f.blockExpert,
                                   ValueRange{toI32(b, loc, mBlock)});
  return LLVM::LoadOp::create(b, loc, b.getI32Type(), addr);
}

/// The weight scales of one (tile, K block): SFB entry `index` (in entries of
/// one scale, or of one (gate, up) pair when interleaved: then one 8-byte
/// load gives both).
SmallVector<Value, 2> loadBScales(OpBuilder &b, Location loc,
                                  const KernelFrame &f, Value index) {
  auto f32 = b.getF32Type();
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 1);
  if (f.cfg.bScaleInterleave == 0) {
    Value addr =
        LLVM::GEPOp::create(b, loc, ptrTy, f32, f.sfb, ValueRange{index});
    return {LLVM::LoadOp::create(b, loc, f32, addr)};
  }
  auto pairTy = VectorType::get({2}, f32);
  Value addr =
      LLVM::GEPOp::create(b, loc, ptrTy, pairTy, f.sfb, ValueRange{index});
  Value pair = LLVM::LoadOp::create(b, loc, pairTy, addr, /*alignment=*/8);
  SmallVector<Value, 2> out;
  for (int64_t i = 0; i < 2; ++i)
    out.push_back(
        LLVM::ExtractElementOp::create(b, loc, pair, constI32(b, loc, i)));
  return out;
}

/// Role "tma": per K block, warp 0 loads the A tile, warp 1 its BLOCK_M
/// activation scales, warp 2 the expert's B tile, each committing its own
/// bytes; warp 3 only arrives. Splitting the loads keeps every warp of the
/// warpgroup (which must share one setmaxnreg) in the protocol.
void buildProducerRole(OpBuilder &b, Location loc, const KernelFrame &f) {
  const GroupedGemmConfig &c = f.cfg;
  auto role = ws::RoleOp::create(b, loc, "tma", 0, 4,
                                 GroupedGemmConfig::kProducerRegs, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&role.getBody().emplaceBlock());
  Value warp = ws::RoleWarpIdOp::create(b, loc);
  auto isWarp = [&](OpBuilder &ob, int64_t w) -> Value {
    return arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq, warp,
                                 constIndex(ob, loc, w));
  };
  {
    auto prefetchIf = scf::IfOp::create(b, loc, isWarp(b, 0), false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(prefetchIf.thenBlock());
    for (Value desc : {f.a, f.b, f.sfa, f.d})
      if (desc)
        ws::TmaPrefetchOp::create(b, loc, desc);
  }
  int64_t kBlocks = c.k / GroupedGemmConfig::kBlockK;
  int64_t aBytes = c.blockM * GroupedGemmConfig::kBlockK;
  int64_t bBytes = c.blockN * GroupedGemmConfig::kBlockK;
  int64_t sfaBytes = c.blockM * 4;
  buildTileLoop(b, loc, f, [&](OpBuilder &tb, Value mBlock, Value nBlock) {
    Value expert = loadBlockExpert(tb, loc, f, mBlock);
    Value row0 = toI32(
        tb, loc,
        arith::MulIOp::create(tb, loc, mBlock, constIndex(tb, loc, c.blockM)));
    // B rows of this tile: expert * N + nBlock * BLOCK_N in the [E*N, K] view.
    Value bRow = arith::AddIOp::create(
        tb, loc, arith::MulIOp::create(tb, loc, expert, constI32(tb, loc, c.n)),
        toI32(tb, loc,
              arith::MulIOp::create(tb, loc, nBlock,
                                    constIndex(tb, loc, c.blockN))));
    scf::ForOp::create(
        tb, loc, constIndex(tb, loc, 0), constIndex(tb, loc, kBlocks),
        constIndex(tb, loc, 1), ValueRange{},
        [&](OpBuilder &kb, Location l, Value kBlock, ValueRange) {
          Value kb32 = toI32(kb, l, kBlock);
          Value k0 = arith::MulIOp::create(
              kb, l, kb32, constI32(kb, l, GroupedGemmConfig::kBlockK));
          Value stage = ws::ProducerAcquireOp::create(kb, l, f.pipe);
          // One branch per warp: its load and its commit of exactly those
          // bytes.
          auto loadAndCommit = [&](OpBuilder &ob, Value desc, ValueRange coords,
                                   Value buffer, int64_t bytes) {
            ws::TmaLoadOp::create(ob, l, desc, coords, buffer, stage, f.pipe,
                                  IntegerAttr());
            ws::ProducerCommitOp::create(ob, l, f.pipe, stage,
                                         ob.getI32IntegerAttr(bytes));
          };
          auto ifA = scf::IfOp::create(kb, l, isWarp(kb, 0), true);
          OpBuilder ab = ifA.getThenBodyBuilder();
          loadAndCommit(ab, f.a, ValueRange{k0, row0}, f.aTiles, aBytes);
          OpBuilder ea = ifA.getElseBodyBuilder();
          auto ifS = scf::IfOp::create(ea, l, isWarp(ea, 1), true);
          OpBuilder sb = ifS.getThenBodyBuilder();
          loadAndCommit(sb, f.sfa, ValueRange{row0, kb32}, f.aScales, sfaBytes);
          OpBuilder es = ifS.getElseBodyBuilder();
          auto ifB = scf::IfOp::create(es, l, isWarp(es, 2), true);
          OpBuilder bb = ifB.getThenBodyBuilder();
          loadAndCommit(bb, f.b, ValueRange{k0, bRow}, f.bTiles, bBytes);
          OpBuilder eb = ifB.getElseBodyBuilder();
          ws::ProducerCommitOp::create(eb, l, f.pipe, stage, IntegerAttr());
          scf::YieldOp::create(kb, l);
        });
  });
}

/// Epilogue with D: the warpgroup's rows of the tile into the 128B-swizzled
/// SMEM tile (acc.store), then one TMA store per 128-byte column panel.
void buildTmaStoreEpilogue(OpBuilder &b, Location loc, const KernelFrame &f,
                           int64_t wg, Value total, Value mBlock, Value nBlock,
                           Value isStorer) {
  const GroupedGemmConfig &c = f.cfg;
  Value row = constIndex(b, loc, 64 * wg);
  Value zeroStage = constIndex(b, loc, 0);
  Value epilogueBarrier = f.epilogueBarriers[wg];
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  // The previous tile's TMA store must have read the SMEM tile before it is
  // overwritten.
  auto waitIf = scf::IfOp::create(b, loc, isStorer, false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(waitIf.thenBlock());
    ws::TmaStoreWaitOp::create(b, loc, 0u, true);
  }
  ws::BarrierSyncOp::create(b, loc, epilogueBarrier);
  ws::AccStoreOp::create(b, loc, total, f.dTiles, zeroStage, row);
  ws::FenceAsyncSharedOp::create(b, loc);
  ws::BarrierSyncOp::create(b, loc, epilogueBarrier);
  auto storeIf = scf::IfOp::create(b, loc, isStorer, false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(storeIf.thenBlock());
    Value slot = ws::SmemSlotOp::create(b, loc, sharedPtr, f.dTiles, zeroStage);
    Value m0 = toI32(
        b, loc,
        arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, mBlock, constIndex(b, loc, c.blockM)),
            row));
    Value n0 = toI32(
        b, loc,
        arith::MulIOp::create(b, loc, nBlock, constIndex(b, loc, c.blockN)));
    // One TMA store per 128-byte panel of this warpgroup's 64 rows.
    int64_t panelCols = dPanelCols(c);
    for (int64_t p = 0; p < c.blockN / panelCols; ++p) {
      int32_t srcBytes =
          static_cast<int32_t>((p * c.blockM + 64 * wg) * kDPanelBytes);
      Value src = LLVM::GEPOp::create(b, loc, sharedPtr, b.getI8Type(), slot,
                                      ArrayRef<LLVM::GEPArg>{srcBytes});
      Value n =
          arith::AddIOp::create(b, loc, n0, constI32(b, loc, p * panelCols));
      ws::TmaStoreOp::create(b, loc, src, f.d, ValueRange{n, m0});
    }
  }
}

/// The destinations of one warpgroup thread's rows in the combine scatter:
/// per pass, whether the row has a valid source and where its chunk goes.
struct ScatterTarget {
  Value valid; // i1: rank in [0, R), token in [0, T), slot in [0, K')
  Value dst;   // the chunk's 16 bytes in the source rank's combine row
};

/// Epilogue of combineScatter (header, "Combine scatter"): acc.store into the
/// warpgroup's rows [64 wg, 64 wg + 64) of the 128B-swizzled SMEM tile, the
/// named barrier (stmatrix and the reads below are both generic proxy: no
/// fence), then thread t copies 16-byte chunk t % 16 of rows t / 16 + 8 p
/// (p = 0..7) to its source rank's combine[slot][token][n0 ...]. The
/// sources are read before the barrier (they do not depend on the GEMM), all
/// SMEM reads are issued before the stores so that eight NVLink writes per
/// thread are in flight. The leading barrier of the next tile keeps acc.store
/// from overwriting rows still being read.
void buildScatterEpilogue(OpBuilder &b, Location loc, const KernelFrame &f,
                          int64_t wg, Value total, Value mBlock, Value nBlock) {
  const GroupedGemmConfig &c = f.cfg;
  constexpr int64_t kChunkBytes = 16, kWarpgroupRows = 64, kThreads = 128;
  const int64_t chunksPerRow = c.blockN * 2 / kChunkBytes;
  const int64_t chunksPerPanel = kDPanelBytes / kChunkBytes;
  const int64_t rowsPerPass = kThreads / chunksPerRow;
  const int64_t passes = kWarpgroupRows / rowsPerPass;
  // A pass advances by whole 8-row swizzle atoms, so a thread's XOR pattern
  // is the same in every pass (BLOCK_N = 128: 16 chunks, 8 rows per pass).
  assert(kThreads % chunksPerRow == 0 && rowsPerPass % 8 == 0 &&
         kWarpgroupRows % rowsPerPass == 0 && "scatter needs BLOCK_N = 128");
  Type i32 = b.getI32Type(), v4i32 = ewir::vector16BytesType(b);
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  auto globalPtr = ewir::globalPtrType(b);
  Value zeroStage = constIndex(b, loc, 0);
  Value epilogueBarrier = f.epilogueBarriers[wg];

  // This thread's chunk and first row (tile rows, i32).
  Value warp = toI32(b, loc, ws::RoleWarpIdOp::create(b, loc));
  Value tid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warp, constI32(b, loc, 32)),
      NVVM::LaneIdOp::create(b, loc, i32));
  Value chunk =
      arith::RemUIOp::create(b, loc, tid, constI32(b, loc, chunksPerRow));
  Value tileRow = arith::AddIOp::create(
      b, loc, constI32(b, loc, kWarpgroupRows * wg),
      arith::DivUIOp::create(b, loc, tid, constI32(b, loc, chunksPerRow)));

  // Sources: pool_source[row] = (rank, token, slot); -1 on padding rows.
  Value poolRow0 = arith::AddIOp::create(
      b, loc,
      toI32(
          b, loc,
          arith::MulIOp::create(b, loc, mBlock, constIndex(b, loc, c.blockM))),
      tileRow);
  Value colBytes = ewir::toI64(
      b, loc,
      arith::AddIOp::create(
          b, loc,
          toI32(b, loc,
                arith::MulIOp::create(b, loc, nBlock,
                                      constIndex(b, loc, c.blockN * 2))),
          arith::MulIOp::create(b, loc, chunk, constI32(b, loc, kChunkBytes))));
  Value zero = constI32(b, loc, 0);
  SmallVector<ScatterTarget> targets;
  for (int64_t p = 0; p < passes; ++p) {
    Value poolRow = arith::AddIOp::create(b, loc, poolRow0,
                                          constI32(b, loc, p * rowsPerPass));
    Value source = ewir::elementPtr(b, loc, f.poolSource,
                                    ewir::toI64(b, loc, poolRow), 3 * 4);
    Value rank = ewir::load(b, loc, i32, source, 4);
    Value token = ewir::load(
        b, loc, i32,
        ewir::byteOffset(b, loc, source, ewir::i64Const(b, loc, 4)), 4);
    Value slot = ewir::load(
        b, loc, i32,
        ewir::byteOffset(b, loc, source, ewir::i64Const(b, loc, 8)), 4);
    Value valid = arith::AndIOp::create(
        b, loc,
        arith::AndIOp::create(
            b, loc,
            ewir::inRange(b, loc, rank, zero, constI32(b, loc, c.combineRanks)),
            ewir::inRange(b, loc, token, zero,
                          constI32(b, loc, c.combineTokens))),
        ewir::inRange(b, loc, slot, zero, constI32(b, loc, c.combineTopk)));
    // Invalid rows are not stored; their rank/token/slot become 0 so that
    // the peer-table read stays in bounds.
    auto safe = [&](Value v) {
      return arith::SelectOp::create(b, loc, valid, v, zero).getResult();
    };
    Value remote = ws::PeerPtrOp::create(b, loc, globalPtr, f.combine,
                                         safe(rank), f.peerOffsets);
    Value combineRow = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, ewir::toI64(b, loc, safe(slot)),
                              ewir::i64Const(b, loc, c.combineTokens)),
        ewir::toI64(b, loc, safe(token)));
    Value dst = ewir::byteOffset(
        b, loc, ewir::elementPtr(b, loc, remote, combineRow, c.n * 2),
        colBytes);
    targets.push_back({valid, dst});
  }

  ws::BarrierSyncOp::create(b, loc, epilogueBarrier);
  ws::AccStoreOp::create(b, loc, total, f.dTiles, zeroStage,
                         constIndex(b, loc, kWarpgroupRows * wg));
  ws::BarrierSyncOp::create(b, loc, epilogueBarrier);

  // SMEM address of (tileRow + 8 p, chunk): panel chunk / 8 of [BLOCK_M,
  // 128 B], 16-byte chunk index XOR (row % 8) inside the row (acc.store's
  // 128B swizzle; the slot is 1024-byte aligned).
  Value inPanel =
      arith::RemUIOp::create(b, loc, chunk, constI32(b, loc, chunksPerPanel));
  Value swizzled = arith::XOrIOp::create(
      b, loc, inPanel,
      arith::AndIOp::create(b, loc, tileRow, constI32(b, loc, 7)));
  Value panel =
      arith::DivUIOp::create(b, loc, chunk, constI32(b, loc, chunksPerPanel));
  Value smemOffset = arith::AddIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, panel,
                                constI32(b, loc, c.blockM * kDPanelBytes)),
          arith::MulIOp::create(b, loc, tileRow,
                                constI32(b, loc, kDPanelBytes))),
      arith::MulIOp::create(b, loc, swizzled, constI32(b, loc, kChunkBytes)));
  Value slotPtr =
      ws::SmemSlotOp::create(b, loc, sharedPtr, f.dTiles, zeroStage);
  Value smemBase = LLVM::GEPOp::create(b, loc, sharedPtr, b.getI8Type(),
                                       slotPtr, ValueRange{smemOffset});
  SmallVector<Value> data;
  for (int64_t p = 0; p < passes; ++p) {
    int32_t passBytes = static_cast<int32_t>(p * rowsPerPass * kDPanelBytes);
    Value src = LLVM::GEPOp::create(b, loc, sharedPtr, b.getI8Type(), smemBase,
                                    ArrayRef<LLVM::GEPArg>{passBytes});
    data.push_back(ewir::load(b, loc, v4i32, src, kChunkBytes));
  }
  for (int64_t p = 0; p < passes; ++p) {
    auto ifValid = scf::IfOp::create(b, loc, targets[p].valid, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifValid.thenBlock());
    ewir::store(b, loc, data[p], targets[p].dst, kChunkBytes);
  }
}

/// Role "math<wg>": rows [64 wg, 64 wg + 64) of every tile. Per K block: a
/// fresh wgmma accumulator over the stage, wait, release the stage, then
/// total += partial * sa[row] * sb on CUDA cores. Epilogue: D into the
/// warpgroup's rows of the 128B-swizzled SMEM tile (BF16 or F32)
/// and one TMA store per 128-byte column panel.
void buildMathRole(OpBuilder &b, Location loc, const KernelFrame &f,
                   int64_t wg) {
  const GroupedGemmConfig &c = f.cfg;
  int64_t firstWarp = 4 + 4 * wg;
  auto role =
      ws::RoleOp::create(b, loc, "math" + std::to_string(wg), firstWarp,
                         firstWarp + 4, GroupedGemmConfig::kMathRegs, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&role.getBody().emplaceBlock());
  Value warp = ws::RoleWarpIdOp::create(b, loc);
  Value isStorer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                         constIndex(b, loc, 0));
  Value row = constIndex(b, loc, 64 * wg);
  int64_t kBlocks = c.k / GroupedGemmConfig::kBlockK;
  int64_t nScaleBlocks = c.n / 128, kScaleBlocks = kBlocks;

  buildTileLoop(b, loc, f, [&](OpBuilder &tb, Value mBlock, Value nBlock) {
    Value expert = loadBlockExpert(tb, loc, f, mBlock);
    // SFB row of this tile: (expert * N/128 + nBlock * BLOCK_N/128) * K/128
    // (in entries: single scales, or interleaved pairs).
    Value sfbRow = arith::MulIOp::create(
        tb, loc,
        arith::AddIOp::create(
            tb, loc,
            arith::MulIOp::create(tb, loc, expert,
                                  constI32(tb, loc, nScaleBlocks)),
            toI32(tb, loc,
                  arith::MulIOp::create(tb, loc, nBlock,
                                        constIndex(tb, loc, c.blockN / 128)))),
        constI32(tb, loc, kScaleBlocks));
    Value zero = ws::AccZeroOp::create(tb, loc, f.accType);
    // With release-lag 1 a stage is handed back one K block later, after the
    // next stage's MMA retired: the promotion's SMEM reads of the A scales are
    // then consumed when the producer may refill the slot, so the release
    // needs no async-proxy fence (`reads_retired`). With release-lag 0 the
    // release right after the promotion keeps the lowering's fence (without
    // it, it raced with the refill).
    bool lag = c.releaseLag == 1;
    SmallVector<Value> inits = {zero};
    if (lag)
      inits.push_back(constIndex(tb, loc, 0));
    auto kLoop = scf::ForOp::create(
        tb, loc, constIndex(tb, loc, 0), constIndex(tb, loc, kBlocks),
        constIndex(tb, loc, 1), inits,
        [&](OpBuilder &kb, Location l, Value kBlock, ValueRange iter) {
          // The weight scales are read before waiting so their latency
          // hides behind the TMA wait.
          SmallVector<Value, 2> sb = loadBScales(
              kb, l, f,
              arith::AddIOp::create(kb, l, sfbRow, toI32(kb, l, kBlock)));
          Value stage = ws::ConsumerWaitOp::create(kb, l, f.pipe);
          Value fresh = ws::AccZeroOp::create(kb, l, f.accType);
          Value partial = ws::MmaSm90Op::create(kb, l, f.aTiles, stage, row,
                                                f.bTiles, stage, fresh);
          Value ready = ws::MmaWaitOp::create(kb, l, 0u, ValueRange{partial})
                            .getResult(0);
          IntegerAttr interleave;
          if (c.bScaleInterleave)
            interleave = kb.getI64IntegerAttr(c.bScaleInterleave);
          Value total = ws::AccPromoteOp::create(
              kb, l, ready, iter[0], f.aScales, stage, row, sb, interleave);
          if (!lag) {
            ws::ConsumerReleaseOp::create(kb, l, f.pipe, stage);
            scf::YieldOp::create(kb, l, ValueRange{total});
            return;
          }
          Value notFirst = arith::CmpIOp::create(
              kb, l, arith::CmpIPredicate::ugt, kBlock, constIndex(kb, l, 0));
          auto releaseIf = scf::IfOp::create(kb, l, notFirst, false);
          OpBuilder rb = releaseIf.getThenBodyBuilder();
          // The previous stage's scale reads were consumed by the promotion
          // just issued (it reads the total they produced): no proxy fence.
          ws::ConsumerReleaseOp::create(rb, l, f.pipe, iter[1],
                                        /*reads_retired=*/true);
          scf::YieldOp::create(kb, l, ValueRange{total, stage});
        });
    if (lag)
      ws::ConsumerReleaseOp::create(tb, loc, f.pipe, kLoop.getResult(1),
                                    /*reads_retired=*/true);
    Value total = kLoop.getResult(0);
    if (c.combineScatter)
      buildScatterEpilogue(tb, loc, f, wg, total, mBlock, nBlock);
    else
      buildTmaStoreEpilogue(tb, loc, f, wg, total, mBlock, nBlock, isStorer);
  });
  if (c.combineScatter) {
    // The remote combine stores are visible system-wide before the next
    // kernel's cross-rank barrier (moe_combine_barrier).
    moe::systemFence(b, loc);
    return;
  }
  // Stores still in flight must finish before the CTA exits.
  auto drainIf = scf::IfOp::create(b, loc, isStorer, false);
  b.setInsertionPointToStart(drainIf.thenBlock());
  ws::TmaStoreWaitOp::create(b, loc, 0u, false);
}

/// `megamoe.tma` spec of a descriptor argument (docs/Manifest.md).
DictionaryAttr tmaSpec(Builder &b, StringRef dtype,
                       ArrayRef<Attribute> globalShape,
                       ArrayRef<Attribute> strides, ArrayRef<int64_t> box,
                       StringRef swizzle) {
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("dtype", b.getStringAttr(dtype)),
      b.getNamedAttr("rank", b.getI64IntegerAttr(globalShape.size())),
      b.getNamedAttr("global_shape", b.getArrayAttr(globalShape)),
      b.getNamedAttr("global_strides_bytes", b.getArrayAttr(strides)),
      b.getNamedAttr("box", b.getI64ArrayAttr(box)),
      b.getNamedAttr("element_strides",
                     b.getI64ArrayAttr(SmallVector<int64_t>(box.size(), 1))),
      b.getNamedAttr("swizzle", b.getStringAttr(swizzle)),
      b.getNamedAttr("interleave", b.getStringAttr("none")),
      b.getNamedAttr("l2_promotion", b.getStringAttr("256B")),
      b.getNamedAttr("oob_fill", b.getStringAttr("zero"))};
  return b.getDictionaryAttr(attrs);
}

/// A manifest expression: the literal `value` with a static M (the kernel
/// then lives among the layer's symbols), else `symbolic` over E, N, K, M.
Attribute shapeExpr(Builder &b, const GroupedGemmConfig &c, StringRef symbolic,
                    int64_t value) {
  if (c.staticM > 0)
    return b.getI64IntegerAttr(value);
  return b.getStringAttr(symbolic);
}

/// The kernel's parameters: types, names, bindings and TMA specs.
SmallVector<KernelParam> kernelParams(Builder &b, const GroupedGemmConfig &c,
                                      const GroupedGemmBinds &binds) {
  MLIRContext *ctx = b.getContext();
  Type fp8 = b.getType<Float8E4M3FNType>();
  Type outType = c.outBytes() == 4 ? Type(b.getF32Type()) : b.getBF16Type();
  auto globalPtr = LLVM::LLVMPointerType::get(ctx, 1);
  int64_t m = c.staticM, panelCols = dPanelCols(c);
  auto e = [&](StringRef symbolic, int64_t value) {
    return shapeExpr(b, c, symbolic, value);
  };
  SmallVector<KernelParam> params;
  params.push_back({kParamA, binds.a,
                    ws::TmaDescType::get(ctx, {c.blockM, 128}, fp8, 128),
                    tmaSpec(b, "e4m3", {e("K", c.k), e("M", m)}, {e("K", c.k)},
                            {128, c.blockM}, "128B")});
  params.push_back(
      {kParamB, binds.b, ws::TmaDescType::get(ctx, {c.blockN, 128}, fp8, 128),
       tmaSpec(b, "e4m3", {e("K", c.k), e("E * N", c.experts * c.n)},
               {e("K", c.k)}, {128, c.blockN}, "128B")});
  params.push_back({kParamSfa, binds.aScales,
                    ws::TmaDescType::get(ctx, {1, c.blockM}, b.getF32Type(), 0),
                    tmaSpec(b, "f32", {e("M", m), e("K / 128", c.k / 128)},
                            {e("M * 4", m * 4)}, {c.blockM, 1}, "none")});
  if (!c.combineScatter)
    params.push_back(
        {kParamD, binds.d,
         ws::TmaDescType::get(ctx, {64, panelCols}, outType, kDPanelBytes),
         tmaSpec(b, c.outType, {e("N", c.n), e("M", m)},
                 {e(c.outBytes() == 4 ? "N * 4" : "N * 2", c.n * c.outBytes())},
                 {panelCols, 64}, "128B")});
  params.push_back({kParamSfb, binds.bScales, globalPtr});
  params.push_back({kParamBlockExpert, binds.blockExpert, globalPtr});
  params.push_back({kParamNumMBlocks, binds.numMBlocks,
                    c.deviceMBlocks ? Type(globalPtr) : Type(b.getI32Type())});
  if (c.combineScatter) {
    params.push_back({kParamPoolSource, binds.poolSource, globalPtr});
    params.push_back({kParamCombine, binds.combine, globalPtr});
    params.push_back({kParamPeerOffsets, binds.peerOffsets, globalPtr});
  }
  return params;
}

/// One CTA per SM, never more CTAs than tiles (when the host knows how many).
SmallVector<Attribute, 3> kernelGrid(Builder &b, const GroupedGemmConfig &c) {
  int64_t nBlocks = c.n / c.blockN;
  Attribute x;
  if (c.staticM > 0)
    x = b.getStringAttr("min(num_sms, " +
                        std::to_string(c.staticM / c.blockM * nBlocks) + ")");
  else if (c.deviceMBlocks)
    x = b.getStringAttr("num_sms");
  else
    x = b.getStringAttr("min(num_sms, num_m_blocks * (N / " +
                        std::to_string(c.blockN) + "))");
  return {x, b.getI64IntegerAttr(1), b.getI64IntegerAttr(1)};
}

/// The row blocks to compute: the parameter's value, or the i32 it points to
/// (written by an earlier kernel on the stream, so a plain load sees it),
/// clamped to [0, M / BLOCK_M] so that a bad count cannot index block_expert
/// out of bounds.
Value numMBlocksAtStart(OpBuilder &b, Location loc, const GroupedGemmConfig &c,
                        Value param) {
  Value count = param;
  if (c.deviceMBlocks)
    count =
        LLVM::LoadOp::create(b, loc, b.getI32Type(), param, /*alignment=*/4);
  Value most = constI32(b, loc, c.rowCapacity() / c.blockM);
  count = arith::MinSIOp::create(b, loc, count, most);
  return arith::MaxSIOp::create(b, loc, count, constI32(b, loc, 0));
}

} // namespace

void megamoe::buildGroupedGemmKernel(OpBuilder &b, Location loc,
                                     StringRef kernelName,
                                     const GroupedGemmConfig &c,
                                     const GroupedGemmBinds &binds) {
  MLIRContext *ctx = b.getContext();
  SmallVector<KernelParam> params = kernelParams(b, c, binds);
  auto kernel =
      createBoundKernel(b, loc, kernelName, params, c.numThreads(),
                        c.entryRegisterCap(), c.chip, kernelGrid(b, c));
  OpBuilder::InsertionGuard guard(b);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);

  // Shared memory: the pipeline ring (A, B, A scales) and the output tiles.
  Type fp8 = b.getType<Float8E4M3FNType>();
  Type f32 = b.getF32Type();
  Type outType = c.outBytes() == 4 ? f32 : Type(b.getBF16Type());
  int64_t stages = c.resolvedStages();
  unsigned st = static_cast<unsigned>(stages);
  KernelFrame f{c, stages};
  // Arguments by parameter name (their positions depend on the options).
  auto arg = [&](StringRef name) -> Value {
    for (auto [i, p] : llvm::enumerate(params))
      if (p.name == name)
        return body->getArgument(i);
    return Value();
  };
  f.a = arg(kParamA);
  f.b = arg(kParamB);
  f.sfa = arg(kParamSfa);
  f.d = arg(kParamD);
  f.sfb = arg(kParamSfb);
  f.blockExpert = arg(kParamBlockExpert);
  f.numMBlocks = numMBlocksAtStart(b, loc, c, arg(kParamNumMBlocks));
  f.poolSource = arg(kParamPoolSource);
  f.combine = arg(kParamCombine);
  f.peerOffsets = arg(kParamPeerOffsets);
  f.aTiles = ws::SmemAllocOp::create(
      b, loc, ws::SmemType::get(ctx, {c.blockM, 128}, fp8, st, 1024, 128),
      "a_tiles", IntegerAttr());
  f.bTiles = ws::SmemAllocOp::create(
      b, loc, ws::SmemType::get(ctx, {c.blockN, 128}, fp8, st, 1024, 128),
      "b_tiles", IntegerAttr());
  f.aScales = ws::SmemAllocOp::create(
      b, loc, ws::SmemType::get(ctx, {c.blockM}, f32, st, 128, 0), "a_scales",
      IntegerAttr());
  f.dTiles =
      ws::SmemAllocOp::create(b, loc,
                              ws::SmemType::get(ctx, {c.blockM, c.blockN},
                                                outType, 1, 1024, kDPanelBytes),
                              "d_tiles", IntegerAttr());
  int64_t mathWarps = 4 * c.numMathWarpgroups();
  // Producer arrivals: the 4 warps of the TMA role; consumer: every math warp.
  f.pipe = ws::PipelineCreateOp::create(
      b, loc, ws::PipelineType::get(ctx, st), "ab", 4,
      static_cast<uint32_t>(mathWarps), IntegerAttr());
  for (int64_t wg = 0; wg < c.numMathWarpgroups(); ++wg)
    f.epilogueBarriers.push_back(ws::NamedBarrierOp::create(
        b, loc, ws::BarrierType::get(ctx), static_cast<uint32_t>(1 + wg),
        b.getStrArrayAttr({"math" + std::to_string(wg)})));
  f.accType = ws::AccType::get(ctx, 64, c.blockN, f32);

  auto roles = ws::RolesOp::create(b, loc);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&roles.getBody().emplaceBlock());
    buildProducerRole(b, loc, f);
    for (int64_t wg = 0; wg < c.numMathWarpgroups(); ++wg)
      buildMathRole(b, loc, f, wg);
  }
  ws::ReturnOp::create(b, loc);
}

void megamoe::buildGroupedGemm(ModuleOp module, const GroupedGemmConfig &c) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());

  // The gpu.module: target, and the config symbols the manifest carries.
  auto target = ::megamoe::nvvmTargetForChip(ctx, c.chip);
  if (!target) {
    emitError(loc) << "no PTX target for chip '" << c.chip
                   << "'; supported: " << ::megamoe::supportedChips();
    return;
  }
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, "grouped_gemm",
                                            b.getArrayAttr({target}));
  auto sym = [&](StringRef name, int64_t v) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(v));
  };
  gpuModule->setAttr(
      ::megamoe::manifest::kSymbols,
      b.getDictionaryAttr({sym("E", c.experts), sym("N", c.n), sym("K", c.k),
                           sym("MAX_M", c.rowCapacity()),
                           sym("BLOCK_M", c.blockM), sym("BLOCK_N", c.blockN),
                           sym("STAGES", c.resolvedStages()),
                           sym("OUT_BYTES", c.outBytes()),
                           sym("B_SCALE_INTERLEAVE", c.bScaleInterleave),
                           sym("DEVICE_M_BLOCKS", c.deviceMBlocks ? 1 : 0),
                           sym("STATIC_M", c.staticM)}));
  if (c.combineScatter) {
    // The combine buffer's shape: only for the scatter (keeps the others'
    // symbols unchanged).
    NamedAttrList symbols(cast<DictionaryAttr>(
        gpuModule->getAttr(::megamoe::manifest::kSymbols)));
    symbols.set("COMBINE_TOKENS", b.getI64IntegerAttr(c.combineTokens));
    symbols.set("COMBINE_TOPK", b.getI64IntegerAttr(c.combineTopk));
    symbols.set("COMBINE_RANKS", b.getI64IntegerAttr(c.combineRanks));
    gpuModule->setAttr(::megamoe::manifest::kSymbols,
                       symbols.getDictionary(ctx));
  }
  // What the launcher supplies: M unless static, num_m_blocks when the grid
  // expression uses it.
  SmallVector<StringRef> runtime;
  if (c.staticM == 0)
    runtime.push_back("M");
  if (c.staticM == 0 && !c.deviceMBlocks)
    runtime.push_back("num_m_blocks");
  gpuModule->setAttr(::megamoe::manifest::kRuntimeSymbols,
                     b.getStrArrayAttr(runtime));
  b.setInsertionPointToStart(gpuModule.getBody());
  buildGroupedGemmKernel(b, loc, "grouped_gemm_fp8", c, GroupedGemmBinds());
}
