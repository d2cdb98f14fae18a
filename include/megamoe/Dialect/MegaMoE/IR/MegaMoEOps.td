#ifndef MEGAMOE_DIALECT_MEGAMOE_MEGAMOEOPS_TD
#define MEGAMOE_DIALECT_MEGAMOE_MEGAMOEOPS_TD

include "megamoe/Dialect/MegaMoE/IR/MegaMoEDialect.td"
include "megamoe/Dialect/MegaMoE/IR/MegaMoEAttrs.td"
include "mlir/IR/SymbolInterfaces.td"

def MegaMoE_LayerOp : MegaMoE_Op<"layer", [Symbol]> {
  let summary = "A routed-expert MoE layer under expert parallelism";
  let description = [{
    Declares one MoE layer (dispatch -> L1 FP8 grouped GEMM -> SwiGLU ->
    requant -> L2 FP8 grouped GEMM -> combine) by its `config`.
    `megamoe-plan` attaches the `plan` (tiles, stages, waves, SMs, warp
    roles, registers, shared memory, schedule, variants); the verifier checks
    that a plan fits the layer and the chip (SMEM, registers, tile shapes).

    ```mlir
    megamoe.layer @flash config = <hidden = 4096, intermediate = 2048,
        experts = 256, topk = 6, ranks = 8, max_tokens = 8192>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       MegaMoE_ConfigAttr:$config,
                       OptionalAttr<MegaMoE_PlanAttr>:$plan);
  let assemblyFormat =
      "$sym_name `config` `=` $config (`plan` `=` $plan^)? attr-dict";
  let hasVerifier = 1;
}

#endif // MEGAMOE_DIALECT_MEGAMOE_MEGAMOEOPS_TD
