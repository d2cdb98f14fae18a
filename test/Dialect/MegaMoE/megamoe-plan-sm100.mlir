// sm_100a layers are valid IR, but only sm_90a has a planner yet.
// RUN: megamoe-opt %s --verify-diagnostics --megamoe-plan

// expected-error @+1 {{megamoe-plan: no plan fits layer @v4_pro}}
megamoe.layer @v4_pro config = <hidden = 7168, intermediate = 3072, experts = 384, topk = 6, ranks = 8, max_tokens = 8192, chip = "sm_100a">
// expected-note @-1 {{planning for sm_100a is not implemented: only sm_90a kernels (wgmma, 384 threads) have a planner}}
