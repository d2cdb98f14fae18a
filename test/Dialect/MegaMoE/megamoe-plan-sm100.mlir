// sm_100a layers are planned like sm_90a ones (docs/SM100.md): the same
// roles and register targets, the chip's 148 SMs.
// RUN: megamoe-opt %s --megamoe-plan | FileCheck %s
// RUN: megamoe-opt %s --megamoe-plan="schedule=unfused" | FileCheck %s --check-prefix=UNFUSED

// CHECK: megamoe.layer @v4_pro
// CHECK-SAME: plan = <chip = "sm_100a", num_sms = 148, schedule = "fused", threads = 384
// UNFUSED: plan = <chip = "sm_100a", num_sms = 148, schedule = "unfused"
megamoe.layer @v4_pro config = <hidden = 7168, intermediate = 3072, experts = 384, topk = 6, ranks = 8, max_tokens = 8192, chip = "sm_100a">
