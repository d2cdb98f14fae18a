#ifndef MEGAMOE_DIALECT_WARPSPEC_TRANSFORMS_PASSES_TD
#define MEGAMOE_DIALECT_WARPSPEC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WarpSpecPlanSmem : Pass<"warpspec-plan-smem"> {
  let summary = "Assign static shared-memory offsets to the buffers and "
                "mbarriers of each warpspec.kernel";
  let description = [{
    For every `warpspec.kernel` nested under the anchor op, lays out the
    kernel's dynamic shared memory:

    1. the `warpspec.smem.alloc` buffers, by decreasing alignment (program
       order among equals), each at the next offset that is a multiple of its
       `align`, taking `slots x alignTo(slotBytes, align)` bytes;
    2. then the full/empty mbarriers of every `warpspec.pipeline.create`
       (2 x stages x 8 B, 8-byte aligned), in program order.

    Each buffer and pipeline gets an `offset` attribute (bytes from the start
    of dynamic shared memory; existing offsets are replaced) and the kernel
    gets `smem_bytes`, the end of the last object. Offsets assume a dynamic
    shared-memory base aligned to the largest buffer alignment; the lowering
    declares the extern buffer with that alignment.

    The placement rule is lib/Config's `layoutSmem` (SmemModel.h), the one
    the kernel plans size their shared memory with.

    Fails with a diagnostic listing every object when the total exceeds the
    per-block limit of the kernel's chip (`config::ChipLimits`: 232,448 B on
    sm_90a and sm_100a) or the `smem-limit` option when it is set. A kernel
    whose builder recorded its plan's shared memory in the discardable
    attribute `warpspec.planned_smem_bytes` (`config::KernelPlan::smemBytes`)
    must also fit it: a layout larger than the plan means the builder's
    buffers and the plan's SMEM regions disagree, and is an error that lists
    every object.

    ```
    megamoe-opt --warpspec-plan-smem in.mlir
    megamoe-opt --warpspec-plan-smem="smem-limit=100000" in.mlir
    ```
  }];
  let options = [
    Option<"smemLimit", "smem-limit", "int64_t", /*default=*/"0",
           "Per-block dynamic shared-memory limit in bytes; 0 takes the "
           "limit of the kernel's chip">,
  ];
}

#endif // MEGAMOE_DIALECT_WARPSPEC_TRANSFORMS_PASSES_TD
