// One rank needs no cross-rank synchronization: every store of the layer is
// local, and what follows each stage (a kernel boundary, or a grid barrier in
// the merged and one-kernel forms) orders it. So at ranks = 1 moe_route does
// not fence its slot stores at system scope, moe_layout has neither the fence
// nor the cross-rank barrier (barriers[0]), the L2 GEMM's scatter ends
// without fence.sc.sys, and moe_combine_barrier is not built (the schedule
// goes from moe_l2_gemm straight to moe_combine_reduce). At ranks = 2 all of
// them are there. Bitwise equal on the GPU (bench/RESULTS.md 2026-12-03,
// "One rank").
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand | FileCheck %s --check-prefix=R1
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=2 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand | FileCheck %s --check-prefix=R2
// RUN: megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="merge-stages=true" | FileCheck %s --check-prefix=M1
// RUN: not megamoe-opt %s --megamoe-layer="hidden=512 intermediate=256 experts=8 topk=2 ranks=1 max-tokens=64 chip=sm_90a" --megamoe-plan="schedule=split" --megamoe-expand="only=moe_combine_barrier" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONLY

// R1: megamoe.schedule = ["moe_route", "moe_layout", "moe_pull", "moe_l1_swiglu", "moe_l2_gemm", "moe_combine_reduce"]
// R1-LABEL: warpspec.kernel @moe_route(
// R1-NOT: scope sys
// R1-LABEL: warpspec.kernel @moe_layout(
// R1-NOT: scope sys
// R1-NOT: cross_rank.barrier
// R1-LABEL: warpspec.kernel @moe_pull(
// R1-LABEL: warpspec.kernel @moe_l1_swiglu(
// R1-LABEL: warpspec.kernel @moe_l2_gemm(
// R1-NOT: scope sys
// R1-LABEL: warpspec.kernel @moe_combine_reduce(
// R1-NOT: warpspec.kernel

// R2: megamoe.schedule = ["moe_route", "moe_layout", "moe_pull", "moe_l1_swiglu", "moe_l2_gemm", "moe_combine_barrier", "moe_combine_reduce"]
// R2-LABEL: warpspec.kernel @moe_route(
// R2: warpspec.fence scope sys
// R2-LABEL: warpspec.kernel @moe_layout(
// R2: warpspec.fence scope sys
// R2: warpspec.cross_rank.barrier
// R2-LABEL: warpspec.kernel @moe_l2_gemm(
// R2: warpspec.fence scope sys
// R2-LABEL: warpspec.kernel @moe_combine_barrier(
// R2: warpspec.cross_rank.barrier
// R2-LABEL: warpspec.kernel @moe_combine_reduce(

// The merged combine is the reduce alone.
// M1-LABEL: warpspec.kernel @moe_dispatch(
// M1-NOT: scope sys
// M1-LABEL: warpspec.kernel @moe_combine(
// M1-NOT: grid.sync
// M1-NOT: cross_rank
// M1: scf.for
// M1: warpspec.return

// ONLY: only= names 'moe_combine_barrier', which is not a kernel of the split schedule

module {
}
