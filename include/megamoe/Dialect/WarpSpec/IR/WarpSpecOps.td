#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECOPS_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECOPS_TD

include "megamoe/Dialect/WarpSpec/IR/WarpSpecDialect.td"
include "megamoe/Dialect/WarpSpec/IR/WarpSpecEnums.td"
include "megamoe/Dialect/WarpSpec/IR/WarpSpecTypes.td"
include "megamoe/Dialect/WarpSpec/IR/WarpSpecGlobalTypes.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// Kernel container
//===----------------------------------------------------------------------===//

def WarpSpec_KernelOp : WarpSpec_Op<"kernel", [
    AutomaticAllocationScope, FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "a warp-specialized GPU kernel";
  let description = [{
    A kernel entry point, placed in a `gpu.module` whose `#nvvm.target`
    names the same chip. Its single-block body holds, in order: SMEM buffers
    (`warpspec.smem.alloc`), pipelines (`warpspec.pipeline.create`), named
    barriers (`warpspec.named_barrier`), any uniform setup (arith, llvm),
    then one `warpspec.roles` and `warpspec.return`.

    Attributes:
    - `threads`: block size (`nvvm.reqntid`), a multiple of 32 in [32, 1024]
      (a multiple of 128 when roles are present, since setmaxnreg acts on
      whole warpgroups);
    - `maxnreg`: the register cap at entry (`nvvm.maxnreg`); `threads *
      maxnreg` must fit the 65,536 registers of an SM;
    - `chip`: `sm_90a` or `sm_100a`;
    - `cluster` (optional): cluster dimensions `array<i32: x, y, z>`
      (`.reqnctapercluster`); a kernel with more than one CTA per cluster
      ends with a cluster barrier (`barrier.cluster.arrive` / `wait`) so
      that no CTA exits while a peer may still write its shared memory
      (multicast TMA, remote mbarrier arrivals);
    - `smem_bytes` (optional): dynamic shared memory, set by
      `warpspec-plan-smem`;
    - `programmatic_launch` (unit): the kernel may start before the grid
      ahead of it in the stream has finished (programmatic dependent launch:
      the manifest says `programmatic_launch`, and the runtime launches it
      with programmatic stream serialization). Every thread first waits for
      that grid's completion and memory (`griddepcontrol.wait`), so nothing
      it reads or writes races the previous kernel. Its own dependent grid
      is scheduled as its CTAs exit (the implicit trigger), or, with
      `trigger_dependents_at_entry`, right after the wait
      (`griddepcontrol.launch_dependents`: that grid's CTAs then take SMs
      as this one's exit and wait there).

    Arguments are typed global pointers (`!warpspec.global<T>`, or untyped
    `!llvm.ptr<1>`; both lower to `!llvm.ptr<1>`), integers, floats or
    `!warpspec.tma_desc` (passed as a 128-byte `__grid_constant__` param).

    ```mlir
    warpspec.kernel @gemm(%a: !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>,
                          %out: !llvm.ptr<1>, %m: i32)
        attributes {chip = "sm_90a", maxnreg = 168 : i32, threads = 384 : i32} {
      ...
      warpspec.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       ConfinedAttr<I32Attr, [IntPositive]>:$threads,
                       ConfinedAttr<I32Attr, [IntPositive]>:$maxnreg,
                       StrAttr:$chip,
                       OptionalAttr<DenseI32ArrayAttr>:$cluster,
                       OptionalAttr<I64Attr>:$smem_bytes,
                       UnitAttr:$programmatic_launch,
                       UnitAttr:$trigger_dependents_at_entry);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// Warps in the block: threads / 32.
    unsigned getNumWarps() { return getThreads() / 32; }
    /// The roles op of the body, or null.
    class RolesOp getRolesOp();
    /// CTAs per cluster: the product of `cluster` (1 without it).
    int64_t getClusterSize();
  }];
}

def WarpSpec_ReturnOp : WarpSpec_Op<"return", [
    Pure, HasParent<"KernelOp">, Terminator, ReturnLike]> {
  let summary = "end of a warp-specialized kernel";
  let description = [{
    Terminates the body of `warpspec.kernel`. Every thread of the block
    returns; nothing waits for outstanding TMA stores (use
    `warpspec.tma.store.wait` first).
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

def WarpSpec_RolesOp : WarpSpec_Op<"roles", [
    HasParent<"KernelOp">, SingleBlock, NoTerminator]> {
  let summary = "the split of a kernel body into warp roles";
  let description = [{
    Holds one `warpspec.role` per warp range. All threads of the block reach
    this op; each warp then runs the region of the role that owns it (warps
    that no role owns skip to the end). There is no implicit barrier at the
    end: the roles' threads simply continue after it.

    Verifier: the roles' warp ranges are disjoint and inside the kernel's
    `threads`; roles that share a warpgroup ask for the same register count
    (`setmaxnreg` acts on a whole warpgroup); the registers of all warps
    (role `regs`, or the kernel's `maxnreg` for warps without a role) fit the
    65,536 registers of an SM at one CTA per SM.

    ```mlir
    warpspec.roles {
      warpspec.role "tma" warps [0, 1) regs 40 { ... }
      warpspec.role "math" warps [4, 12) regs 232 mma { ... }
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def WarpSpec_RoleOp : WarpSpec_Op<"role", [
    HasParent<"RolesOp">, SingleBlock, NoTerminator]> {
  let summary = "code run by one warp range with one register budget";
  let description = [{
    The region runs on warps `[warp_begin, warp_end)` of the block (all their
    threads). On entry each warpgroup of the range sets its register budget
    to `regs` with `setmaxnreg` (inc if above the kernel's `maxnreg`, dec if
    below, nothing if equal). `regs` is a multiple of 8 in [24, 256].

    `mma` marks a role that issues warpgroup MMA (`warpspec.mma.sm90`,
    `warpspec.acc.*`): its range must be warpgroup-aligned (a multiple of 4
    warps starting at a multiple of 4). Such ops outside an `mma` role are
    rejected.

    ```mlir
    warpspec.role "math" warps [4, 12) regs 232 mma {
      %wg = warpspec.role.warp_id
      ...
    }
    ```
  }];
  let arguments = (ins StrAttr:$name,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$warp_begin,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$warp_end,
                       I32Attr:$regs,
                       UnitAttr:$mma);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name `warps` ` ` `[` $warp_begin `,` $warp_end `)` `regs` $regs (`mma` $mma^)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    unsigned getNumWarps() { return getWarpEnd() - getWarpBegin(); }
    unsigned getNumThreads() { return 32 * getNumWarps(); }
  }];
}

def WarpSpec_RoleWarpIdOp : WarpSpec_Op<"role.warp_id", [Pure]> {
  let summary = "index of the executing warp inside its role";
  let description = [{
    The warp-uniform index of the executing warp relative to the first warp
    of the enclosing role, in `[0, warp_end - warp_begin)`. Divide by 4 for
    the warpgroup index inside an `mma` role.

    ```mlir
    %w = warpspec.role.warp_id
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

def WarpSpec_NamedBarrierOp : WarpSpec_Op<"named_barrier", [
    HasParent<"KernelOp">, Pure]> {
  let summary = "declare a hardware named barrier among roles";
  let description = [{
    Declares hardware barrier `id` (1..15; 0 is the block-wide barrier) shared
    by the threads of the listed roles. The thread count of `bar.sync` /
    `bar.arrive` is derived: 32 x the total warps of those roles
    (`getNumThreads()`). Ids are unique per kernel.

    ```mlir
    %epi = warpspec.named_barrier 1 roles ["math"]
    ```
  }];
  let arguments = (ins I32Attr:$id, StrArrayAttr:$roles);
  let results = (outs WarpSpec_BarrierType:$result);
  let assemblyFormat = "$id `roles` $roles attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// 32 x the warps of the participating roles (0 if a role is missing).
    unsigned getNumThreads();
    /// True if the role named `name` takes part.
    bool hasRole(::llvm::StringRef name);
  }];
}

def WarpSpec_BarrierSyncOp : WarpSpec_Op<"barrier.sync"> {
  let summary = "wait at a named barrier (bar.sync id, n)";
  let description = [{
    Every thread of every participating role must execute it once per
    barrier phase; the executing threads block until all of them arrived.
    Orders shared-memory (and global) accesses of the participants before it
    with those after it (CTA scope), like `__syncthreads` for a subset.
    Allowed only inside a role that takes part in the barrier.

    ```mlir
    warpspec.barrier.sync %epi
    ```
  }];
  let arguments = (ins WarpSpec_BarrierType:$barrier);
  let assemblyFormat = "$barrier attr-dict";
  let hasVerifier = 1;
}

def WarpSpec_BarrierArriveOp : WarpSpec_Op<"barrier.arrive"> {
  let summary = "arrive at a named barrier without waiting (bar.arrive id, n)";
  let description = [{
    Counts the executing threads as arrived and continues; release semantics
    at CTA scope for their prior memory accesses towards the threads that
    `warpspec.barrier.sync` on the same barrier. Allowed only inside a role
    that takes part in the barrier.

    ```mlir
    warpspec.barrier.arrive %epi
    ```
  }];
  let arguments = (ins WarpSpec_BarrierType:$barrier);
  let assemblyFormat = "$barrier attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def WarpSpec_SmemAllocOp : WarpSpec_Op<"smem.alloc", [HasParent<"KernelOp">]> {
  let summary = "declare a statically planned shared-memory buffer";
  let description = [{
    Declares a buffer of the kernel's dynamic shared memory. `offset` (bytes
    from the start of dynamic SMEM) is assigned by `warpspec-plan-smem`; a
    hand-written offset must be a multiple of the type's `align`. The name
    appears in diagnostics and in the manifest.

    ```mlir
    %a = warpspec.smem.alloc "a_tiles" : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>
    ```
  }];
  let arguments = (ins StrAttr:$name,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$offset);
  let results = (outs WarpSpec_SmemType:$result);
  let assemblyFormat = "$name (`offset` $offset^)? attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def WarpSpec_SmemSlotOp : WarpSpec_Op<"smem.slot", [Pure]> {
  let summary = "address of one slot of a shared-memory buffer";
  let description = [{
    `base + offset + stage * slotStride` as a shared-memory pointer. A
    constant `stage` must be below `slots`; a stage produced by a pipeline
    must come from a pipeline with as many stages as the buffer has slots.

    ```mlir
    %p = warpspec.smem.slot %c[%zero] : !warpspec.smem<128x128xbf16, slots = 1, align = 1024> -> !llvm.ptr<3>
    ```
  }];
  let arguments = (ins WarpSpec_SmemType:$buffer, Index:$stage);
  let results = (outs WarpSpec_SharedPtr:$result);
  let assemblyFormat = [{
    $buffer `[` $stage `]` attr-dict `:` qualified(type($buffer)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

def WarpSpec_PipelineCreateOp : WarpSpec_Op<"pipeline.create", [
    HasParent<"KernelOp">]> {
  let summary = "declare a multi-stage producer/consumer pipeline";
  let description = [{
    Declares `stages` pairs of mbarriers `full[s]` / `empty[s]` in shared
    memory (8 B each; `offset` assigned by `warpspec-plan-smem`). `full[s]`
    completes a phase when `producer_arrivals` warps committed stage `s`
    (and all expected transaction bytes landed); `empty[s]` when
    `consumer_arrivals` warps released it. Initialised by one thread before
    the roles start (`mbarrier.init`, `fence.mbarrier_init`, then a block
    barrier), so it must be created in the kernel body, outside the roles.

    Arrivals are counted per warp: `producer.commit` and `consumer.release`
    arrive once per executing warp. The verifier checks the counts against
    the warps of the roles that commit / release the pipeline.

    With `cluster C` the pipeline is shared by the C CTAs of a cluster
    (the kernel's `cluster` must be `[C, 1, 1]`): every `consumer.release`
    arrives on `empty[stage]` of each CTA of the cluster (a remote
    `mbarrier.arrive.shared::cluster` through `mapa`), so `empty[s]` expects
    C x `consumer_arrivals` arrivals and a producer refills a stage only when
    the consumers of every CTA released it. That is what lets a producer
    write the peers' slots (`tma.load ... multicast C`). The initialisation
    then ends with a cluster barrier instead of the block barrier: no peer
    arrives on or multicasts into a barrier before it is initialised.
    `full[s]` stays local (its transaction bytes count what lands in this
    CTA, from whichever CTA issued the copy).

    With `buffers(...)` the pipeline is a ring: the listed SMEM buffers are
    its stages' slots (each must have one slot per stage), and every copy
    completing on the pipeline must fill one of them. The per-stage bytes
    that bound `producer.commit`'s transaction count then come from the
    ring's buffers.

    ```mlir
    %ab = warpspec.pipeline.create "ab" producer_arrivals 1 consumer_arrivals 8 : !warpspec.pipeline<4>
    %ring = warpspec.pipeline.create "ab" producer_arrivals 4 consumer_arrivals 8
        buffers(%a, %b : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
                         !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>)
        : !warpspec.pipeline<4>
    ```
  }];
  let arguments = (ins StrAttr:$name,
                       ConfinedAttr<I32Attr, [IntPositive]>:$producer_arrivals,
                       ConfinedAttr<I32Attr, [IntPositive]>:$consumer_arrivals,
                       Variadic<WarpSpec_SmemType>:$buffers,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$offset,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>]>>:$cluster);
  let results = (outs WarpSpec_PipelineType:$result);
  let assemblyFormat = [{
    $name `producer_arrivals` $producer_arrivals `consumer_arrivals`
    $consumer_arrivals (`cluster` $cluster^)?
    (`buffers` `(` $buffers^ `:` qualified(type($buffers)) `)`)?
    (`offset` $offset^)? attr-dict `:` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes of the mbarriers: 2 (full, empty) x stages x 8 B.
    int64_t getBarrierBytes();
    /// CTAs that release each stage: `cluster`, or 1.
    unsigned getClusterCtas() { return getCluster().value_or(1); }
  }];
}

def WarpSpec_ProducerAcquireOp : WarpSpec_Op<"producer.acquire"> {
  let summary = "wait until the producer's next stage is empty";
  let description = [{
    Advances the executing role's producer iterator of `pipeline` and waits
    (all threads of the warp) until `empty[stage]` completed the phase that
    frees the stage (the first `stages` acquires do not wait). Acquire
    semantics at CTA scope: the consumers' reads of the slot happen before
    the producer's later writes. Returns the stage index for `smem.slot`,
    `tma.load` and `producer.commit`.

    ```mlir
    %s = warpspec.producer.acquire %ab : !warpspec.pipeline<4>
    ```
  }];
  let arguments = (ins WarpSpec_PipelineType:$pipeline);
  let results = (outs Index:$stage);
  let assemblyFormat = "$pipeline attr-dict `:` qualified(type($pipeline))";
  let hasVerifier = 1;
}

def WarpSpec_ProducerCommitOp : WarpSpec_Op<"producer.commit"> {
  let summary = "mark a stage as filled (arrive on full[stage], expecting tx bytes)";
  let description = [{
    One arrival per executing warp (lane 0) on `full[stage]`. The phase
    additionally waits for the bytes of the asynchronous copies (`tma.load`,
    `bulk.copy` of a constant size) into this stage that sit in the same
    block as the commit: the expected transaction count is derived from
    those copies (`mbarrier.arrive.expect_tx` of their bytes; a plain arrive
    when there are none), so a kernel never writes it by hand and cannot get
    it wrong. Release semantics at CTA scope for the warp's prior generic
    shared-memory writes (for plain `st.shared` producers).

    `tx_bytes N` states the count explicitly, for copies the op cannot see
    (in another block, or of a dynamic size); it must be below 2^20 and,
    when the stage's copies are visible in the same block, equal to the
    bytes they move.

    ```mlir
    warpspec.producer.commit %ab[%s] : !warpspec.pipeline<4>
    warpspec.producer.commit %ab[%s] tx_bytes 32768 : !warpspec.pipeline<4>
    ```
  }];
  let arguments = (ins WarpSpec_PipelineType:$pipeline, Index:$stage,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$tx_bytes);
  let assemblyFormat = [{
    $pipeline `[` $stage `]` (`tx_bytes` $tx_bytes^)? attr-dict `:` qualified(type($pipeline))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The transaction bytes the commit expects: `tx_bytes`, else the bytes
    /// of the stage's copies in the commit's block (0 if none).
    int64_t getExpectedTxBytes();
  }];
}

def WarpSpec_ConsumerWaitOp : WarpSpec_Op<"consumer.wait"> {
  let summary = "wait until the consumer's next stage is full";
  let description = [{
    Advances the executing role's consumer iterator of `pipeline` and waits
    (all threads) until `full[stage]` completes the current phase. Acquire
    semantics at CTA scope: the producer's writes, including the bytes of
    TMA copies completed on the barrier, are visible afterwards (also to the
    async proxy, e.g. wgmma). Returns the stage index.

    `known_stage j`: the kernel asserts that the role's consumer iterator is
    j modulo the stage count here (e.g. a K loop unrolled over the stages
    whose every tile consumes a multiple of them), so the stage is the
    constant j and every address derived from it (slot, barrier, wgmma
    descriptor) folds; the phase still comes from the iterator. A wrong
    assertion waits on the wrong barrier: only builders that prove it use it
    (BlockScaledMainloop, MainloopConfig::unrollStages).

    ```mlir
    %s = warpspec.consumer.wait %ab : !warpspec.pipeline<4>
    %s1 = warpspec.consumer.wait %ab known_stage 1 : !warpspec.pipeline<4>
    ```
  }];
  let arguments = (ins WarpSpec_PipelineType:$pipeline,
                       OptionalAttr<I64Attr>:$known_stage);
  let results = (outs Index:$stage);
  let assemblyFormat = [{
    $pipeline (`known_stage` $known_stage^)? attr-dict `:`
    qualified(type($pipeline))
  }];
  let hasVerifier = 1;
}

def WarpSpec_ConsumerReleaseOp : WarpSpec_Op<"consumer.release"> {
  let summary = "hand a stage back to the producer (arrive on empty[stage])";
  let description = [{
    One arrival per executing warp (lane 0) on `empty[stage]`, with release
    semantics at CTA scope: the warp's reads of the slot happen before the
    producer refills it. wgmma reads are asynchronous: release a stage only
    after `warpspec.mma.wait` retired the MMAs reading it.

    The producer refills the slot with TMA, i.e. through the async proxy,
    while `acc.promote` and other loads read it through the generic proxy; so
    by default the release first fences the async proxy
    (`fence.proxy.async.shared::cta`), which orders the warp's generic reads
    before the refill even when their results are used only after the
    release. `reads_retired` drops that fence: the kernel asserts that every
    generic read of the slot by the releasing warps has already been consumed
    by an earlier instruction (e.g. a stage released one K block late, after
    the promotion that used its scales), so no read can still be in flight.

    `count %c` (i32, the same in every lane): lane 0 arrives `%c` times at
    once (`mbarrier.arrive ..., count`), for its own warp and for the warps
    of other consumer roles that skipped this stage
    (`warpspec.consumer.skip`); not on a cluster pipeline, whose arrivals go
    to every CTA's barrier.

    ```mlir
    warpspec.consumer.release %ab[%s] : !warpspec.pipeline<4>
    warpspec.consumer.release %ab[%prev] reads_retired : !warpspec.pipeline<4>
    warpspec.consumer.release %ab[%s] count %two : !warpspec.pipeline<4>
    ```
  }];
  let arguments = (ins WarpSpec_PipelineType:$pipeline, Index:$stage,
                       Optional<I32>:$count, UnitAttr:$reads_retired);
  let assemblyFormat = "$pipeline `[` $stage `]` (`count` $count^)? (`reads_retired` $reads_retired^)? attr-dict `:` qualified(type($pipeline))";
  let hasVerifier = 1;
}

def WarpSpec_ConsumerSkipOp : WarpSpec_Op<"consumer.skip"> {
  let summary = "advance the consumer iterator past stages it neither waits for nor releases";
  let description = [{
    Advances the executing role's consumer iterator of `pipeline` by
    `stages` without waiting or arriving: the role takes no part in those
    stages, and another consumer role hands each of them back for it
    (`warpspec.consumer.release ... count`), so the empty barriers still see
    every consumer warp's arrival. E.g. a math warpgroup without rows in a
    tile (a 64-row half block of a 128-row tile) skips the tile's stages
    while the other releases them twice. The next wait of the role then
    uses the stage after them; the producer cannot refill that stage twice
    before it, since its release is still this role's.

    ```mlir
    warpspec.consumer.skip %ab, 8 : !warpspec.pipeline<4>
    ```
  }];
  let arguments = (ins WarpSpec_PipelineType:$pipeline, I64Attr:$stages);
  let assemblyFormat = "$pipeline `,` $stages attr-dict `:` qualified(type($pipeline))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

def WarpSpec_TmaLoadOp : WarpSpec_Op<"tma.load"> {
  let summary = "TMA tile load global -> SMEM slot, completing on a pipeline stage";
  let description = [{
    Issued once per executing warp (lane 0): `cp.async.bulk.tensor` of one
    box of `desc` at the element coordinates `coords` (innermost first, as in
    PTX; one i32 per box dimension) into slot `stage` of `buffer` (at
    `slot_offset` bytes inside the slot), signalling `complete_tx` of the box
    bytes on `full[stage]` of `pipeline`. Out-of-bounds elements are zero.

    The box must match the buffer's element type and swizzle and fit in the
    slot; the buffer must have one slot per pipeline stage.

    `multicast C`: the C CTAs of the cluster each issue the op and together
    load C boxes stacked along the outermost box dimension: CTA of cluster
    rank r loads the box at `coords` with the outermost coordinate plus
    r x that box extent into `slot_offset` + r x the box bytes of the slot,
    and multicasts it (`.multicast::cluster`, ctaMask 2^C - 1) to the same
    slot of every CTA of the cluster, completing on each one's `full[stage]`.
    So each CTA's stage receives C x the box bytes, which is what a commit
    in the op's block expects. The pipeline must be a `cluster C` pipeline
    (a producer may write a peer's slot only once that peer's consumers
    released it), and every CTA of the cluster must issue the same multicast
    loads for a stage (the kernel's predicate, if any, must agree across
    the cluster).

    ```mlir
    warpspec.tma.load %da[%k, %m] -> %a[%s], %ab
        : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>,
          !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
          !warpspec.pipeline<4>
    ```
  }];
  let arguments = (ins WarpSpec_TmaDescType:$desc, Variadic<I32>:$coords,
                       WarpSpec_SmemType:$buffer, Index:$stage,
                       WarpSpec_PipelineType:$pipeline,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$slot_offset,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>]>>:$multicast);
  let assemblyFormat = [{
    $desc `[` $coords `]` `->` $buffer `[` $stage `]` `,` $pipeline
    (`slot_offset` $slot_offset^)? (`multicast` $multicast^)? attr-dict
    `:` qualified(type($desc)) `,` qualified(type($buffer)) `,` qualified(type($pipeline))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes landing in each CTA's slot: the box, times `multicast`.
    int64_t getDeliveredBytes() {
      return getDesc().getType().getBoxBytes() * getMulticast().value_or(1);
    }
  }];
}

def WarpSpec_TmaStoreOp : WarpSpec_Op<"tma.store"> {
  let summary = "TMA tile store SMEM -> global";
  let description = [{
    Issued once per executing warp (lane 0): `cp.async.bulk.tensor` store of
    one box from `source` (shared memory, laid out as the descriptor's box
    and swizzle) to the element coordinates `coords` (innermost first),
    followed by `cp.async.bulk.commit_group`. Reads SMEM through the async
    proxy: generic-proxy writes of the tile must be made visible with
    `warpspec.fence.async_shared` (and a barrier among the writers) first.
    Completion is observed only by the issuing thread with
    `warpspec.tma.store.wait`.

    ```mlir
    warpspec.tma.store %p -> %dc[%n, %m] : !warpspec.tma_desc<64x128xbf16, swizzle = 0>
    ```
  }];
  let arguments = (ins WarpSpec_SharedPtr:$source, WarpSpec_TmaDescType:$desc,
                       Variadic<I32>:$coords);
  let assemblyFormat = [{
    $source `->` $desc `[` $coords `]` attr-dict `:` qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def WarpSpec_TmaStoreWaitOp : WarpSpec_Op<"tma.store.wait"> {
  let summary = "wait for the issuing thread's TMA stores";
  let description = [{
    `cp.async.bulk.wait_group(.read) pending` in the lane that issued the
    stores (lane 0 of the warp). With `read`, only the SMEM reads are waited
    for (the source may be overwritten); without it the global writes are
    complete and visible to the executing thread, ready to be published
    with a release `warpspec.counter.add`.

    ```mlir
    warpspec.tma.store.wait pending 0 read
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending,
                       UnitAttr:$read);
  let assemblyFormat = "`pending` $pending (`read` $read^)? attr-dict";
}

def WarpSpec_TmaPrefetchOp : WarpSpec_Op<"tma.prefetch"> {
  let summary = "prefetch a TMA descriptor into the descriptor cache";
  let description = [{
    `prefetch.tensormap` of the descriptor, once per executing warp (lane 0).
    A hint with no memory-ordering effect.

    ```mlir
    warpspec.tma.prefetch %da : !warpspec.tma_desc<128x128xf8E4M3FN, swizzle = 128>
    ```
  }];
  let arguments = (ins WarpSpec_TmaDescType:$desc);
  let assemblyFormat = "$desc attr-dict `:` qualified(type($desc))";
}

def WarpSpec_BulkCopyOp : WarpSpec_Op<"bulk.copy"> {
  let summary = "1-D bulk copy global -> SMEM slot, completing on a pipeline stage";
  let description = [{
    Issued once per executing warp (lane 0): `cp.async.bulk` of `bytes`
    (a multiple of 16, source 16-B aligned) from `source` into slot `stage`
    of `buffer` at `slot_offset`, signalling `complete_tx` of `bytes` on
    `full[stage]` of `pipeline`. A constant `bytes` must fit in the slot.

    ```mlir
    warpspec.bulk.copy %src, %nbytes -> %sf[%s], %ab
        : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.pipeline<4>
    ```
  }];
  let arguments = (ins WarpSpec_GlobalPtr:$source, I32:$bytes,
                       WarpSpec_SmemType:$buffer, Index:$stage,
                       WarpSpec_PipelineType:$pipeline,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$slot_offset);
  let assemblyFormat = [{
    $source `,` $bytes `->` $buffer `[` $stage `]` `,` $pipeline
    (`slot_offset` $slot_offset^)? attr-dict `:` qualified(type($buffer)) `,` qualified(type($pipeline))
  }];
  let hasVerifier = 1;
}

def WarpSpec_BulkStoreOp : WarpSpec_Op<"bulk.store"> {
  let summary = "1-D bulk copy SMEM -> global, in the issuing lane's bulk group";
  let description = [{
    Issued once per executing warp (lane 0): `cp.async.bulk.global.shared::cta
    .bulk_group` of `bytes` (a multiple of 16; both addresses 16-B aligned)
    from `source` (an SMEM address, e.g. `warpspec.smem.slot`) to `dest`,
    then `cp.async.bulk.commit_group`. `warpspec.tma.store.wait` waits for
    it like for a TMA store: with `read` until the SMEM may be rewritten,
    without until the global writes are performed (then a
    `fence.async_global` and a release publish them).

    ```mlir
    warpspec.bulk.store %src, %nbytes -> %dst : !warpspec.global<i8>
    ```
  }];
  let arguments = (ins WarpSpec_SharedPtr:$source, I32:$bytes,
                       WarpSpec_AnyGlobalPtr:$dest);
  let assemblyFormat = [{
    $source `,` $bytes `->` $dest attr-dict `:` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def WarpSpec_FenceAsyncGlobalOp : WarpSpec_Op<"fence.async_global"> {
  let summary = "order generic-proxy global accesses with async-proxy ones";
  let description = [{
    `fence.proxy.async.global` in every executing thread: a bidirectional
    proxy fence between its generic-proxy accesses to global memory (loads,
    stores, the acquire of a counter) and its async-proxy ones (TMA loads
    and stores). A TMA load of data another CTA published through a
    counter (the fused kernel's L2 loads after the L2 arrival wait) needs it
    after the acquire; the publisher after its TMA stores completed and
    before the release.

    ```mlir
    warpspec.fence.async_global
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def WarpSpec_WarpSyncOp : WarpSpec_Op<"warp_sync"> {
  let summary = "converge the warp and order its lanes' memory accesses";
  let description = [{
    `bar.warp.sync 0xffffffff`: every lane of the warp waits until all 32
    have executed it, and their memory accesses before it are ordered
    before any lane's accesses after it (PTX ISA, bar.warp.sync: "memory
    ordering among threads participating in barrier"). A warp that writes
    a row with all lanes and publishes it with one lane's release
    (`warpspec.counter.add`) needs it between the two: the release is
    cumulative over what its thread has observed, and the barrier makes the
    other lanes' writes observed. The whole warp must execute it
    (warp-uniform control flow).

    ```mlir
    warpspec.warp_sync
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def WarpSpec_FenceAsyncSharedOp : WarpSpec_Op<"fence.async_shared"> {
  let summary = "order generic-proxy SMEM writes before async-proxy reads";
  let description = [{
    `fence.proxy.async.shared::cta` in every executing thread: its prior
    generic-proxy shared-memory writes (st.shared, stmatrix) become visible
    to later async-proxy operations (TMA store, wgmma operand reads) once a
    barrier orders the threads.

    ```mlir
    warpspec.fence.async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Global arrival counters, grid sync, symmetric memory
//===----------------------------------------------------------------------===//

class WarpSpec_CounterUpdateOp<string mnemonic, string what>
    : WarpSpec_Op<mnemonic> {
  let summary = "release " # what # " on a global u32 counter";
  let description = [{
    Executed by every thread that reaches it (guard it to issue once):
    atomically }] # what # [{ `value` into the u32 at `ptr` with release
    semantics at `scope` (`red.release.<scope>.global`): the executing
    thread's prior memory accesses happen before any acquire that observes
    the update. Not `llvm.atomicrmw`, which LLVM 22 NVPTX lowers relaxed.

    ```mlir
    warpspec.}] # mnemonic # [{ %ptr, %v scope gpu
    ```
  }];
  let arguments = (ins WarpSpec_CounterPtr:$ptr, I32:$value,
                       WarpSpec_ScopeAttr:$scope);
  let assemblyFormat = [{
    $ptr `,` $value `scope` $scope attr-dict `` custom<GlobalPtrTypes>(type($ptr))
  }];
}

def WarpSpec_CounterAddOp : WarpSpec_CounterUpdateOp<"counter.add", "add">;
def WarpSpec_CounterOrOp : WarpSpec_CounterUpdateOp<"counter.or", "or">;

def WarpSpec_CounterWaitOp : WarpSpec_Op<"counter.wait"> {
  let summary = "acquire-poll a global u32 counter until it reaches a value";
  let description = [{
    Executed by every thread that reaches it: polls the u32 at `ptr` with
    `ld.acquire.<scope>.global` until it is `>= value` (unsigned). The
    releases observed happen before the thread's later accesses. With
    `timeout_cycles T`, a wait longer than T clock cycles reports the
    counter (`name`), the block, the thread, the value last read and the
    target, then traps, instead of hanging. The report is stores into the
    runtime's host-mapped record (found through the module's global
    `megamoe_timeout_record`; TimeoutRecord.h), which the runtime prints as
    `megamoe: timeout waiting for counter 'NAME' (block B, thread T): value
    V, expected >= E after C cycles`; not a device printf, whose call would
    make ptxas serialize the kernel's wgmma.

    ```mlir
    warpspec.counter.wait %ptr, %target scope sys name "l1_arrival" timeout_cycles 2000000000
    ```
  }];
  let arguments = (ins WarpSpec_CounterPtr:$ptr, I32:$value,
                       WarpSpec_ScopeAttr:$scope, StrAttr:$name,
                       OptionalAttr<I64Attr>:$timeout_cycles);
  let assemblyFormat = [{
    $ptr `,` $value `scope` $scope `name` $name
    (`timeout_cycles` $timeout_cycles^)? attr-dict
    `` custom<GlobalPtrTypes>(type($ptr))
  }];
  let hasVerifier = 1;
}

def WarpSpec_GridSyncOp : WarpSpec_Op<"grid.sync"> {
  let summary = "software grid barrier on a global counter (no reset needed)";
  let description = [{
    Executed by exactly one thread per CTA (the caller guards it and
    synchronises its CTA around it with a named or block barrier). Adds 1 to
    the u32 counter at `counter` (release, gpu scope) and waits (acquire,
    gpu scope) until all `num_ctas` CTAs arrived at this generation. The
    generation is derived from the value before the add, so the counter is
    never reset; it must start at 0 and be used only by grid.sync with the
    same `num_ctas`. Optional `timeout_cycles` traps like
    `warpspec.counter.wait`, after printing the counter's `name` (default
    "grid.sync"), the block, the value read and the target.

    ```mlir
    warpspec.grid.sync %gsync, %nctas
    warpspec.grid.sync %gsync, %nctas name "moe_dispatch: barriers[2]" timeout_cycles 20000000000
    ```
  }];
  let arguments = (ins WarpSpec_CounterPtr:$counter, I32:$num_ctas,
                       OptionalAttr<StrAttr>:$name,
                       OptionalAttr<I64Attr>:$timeout_cycles);
  let assemblyFormat = [{
    $counter `,` $num_ctas (`name` $name^)?
    (`timeout_cycles` $timeout_cycles^)? attr-dict
    `` custom<GlobalPtrTypes>(type($counter))
  }];
  let hasVerifier = 1;
}

def WarpSpec_PeerPtrOp : WarpSpec_Op<"peer.ptr", [
    Pure, AllTypesMatch<["local", "result"]>]> {
  let summary = "map a local symmetric-memory pointer to a peer rank's copy";
  let description = [{
    `local + offsets[peer]`, where `offsets` points to a table of i64 byte
    offsets (one per rank, `peer_base - local_base`, 0 for the own rank) in
    global memory. No memory ordering by itself (a plain load of the table).
    The result has the type of `local`: a `!warpspec.global<T>` (or
    `!llvm.ptr<1>`); the table is a `!warpspec.global<i64>` (or
    `!llvm.ptr<1>`). The types are printed after a colon unless both are
    `!llvm.ptr<1>`.

    ```mlir
    %remote = warpspec.peer.ptr %local, %peer, %offsets
    ```
  }];
  let arguments = (ins WarpSpec_AnyGlobalPtr:$local, I32:$peer,
                       WarpSpec_OffsetTablePtr:$offsets);
  let results = (outs WarpSpec_AnyGlobalPtr:$result);
  let assemblyFormat = [{
    $local `,` $peer `,` $offsets attr-dict
    `` custom<GlobalPtrTypes>(type($local), type($offsets))
  }];
}

def WarpSpec_CrossRankBarrierOp : WarpSpec_Op<"cross_rank.barrier"> {
  let summary = "barrier among ranks over symmetric memory (no reset needed)";
  let description = [{
    Executed by exactly one thread per rank (the caller guards it and syncs
    its grid around it). Adds 1 (release, sys scope) to the symmetric u32
    counter at `counter` on every rank (mapped through `offsets`, see
    `warpspec.peer.ptr`), then waits (acquire, sys scope) until its own
    counter reaches `phase * num_ranks`, where `phase` is derived from the
    counter's value so that it never needs a reset. Scope must be `sys`.
    Optional `timeout_cycles` traps like `warpspec.counter.wait`, after
    reporting the barrier (`name`, default "cross_rank.barrier"), this
    rank, the phase, and how many of the ranks had arrived, which the
    runtime prints as:
    `megamoe: timeout in cross-rank barrier 'NAME' on rank R (block B,
    thread T): phase P, A of N ranks arrived after C cycles`.

    ```mlir
    warpspec.cross_rank.barrier %ctr, %rank, %nranks, %offsets scope sys
    warpspec.cross_rank.barrier %ctr, %rank, %nranks, %offsets scope sys name "moe_layout" timeout_cycles 20000000000
    ```
  }];
  let arguments = (ins WarpSpec_CounterPtr:$counter, I32:$rank, I32:$num_ranks,
                       WarpSpec_OffsetTablePtr:$offsets, WarpSpec_ScopeAttr:$scope,
                       OptionalAttr<StrAttr>:$name,
                       OptionalAttr<I64Attr>:$timeout_cycles);
  let assemblyFormat = [{
    $counter `,` $rank `,` $num_ranks `,` $offsets `scope` $scope
    (`name` $name^)? (`timeout_cycles` $timeout_cycles^)? attr-dict
    `` custom<GlobalPtrTypes>(type($counter), type($offsets))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile MMA (SM90: register accumulators)
//===----------------------------------------------------------------------===//

def WarpSpec_AccZeroOp : WarpSpec_Op<"acc.zero", [Pure]> {
  let summary = "a zero accumulator";
  let description = [{
    An accumulator whose elements are all 0.0. As the `acc` of
    `warpspec.mma.sm90` it lets the lowering use `scale-d = 0`.

    ```mlir
    %z = warpspec.acc.zero : !warpspec.acc<64x128xf32>
    ```
  }];
  let results = (outs WarpSpec_AccType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def WarpSpec_MmaSm90Op : WarpSpec_Op<"mma.sm90", [
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "asynchronous warpgroup MMA over SMEM tiles (wgmma, SM90)";
  let description = [{
    Warpgroup-collective (all 128 threads of a warpgroup of an `mma` role):
    `result = A x B^T + acc` where A is rows `[a_row, a_row + m)` of slot
    `a_stage` of buffer `a` (a `[M, K]` tile) and B is slot `b_stage` of
    buffer `b` (an `[n, K]` tile), `m x n` the accumulator shape and K the
    tiles' inner size, in steps of `k = 32` (fp8) or 16 (f16/bf16). Lowers to
    `wgmma.fence`, `K / k` `wgmma.mma_async` with SMEM descriptors built from
    the buffers' swizzle, and `wgmma.commit_group`.

    The op is asynchronous: `result` may only be read, and the SMEM slots
    only be released, after `warpspec.mma.wait` retired it.

    `a_major` / `b_major` (default `k`) say which dimension is contiguous;
    fp8 operands must be K-major.

    With `discard_acc` the values of `acc` are ignored (`result = A x B^T`,
    as with a `warpspec.acc.zero` acc) and only its registers are reused:
    a block-scaled MMA after another one in the same block starts its
    scratch accumulator in the previous one's registers, which the
    previous promotion has consumed, instead of in fresh ones (ptxas does
    not share the registers of two wgmma accumulators on its own).

    With `k_range = [begin, size]` only the K elements `[begin, begin +
    size)` of the tiles are multiplied (both multiples of the MMA k): a
    block-scaled K block whose activation scales change every 64 K is two
    MMAs over the two halves of the stage, each promoted with its own scale.

    With `rematerialize_k_steps` the descriptors of the K steps after the
    first are the first's plus an offset added where the wgmma issues
    (through an opaque zero), not values of their own: in a loop unrolled
    over constant stages every descriptor word is loop invariant, and LLVM
    would otherwise hoist all of them into registers (48 for a BLOCK_N 256
    tile, which then spills).

    ```mlir
    %p = warpspec.mma.sm90 %a[%s, %row], %b[%s], %z
        : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
          !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
          !warpspec.acc<64x128xf32>
    ```
  }];
  let arguments = (ins WarpSpec_SmemType:$a, Index:$a_stage, Index:$a_row,
                       WarpSpec_SmemType:$b, Index:$b_stage,
                       WarpSpec_AccType:$acc,
                       DefaultValuedAttr<WarpSpec_MajorAttr, "::mlir::warpspec::Major::k">:$a_major,
                       DefaultValuedAttr<WarpSpec_MajorAttr, "::mlir::warpspec::Major::k">:$b_major,
                       UnitAttr:$discard_acc, UnitAttr:$rematerialize_k_steps,
                       OptionalAttr<DenseI64ArrayAttr>:$k_range);
  let results = (outs WarpSpec_AccType:$result);
  let assemblyFormat = [{
    $a `[` $a_stage `,` $a_row `]` `,` $b `[` $b_stage `]` `,` $acc
    (`a_major` $a_major^)? (`b_major` $b_major^)? (`discard_acc` $discard_acc^)?
    (`rematerialize_k_steps` $rematerialize_k_steps^)? (`k_range` $k_range^)?
    attr-dict
    `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($acc))
  }];
  let hasVerifier = 1;
}

def WarpSpec_MmaWaitOp : WarpSpec_Op<"mma.wait", [
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "wait until at most `pending` MMA groups are in flight";
  let description = [{
    Warpgroup-collective `wgmma.wait_group pending`. The listed accumulators
    are passed through: the results are the values that are safe to read
    (and their SMEM operands safe to release) once all but the `pending`
    most recent `warpspec.mma.sm90` of the warpgroup have retired.

    ```mlir
    %r = warpspec.mma.wait 0, %p : !warpspec.acc<64x128xf32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending,
                       Variadic<WarpSpec_AccType>:$accs);
  let results = (outs Variadic<WarpSpec_AccType>:$ready);
  let assemblyFormat = [{
    $pending (`,` $accs^ `:` qualified(type($accs)))? attr-dict
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccPromoteOp : WarpSpec_Op<"acc.promote", [
    Pure, AllTypesMatch<["partial", "total", "result"]>,
    AttrSizedOperandSegments]> {
  let summary = "total += partial * a_scale[row] * b_scale (block-scale promotion)";
  let description = [{
    Per thread, on CUDA cores: for each element `(r, c)` of the fragment,
    `result = total + partial * a_scales[row + r] * b_scales[c / (n / nb)]`,
    where `a_scales` is slot `stage` of an f32 SMEM buffer of per-row scales
    and `b_scales` are `nb` f32 values, each covering `n / nb` contiguous
    columns. This is the per-128-K promotion of block-scaled FP8 GEMMs.
    Reads SMEM through the generic proxy: the slot must be full
    (`warpspec.consumer.wait`).

    With `b_scale_map`, column `c` uses `b_scales[map(c)]` instead: an
    affine map `(c) -> (i)` constant over each group of 8 columns (the
    fragment's column group) with results in `[0, nb)`, e.g.
    `affine_map<(c) -> ((c floordiv 8) mod 2)>` alternates two scales every
    8 columns (a weight whose rows interleave two scale blocks).

    `a_scales` may also be a buffer of 2-d `[G, M]` tiles: G groups of
    per-row scales per K block (activations scaled per 128 / G K), and
    `a_scale_group` (default 0) says which group this promotion uses.

    With `row_scales %s0, %s1` (from `warpspec.acc.row_scales` of the same
    slot, row and group) the thread's two row scales are those values
    instead of being read here: read before the MMA, their SMEM latency is
    off the path from the MMA's completion to the promotion.

    With `column_scales` the activation scales scale columns instead of
    rows (the accumulator of a swapped MMA, `warpspec.mma.block_scaled
    swap_ab`, whose columns are activation rows): `result = total +
    partial * a_scales[row + c] * b_scales[0]`, `a_scales` an `[M]` buffer
    holding at least `row + n` scales, one b scale, no map, no row scales.
    The scale product and the fma are formed as without it (`a * b`, then
    `fma(partial, a * b, total)`), so a transposed problem promotes to the
    same bits.

    ```mlir
    %t1 = warpspec.acc.promote %r into %t0 a_scales %sfa[%s, %row] b_scales %sb
        : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    %t2 = warpspec.acc.promote %r into %t1 a_scales %sfa[%s, %row]
        b_scales %s0, %s1 b_scale_map affine_map<(c) -> ((c floordiv 8) mod 2)>
        : !warpspec.smem<128xf32, slots = 4, align = 128>, !warpspec.acc<64x128xf32>
    ```
  }];
  let arguments = (ins WarpSpec_AccType:$partial, WarpSpec_AccType:$total,
                       WarpSpec_SmemType:$a_scales, Index:$stage, Index:$row,
                       Variadic<F32>:$b_scales,
                       Variadic<F32>:$row_scales,
                       OptionalAttr<AffineMapAttr>:$b_scale_map,
                       DefaultValuedAttr<I64Attr, "0">:$a_scale_group,
                       UnitAttr:$column_scales);
  let results = (outs WarpSpec_AccType:$result);
  let assemblyFormat = [{
    $partial `into` $total `a_scales` $a_scales `[` $stage `,` $row `]`
    (`column_scales` $column_scales^)?
    (`group` $a_scale_group^)?
    `b_scales` $b_scales (`b_scale_map` $b_scale_map^)?
    (`row_scales` $row_scales^)? attr-dict `:`
    qualified(type($a_scales)) `,` qualified(type($total))
  }];
  let extraClassDeclaration = [{
    /// The index into `b_scales` of the scale of accumulator column `column`
    /// (the op must have verified).
    int64_t getBScaleIndex(int64_t column);
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccRowScalesOp : WarpSpec_Op<"acc.row_scales"> {
  let summary = "the activation scales of the rows of an SM90 accumulator fragment this thread holds";
  let description = [{
    Per thread of a warpgroup: the scales of the two accumulator rows its
    wgmma D fragment holds (rows `row + r0` and `row + r0 + 8`, r0 = 16 x
    warp + lane / 4), from slot `stage` of the f32 scale buffer `a_scales`
    (group `group` of a `[G, M]` tile), for `warpspec.acc.promote ...
    row_scales`. A generic-proxy SMEM read of a full slot. The SM90
    expansion of `warpspec.mma.block_scaled` issues it before the MMA, as
    DeepGEMM reads its scales before `warpgroup_arrive`.

    ```mlir
    %s0, %s1 = warpspec.acc.row_scales %sfa[%s, %row]
        : !warpspec.smem<128xf32, slots = 4, align = 128>
    ```
  }];
  let arguments = (ins WarpSpec_SmemType:$a_scales, Index:$stage, Index:$row,
                       DefaultValuedAttr<I64Attr, "0">:$a_scale_group);
  let results = (outs F32:$first, F32:$second);
  let assemblyFormat = [{
    $a_scales `[` $stage `,` $row `]` (`group` $a_scale_group^)? attr-dict `:`
    qualified(type($a_scales))
  }];
  let hasVerifier = 1;
}

def WarpSpec_AccFenceOp : WarpSpec_Op<"acc.fence", [
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "compute an accumulator before the ops that follow";
  let description = [{
    Per thread: `result` is `acc`, unchanged, but every element of `acc` is
    computed before any later op with side effects (such as the next
    `warpspec.mma.sm90`) is issued; the compiler may not sink the code
    computing `acc` past the fence. The SM90 expansion of
    `warpspec.mma.block_scaled` puts one after the promotion of a block-scaled
    MMA that another one follows in the same block (the two column blocks of
    a BLOCK_N 256 tile): the first's promotion then consumes its wgmma
    scratch accumulator before the second's wgmma writes its own, so one
    scratch accumulator is live at a time instead of two.

    Lowers to one empty `asm volatile` per element with the element as an
    in/out register operand.

    ```mlir
    %t = warpspec.acc.fence %acc : !warpspec.acc<64x128xf32>
    ```
  }];
  let arguments = (ins WarpSpec_AccType:$acc);
  let results = (outs WarpSpec_AccType:$result);
  let assemblyFormat = "$acc attr-dict `:` qualified(type($acc))";
  let hasVerifier = 1;
}

def WarpSpec_AccStoreOp : WarpSpec_Op<"acc.store"> {
  let summary = "store an accumulator fragment into an SMEM tile";
  let description = [{
    Warpgroup-collective: writes the `m x n` accumulator, converted to the
    buffer's element type (round to nearest even), into rows
    `[row, row + m)` and columns `[0, n)` of slot `stage` of `buffer`,
    following the buffer's swizzle (the layout a TMA store with the same
    swizzle reads). Generic-proxy writes: follow with
    `warpspec.fence.async_shared` and a barrier before a `warpspec.tma.store`.

    With `transpose` element `(r, c)` goes to row `row + c`, column `r`:
    the `m x n` accumulator of a swapped MMA (`warpspec.mma.block_scaled
    swap_ab`, rows = output columns) lands as the `n x m` tile of the
    output, in a 16-bit buffer of exactly `m` columns (SM90:
    `stmatrix.trans`).

    ```mlir
    warpspec.acc.store %t -> %c[%zero, %row] : !warpspec.acc<64x128xf32>, !warpspec.smem<128x128xbf16, slots = 1, align = 1024>
    warpspec.acc.store %t -> %d[%zero, %zero] transpose : !warpspec.acc<64x32xf32>, !warpspec.smem<32x64xbf16, slots = 2, align = 1024, swizzle = 128>
    ```
  }];
  let arguments = (ins WarpSpec_AccType:$acc, WarpSpec_SmemType:$buffer,
                       Index:$stage, Index:$row, UnitAttr:$transpose);
  let assemblyFormat = [{
    $acc `->` $buffer `[` $stage `,` $row `]` (`transpose` $transpose^)? attr-dict `:` qualified(type($acc)) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

include "megamoe/Dialect/WarpSpec/IR/WarpSpecTileOps.td"

//===----------------------------------------------------------------------===//
// Tile MMA (SM100: TMEM accumulators) -- ODS and verifier only: the SM100
// lowering of mma.block_scaled (LowerBlockScaledSm100.cpp) allocates TMEM and
// issues tcgen05 itself; these ops are for a TMEM-resident accumulator later.

//===----------------------------------------------------------------------===//

def WarpSpec_TmemAllocOp : WarpSpec_Op<"tmem.alloc"> {
  let summary = "allocate tensor memory (tcgen05.alloc, SM100)";
  let description = [{
    Warp-collective `tcgen05.alloc` of `columns` TMEM columns by the
    executing warp; the result addresses the allocation. Only in kernels
    with `chip = "sm_100a"`, inside a role.

    ```mlir
    %d = warpspec.tmem.alloc : !warpspec.tmem<128x256xf32>
    ```
  }];
  let results = (outs WarpSpec_TmemType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def WarpSpec_MmaSm100Op : WarpSpec_Op<"mma.sm100", [AttrSizedOperandSegments]> {
  let summary = "asynchronous tcgen05 MMA over SMEM tiles into TMEM (SM100)";
  let description = [{
    Issued by one thread (the caller elects it): `tcgen05.mma` of
    `A [rows a_row.., m x K] x B [n x K]^T` from SMEM into the TMEM
    accumulator `d`, accumulating when `accumulate` is true and overwriting
    otherwise. With `scales(%sfa, %sfb)` it is the block-scaled form
    (`tcgen05.mma.block_scale`, scale factors in TMEM). Completion is
    signalled by `tcgen05.commit` on an mbarrier (a later issue). Only in
    kernels with `chip = "sm_100a"`; m is 64 or 128 (the TMEM lanes), n a
    multiple of 16 (m = 128) or 8 (m = 64) in [16, 256], K a multiple of 32,
    fp8 operands K-major.

    ```mlir
    warpspec.mma.sm100 %a[%s, %c0], %b[%s], %d accumulate %acc
        : !warpspec.smem<128x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
          !warpspec.smem<256x128xf8E4M3FN, slots = 4, align = 1024, swizzle = 128>,
          !warpspec.tmem<128x256xf32>
    ```
  }];
  let arguments = (ins WarpSpec_SmemType:$a, Index:$a_stage, Index:$a_row,
                       WarpSpec_SmemType:$b, Index:$b_stage,
                       WarpSpec_TmemType:$d, I1:$accumulate,
                       Optional<WarpSpec_TmemType>:$a_scales,
                       Optional<WarpSpec_TmemType>:$b_scales);
  let assemblyFormat = [{
    $a `[` $a_stage `,` $a_row `]` `,` $b `[` $b_stage `]` `,` $d
    `accumulate` $accumulate
    (`scales` `(` $a_scales^ `,` $b_scales `:` qualified(type($a_scales)) `,` qualified(type($b_scales)) `)`)?
    attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($d))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Epilogue math on accumulators (WarpSpecAccOps.td)
//===----------------------------------------------------------------------===//

include "megamoe/Dialect/WarpSpec/IR/WarpSpecAccOps.td"

//===----------------------------------------------------------------------===//
// Typed global memory (WarpSpecGlobalOps.td)
//===----------------------------------------------------------------------===//

include "megamoe/Dialect/WarpSpec/IR/WarpSpecGlobalOps.td"

//===----------------------------------------------------------------------===//
// Element math with PTX-exact semantics (WarpSpecElementOps.td)
//===----------------------------------------------------------------------===//

include "megamoe/Dialect/WarpSpec/IR/WarpSpecElementOps.td"

//===----------------------------------------------------------------------===//
// The phase profile's clock, SM and sequence numbers (WarpSpecProfileOps.td)
//===----------------------------------------------------------------------===//

include "megamoe/Dialect/WarpSpec/IR/WarpSpecProfileOps.td"

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECOPS_TD
