#ifndef MEGAMOE_DIALECT_MEGAMOE_TRANSFORMS_PASSES_TD
#define MEGAMOE_DIALECT_MEGAMOE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MegaMoELayer : Pass<"megamoe-layer", "::mlir::ModuleOp"> {
  let summary = "Adds a megamoe.layer built from the pass options";
  let description = [{
    Describes a layer on the command line instead of in a file:

    ```
    megamoe-opt --megamoe-layer="hidden=7168 intermediate=2048 experts=256 topk=8 ranks=8 max-tokens=8192 chip=sm_90a"
    ```

    appends `megamoe.layer @<name> config = <...>` to the module. Given no
    input file, megamoe-opt starts from an empty module. A layer that breaks a
    rule (H % 128, E % R, ...) is an error naming the rule.
  }];
  let dependentDialects = ["::mlir::megamoe::MegaMoEDialect"];
  let options = [
    Option<"layerName", "name", "std::string", "\"layer\"",
           "symbol name of the layer">,
    Option<"hidden", "hidden", "int64_t", "0", "hidden size H">,
    Option<"intermediate", "intermediate", "int64_t", "0",
           "intermediate size I (per expert)">,
    Option<"experts", "experts", "int64_t", "0", "routed experts E">,
    Option<"topk", "topk", "int64_t", "0", "experts per token K">,
    Option<"ranks", "ranks", "int64_t", "1", "expert-parallel ranks R">,
    Option<"maxTokens", "max-tokens", "int64_t", "0",
           "bound T on tokens per rank per call">,
    Option<"chip", "chip", "std::string", "\"sm_90a\"",
           "target chip: sm_90a or sm_100a">,
    Option<"requantBlock", "requant-block", "int64_t", "128",
           "L1-output requantization block: 128 or 64 channels">,
    Option<"clamp", "clamp", "double", "0.0",
           "SwiGLU clamp c (gate <= c, |up| <= c); 0 = no clamp">,
    Option<"fastMath", "fast-math", "bool", "false",
           "fast exp / reciprocal in SiLU">,
  ];
}

