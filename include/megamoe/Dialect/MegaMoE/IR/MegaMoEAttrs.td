#ifndef MEGAMOE_DIALECT_MEGAMOE_MEGAMOEATTRS_TD
#define MEGAMOE_DIALECT_MEGAMOE_MEGAMOEATTRS_TD

include "megamoe/Dialect/MegaMoE/IR/MegaMoEDialect.td"
include "mlir/IR/AttrTypeBase.td"

class MegaMoE_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<MegaMoE_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// `true` / `false` keywords (the default integer parser would want 0 / 1).
def MegaMoE_BoolParameter : AttrOrTypeParameter<"bool", "a boolean"> {
  let parser = [{ ::mlir::megamoe::parseBoolKeyword($_parser) }];
  let printer = [{ $_printer << ($_self ? "true" : "false") }];
  let defaultValue = "false";
}

def MegaMoE_ConfigAttr : MegaMoE_Attr<"Config", "config"> {
  let summary = "An MoE layer: shapes, EP size, recipe, activation, target";
  let description = [{
    The routed-expert layer as the user describes it (DESIGN.md sections 2.2
    and 3): hidden `H`, intermediate `I`, experts `E`, top-k `K`, ranks `R`
    (EP size) and the bound `T` on tokens per rank per call, the FP8 recipe
    (dtypes and scale-block sizes, including the L1-output requantization
    block 128 or 64), the SwiGLU activation with optional clamp and fast math,
    and the target chip. Parameters with a default are omitted when printed.

    Rules (verified, each error names the rule and the values): H and I are
    multiples of 128, E is divisible by R, 1 <= K <= E, T >= 1, 1 <= R <= 72,
    the recipe is e4m3 x e4m3 -> bf16 with 128-wide scale blocks and a
    requantization block of 128 or 64, chip is sm_90a or sm_100a.

    ```mlir
    #megamoe.config<hidden = 4096, intermediate = 2048, experts = 256,
                    topk = 6, ranks = 8, max_tokens = 8192>
    ```
  }];
  let parameters = (ins
    "int64_t":$hidden,
    "int64_t":$intermediate,
    "int64_t":$experts,
    "int64_t":$topk,
    "int64_t":$ranks,
    "int64_t":$max_tokens,
    StringRefParameter<"target chip", "\"sm_90a\"">:$chip,
    StringRefParameter<"activation dtype", "\"e4m3\"">:$act_dtype,
    StringRefParameter<"weight dtype", "\"e4m3\"">:$weight_dtype,
    StringRefParameter<"output dtype", "\"bf16\"">:$out_dtype,
    DefaultValuedParameter<"int64_t", "128">:$input_scale_block,
    DefaultValuedParameter<"int64_t", "128">:$weight_scale_block,
    DefaultValuedParameter<"int64_t", "128">:$requant_block,
    StringRefParameter<"activation", "\"swiglu\"">:$activation,
    OptionalParameter<"::mlir::FloatAttr", "clamp (absent: none)">:$clamp,
    MegaMoE_BoolParameter:$fast_math
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layer as the config library sees it (the attribute is valid).
    ::megamoe::config::LayerConfig getLayerConfig() const;
    static ConfigAttr get(::mlir::MLIRContext *context,
                          const ::megamoe::config::LayerConfig &config);
    static ConfigAttr
    getChecked(::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
               ::mlir::MLIRContext *context,
               const ::megamoe::config::LayerConfig &config);
  }];
}

