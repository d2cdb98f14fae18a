// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(megamoe-attach-target{chip=sm_90a}))' | FileCheck %s --check-prefix=SM90
// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(megamoe-attach-target{chip=sm_100a}))' | FileCheck %s --check-prefix=SM100
// RUN: megamoe-opt %s --pass-pipeline='builtin.module(gpu.module(megamoe-attach-target{chip=sm_50}))' --split-input-file --verify-diagnostics

// The PTX version follows the chip; an existing target is replaced.
// SM90: gpu.module @k [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">]
// SM100: gpu.module @k [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">]
module attributes {gpu.container_module} {
  // expected-error @below {{unsupported chip 'sm_50'; supported: sm_90a, sm_100a}}
  gpu.module @k [#nvvm.target<chip = "sm_80">] {
  }
}