def MegaMoEPlan : Pass<"megamoe-plan", "::mlir::ModuleOp"> {
  let summary = "Chooses the kernel plan of every megamoe.layer";
  let description = [{
    Attaches `plan = #megamoe.plan<...>` to each `megamoe.layer` (replacing
    any plan it had): number of SMs, warp roles, entry registers, schedule,
    token-pool size, and one `#megamoe.variant` per BLOCK_M bucket reachable
    with 0..T tokens per rank (BLOCK_M/N/K, stages, experts per wave, math
    mode, setmaxnreg targets, shared memory). The heuristics are plain
    functions of the shape in lib/Config/Heuristics.cpp, each threshold with
    its reason.

    Every choice can be overridden; an option left at its default keeps the
    heuristic, a set one applies to every variant (`block-m` gives a single
    variant for all token counts). An override that does not fit (shared
    memory, registers, tile shape) is an error that says why.
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", "0",
           "BLOCK_M: 32, 64 or 128 (0 = one variant per bucket)">,
    Option<"l1BlockN", "l1-block-n", "int64_t", "0",
           "L1 BLOCK_N in weight rows (0 = heuristic)">,
    Option<"l2BlockN", "l2-block-n", "int64_t", "0",
           "L2 BLOCK_N in output channels (0 = heuristic)">,
    Option<"expertAlign", "expert-align", "int64_t", "0",
           "pool rows each expert is padded to: BLOCK_M, or 64 with BLOCK_M "
           "128 (64-row half blocks; 0 = heuristic)">,
    Option<"l1Pull", "l1-pull", "std::string", "\"\"",
           "true: each variant's L1 kernel pulls its own pool rows (sm_90a; "
           "the split schedule's L1 kernel that fuses SwiGLU, or the "
           "fused-gemm kernel, whose pool may then be a ring; no moe_pull), "
           "false: moe_pull fills the pool (empty = heuristic)">,
    Option<"l1PairStages", "l1-pair-stages", "std::string", "\"\"",
           "true: the split schedule's BLOCK_M 128 L1 kernels (sm_90a, "
           "SwiGLU epilogue) run each tile's pair of column blocks as one "
           "BLOCK_N 256 mainloop pass, false: two passes (empty = "
           "heuristic)">,
    Option<"l2ExpertBlocks", "l2-expert-blocks", "std::string", "\"\"",
           "true: the split schedule's BLOCK_M 128 L2 GEMMs with half blocks "
           "(sm_90a) compute 256-row expert blocks (an expert's 64-row units "
           "four at a time, absent ones skipped), false: 128-row m-blocks "
           "(empty = heuristic)">,
    Option<"l1Cluster", "l1-cluster", "std::string", "\"\"",
           "true: the split schedule's BLOCK_M 128 L1 kernels with half "
           "blocks (sm_90a) run in clusters of 2 CTAs that share an "
           "expert's weight tiles by TMA multicast (the layout pairs its "
           "m-blocks), false: one CTA per tile (empty = heuristic)">,
    Option<"l1WeightTiles", "l1-weight-tiles", "std::string", "\"\"",
           "true: the L1 weights' kernel layout is 128 x 128 contiguous "
           "tiles (transform_l1 writes it, the L1 GEMMs read it with a "
           "rank-4 TMA descriptor; sm_90a), false: row-major [L x 2I, H] "
           "(empty = heuristic)">,
    Option<"kSplit", "k-split", "int64_t", "0",
           "units each tile of the grouped GEMMs' last, partial wave is "
           "split into along K: 1 = none, 2 or 4 (the stage kernels' BLOCK_M "
           "64 variant; 0 = heuristic)">,
    Option<"waveMBlocks", "wave-m-blocks", "int64_t", "-1",
           "the fused-gemm kernel's tile order: W > 0 interleaves its L1 and "
           "L2 tiles in waves of W m-blocks (warpspec.wave_loop); 0 = every "
           "L1 tile before every L2 tile (-1 = heuristic: 4 at BLOCK_M 64)">,
    Option<"waveLag", "wave-lag", "int64_t", "-1",
           "with wave-m-blocks: the L2 tiles of wave w follow the L1 tiles "
           "of wave w + lag (default 1; 0 = right behind wave w's)">,
    Option<"blockK", "block-k", "int64_t", "0",
           "BLOCK_K: 128 or 256 (0 = heuristic)">,
    Option<"stages", "stages", "int64_t", "0",
           "pipeline stages (0 = as many as fit)">,
    Option<"expertsPerWave", "experts-per-wave", "int64_t", "0",
           "experts per scheduler wave (0 = heuristic)">,
    Option<"numSMs", "num-sms", "int64_t", "0",
           "persistent CTAs (0 = all SMs of the chip)">,
    Option<"producerRegisters", "producer-registers", "int64_t", "0",
           "setmaxnreg target of the dispatch/TMA warpgroup (0 = heuristic)">,
    Option<"mathRegisters", "math-registers", "int64_t", "0",
           "setmaxnreg target of each math warpgroup (0 = heuristic)">,
    Option<"poolTokens", "pool-tokens", "int64_t", "-1",
           "token-pool rows (-1 = heuristic: a ring of 256 m-blocks where "
           "every variant can run one, fused-gemm with l1-pull and a wave "
           "order, else the worst case; 0 = worst case; fewer rows than the "
           "worst case = a ring, docs/FusedSchedule.md)">,
    Option<"schedule", "schedule", "std::string", "\"\"",
           "fused, split, unfused, fused-gemm, or auto: the fastest built "
           "schedule measured for the chip (config::fastestBuiltSchedule); "
           "empty = fused (the one-kernel plan, not built yet)">,
    Option<"mathMode", "math-mode", "std::string", "\"\"",
           "cooperative-m, cooperative-n or single (empty = heuristic)">,
  ];
}

def MegaMoEPrintPlan : Pass<"megamoe-print-plan", "::mlir::ModuleOp"> {
  let summary = "Prints each layer's plan and buffer layout as text or JSON";
  let description = [{
    Writes, to standard output, the plan of every planned `megamoe.layer`:
    `format=text` a few readable lines (variants and symmetric-buffer size),
    `format=json` the object {"config", "plan", "buffer_layout"} whose
    "buffer_layout" is the manifest field (docs/Manifest.md). The IR is left
    unchanged. A layer without a plan is an error.
  }];
  let options = [
    Option<"format", "format", "std::string", "\"text\"",
           "text or json">,
  ];
}

def MegaMoEExpand : Pass<"megamoe-expand", "::mlir::ModuleOp"> {
  let summary = "Builds the kernels of each planned layer's schedule";
  let description = [{
    For every `megamoe.layer` with a `#megamoe.plan`, appends a `gpu.module`
    named after the layer holding the schedule's kernels in the `warpspec`
    dialect, and records on it what the manifest needs: the layer's symbols
    (H, I, E, K, R, T, L, P, BM), the launch order (`megamoe.schedule`, or
    `megamoe.variants` when the plan has a BLOCK_M 64 and a 128 variant: one
    schedule per token-count range, the BLOCK_M-dependent kernels built per
    variant as `<kernel>_bm<BLOCK_M>`), the layer's recipe (`megamoe.layer`)
    and the symmetric-buffer layout (`megamoe.buffer_layout`, the JSON of
    `computeBufferLayout`). Every kernel parameter is bound
    (`megamoe.bind`), so the runtime launches the schedule from the manifest
    alone. The layer op is replaced by its gpu.module (same symbol name;
    print the plan before expanding).

    Only the unfused schedule is built so far (docs/UnfusedSchedule.md: eight
    kernels, from routing to the combine reduce); a plan asking for another
    schedule, or a recipe the schedule cannot run, is an error that says so.

    `only=moe_route,moe_pull` builds just those kernels (their order is kept),
    to look at or test one stage.

    ```
    megamoe-opt --megamoe-layer="hidden=4096 intermediate=2048 experts=256 topk=6 ranks=2 max-tokens=128" \
      --megamoe-plan="schedule=unfused" --megamoe-expand --megamoe-to-cubin="chip=sm_90a emit-dir=out/"
    ```
  }];
  let options = [
    ListOption<"only", "only", "std::string",
               "Build only these kernels of the schedule (default: all)">,
    Option<"barrierTimeoutCycles", "barrier-timeout-cycles", "int64_t", "0",
           "clock cycles a cross-rank barrier waits before it prints which "
           "counter it waited for and traps (0 = the default, 2e10, about "
           "10 s; the fault tests use less)">,
    Option<"missingArrivals", "test-missing-arrivals", "int64_t", "0",
           "fault injection for the tests: the fused-gemm schedule's L2 "
           "tiles (and, with l1-pull, the split L1 kernel's A loads) wait "
           "for this many more arrivals than will come, so their wait must "
           "end in its timeout message (0 = off)">,
    Option<"profile", "profile", "bool", "false",
           "the phase profile (docs/Profile.md): every kernel stamps "
           "%globaltimer at its phase boundaries into the buffer bound to "
           "its extra `profile` parameter (off: the kernels are unchanged)">,
    Option<"profileCapacity", "profile-capacity", "int64_t", "1024",
           "records per (CTA, role) of a GEMM kernel's profile slice; "
           "later records are dropped (1 to 65536)">,
    Option<"weightPrefetchMiB", "weight-prefetch-mib", "int64_t", "0",
           "moe_pull asks the L2 cache for the leading K blocks of the L1 "
           "weight rows of every expert that owns pool rows, at most this "
           "many MiB per call, so that the L1 GEMM's first K blocks hit L2 "
           "(docs/Collectives.md, \"Weight prefetch\"; 0 = off, at most "
           "1024)">,
    Option<"mergeStages", "merge-stages", "bool", "false",
           "moe_route, moe_layout and moe_pull as one kernel (moe_dispatch) "
           "and moe_combine_barrier and moe_combine_reduce as one "
           "(moe_combine), their steps joined by grid barriers instead of "
           "kernel boundaries (docs/UnfusedSchedule.md, \"Merged stages\"; "
           "not with l1-pull variants)">,
    Option<"oneKernel", "one-kernel", "bool", "false",
           "schedule=fused-gemm only: the whole layer as one kernel per "
           "variant (moe_fused): the dispatch before the fused GEMM kernel's "
           "roles and the combine after its math tiles, joined by grid "
           "barriers (docs/FusedSchedule.md, \"One kernel\")">,
    Option<"programmaticLaunch", "programmatic-launch", "int64_t", "1",
           "programmatic dependent launch (bench/RESULTS.md, 2026-12-02): "
           "0 off; 1 (default) every kernel of the layer begins with "
           "griddepcontrol.wait and the runtime launches it with "
           "programmatic stream serialization (the next kernel is scheduled "
           "as this one's CTAs exit); 2 the same plus launch_dependents "
           "right after the wait (ranks = 1 only)">,
  ];
  let dependentDialects = [
    "::mlir::warpspec::WarpSpecDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::math::MathDialect", "::mlir::vector::VectorDialect",
    "::mlir::ub::UBDialect"
  ];
}

#endif // MEGAMOE_DIALECT_MEGAMOE_TRANSFORMS_PASSES_TD