def MegaMoE_VariantAttr : MegaMoE_Attr<"Variant", "variant"> {
  let summary = "One kernel variant of a plan (one BLOCK_M bucket)";
  let description = [{
    Serves calls with `min_tokens` to `max_tokens` tokens on the rank. Tiles:
    `block_m` pool rows (each expert's pool segment padded to `expert_align`
    rows: block_m, or 64 with block_m 128, where an expert's last m-block
    may be a 64-row half block), `l1_block_n` gate/up-interleaved L1 weight rows,
    `l2_block_n` output channels, `block_k`; `stages` SMEM pipeline stages;
    `experts_per_wave` for the wave scheduler; `math_mode` cooperative-m
    (two warpgroups split M), cooperative-n (split N) or single; setmaxnreg
    targets of the producer warpgroup, each math warpgroup and the idle one;
    `smem_bytes` of dynamic shared memory; `l1_pull` (split schedule only;
    omitted when false) when the variant's L1 kernel fills its own pool rows
    (dispatch warps beside the TMA warps, no moe_pull); `k_split` (omitted
    when 1): the grouped GEMMs split the K of their last wave's tiles into
    that many units (warpspec.tile_loop k_split); `wave_m_blocks` (omitted
    when 0) and `wave_lag` (omitted when 1): the fused-gemm kernel
    interleaves its L1 and L2 tiles in waves of that many m-blocks
    (warpspec.wave_loop); `schedule` (omitted when the plan's): the
    variant's own stage-kernel schedule (unfused, split or fused-gemm;
    megamoe-plan schedule=auto picks per BLOCK_M); `l1_pair_stages`
    (omitted when false; split schedule, BLOCK_M 128, sm_90a): the L1
    kernel runs a tile's pair of column blocks as one BLOCK_N 256 mainloop
    pass instead of two; `l2_expert_blocks` (omitted when false; split
    schedule, BLOCK_M 128 with half blocks, sm_90a): the L2 GEMM computes
    256-row expert blocks; `l1_cluster` (omitted when false; split schedule,
    BLOCK_M 128 with half blocks, sm_90a): the L1 kernel runs in clusters
    of 2 that share an expert's weight tiles.
  }];
  let parameters = (ins
    "int64_t":$min_tokens,
    "int64_t":$max_tokens,
    "int64_t":$block_m,
    "int64_t":$expert_align,
    "int64_t":$l1_block_n,
    "int64_t":$l2_block_n,
    "int64_t":$block_k,
    "int64_t":$stages,
    "int64_t":$experts_per_wave,
    StringRefParameter<"math mode">:$math_mode,
    "int64_t":$producer_registers,
    "int64_t":$math_registers,
    "int64_t":$idle_registers,
    "int64_t":$smem_bytes,
    MegaMoE_BoolParameter:$l1_pull,
    DefaultValuedParameter<"int64_t", "1">:$k_split,
    DefaultValuedParameter<"int64_t", "0">:$wave_m_blocks,
    DefaultValuedParameter<"int64_t", "1">:$wave_lag,
    StringRefParameter<"the variant's own schedule (empty: the plan's)",
                       "\"\"">:$schedule,
    MegaMoE_BoolParameter:$l1_pair_stages,
    MegaMoE_BoolParameter:$l2_expert_blocks,
    MegaMoE_BoolParameter:$l1_cluster
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def MegaMoE_PlanAttr : MegaMoE_Attr<"Plan", "plan"> {
  let summary = "The kernel plan chosen for a layer by megamoe-plan";
  let description = [{
    Launch shape and the set of variants a layer may select at run time:
    `num_sms` persistent CTAs of `threads` threads; warps
    [0, `dispatch_warps`) dispatch, warp `tma_a_warp` loads activations,
    warp `tma_b_warp` weights, warpgroups 1..`math_warpgroups` compute;
    `entry_registers` per thread at launch; the schedule (fused, split or
    unfused); the L1-output requantization block; `pool_tokens` rows of token
    pool (a ring when fewer than the worst case); one #megamoe.variant per
    BLOCK_M bucket, contiguous over 0..T tokens per rank; `l1_weight_tiles`
    (omitted when false): the L1 weights' kernel layout is 128 x 128
    contiguous tiles instead of row-major.
  }];
  let parameters = (ins
    StringRefParameter<"target chip">:$chip,
    "int64_t":$num_sms,
    StringRefParameter<"schedule">:$schedule,
    "int64_t":$threads,
    "int64_t":$dispatch_warps,
    "int64_t":$tma_a_warp,
    "int64_t":$tma_b_warp,
    "int64_t":$math_warpgroups,
    "int64_t":$entry_registers,
    "int64_t":$requant_block,
    "int64_t":$pool_tokens,
    "::mlir::ArrayAttr":$variants,
    MegaMoE_BoolParameter:$l1_weight_tiles
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The plan as the config library sees it (the attribute is valid).
    ::megamoe::config::Plan getPlan() const;
    static PlanAttr get(::mlir::MLIRContext *context,
                        const ::megamoe::config::Plan &plan);
  }];
}

#endif // MEGAMOE_DIALECT_MEGAMOE_MEGAMOEATTRS_TD
