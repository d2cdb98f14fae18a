// RUN: megamoe-opt %s --megamoe-collect-manifest --split-input-file --verify-diagnostics | FileCheck %s

// The launch contract moves from the kernel's attributes to the module; the
// megamoe.* attributes are consumed.
// CHECK: module attributes {gpu.container_module, megamoe.manifests = {kmod = {chip = "sm_90a", kernels = [{block = [384, 1, 1], cluster = [2, 1, 1], dynamic_smem_bytes = 4096 : i64, grid = [{ctas = "num_sms"}, 1, 1], max_registers = 168 : i64, name = "k", params = [{kind = "tma_descriptor", name = "a", tma = "a"}, {kind = "pointer", name = "out"}, {kind = "i32", name = "arg2"}, {kind = "u32", name = "flags"}], tma_descriptors = [{box = [128, 64], dtype = "e4m3", global_shape = [7168, {symbol = "M"}], name = "a", rank = 2 : i64, swizzle = "128B"}]}], runtime_symbols = ["M"], symbols = {K = 7168 : i64}}}}
// CHECK: llvm.func @k(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32)
// CHECK-NOT: megamoe.
module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] attributes {megamoe.symbols = {K = 7168 : i64}, megamoe.runtime_symbols = ["M"]} {
    llvm.func @k(%d: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant, megamoe.name = "a", megamoe.tma = {dtype = "e4m3", rank = 2 : i64, global_shape = [7168, {symbol = "M"}], box = [128, 64], swizzle = "128B"}},
                 %out: !llvm.ptr<1> {megamoe.name = "out"}, %n: i32, %f: i32 {megamoe.name = "flags", megamoe.kind = "u32"})
        attributes {nvvm.kernel, nvvm.reqntid = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32, nvvm.cluster_dim = array<i32: 2, 1, 1>, megamoe.dynamic_smem_bytes = 4096 : i64} {
      llvm.return
    }
    // Not a kernel: not in the manifest.
    llvm.func @helper() {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    // expected-error @below {{kernel 'k' has neither nvvm.reqntid nor nvvm.maxntid; the manifest needs its block shape}}
    llvm.func @k() attributes {nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    // expected-error @below {{kernel 'k' parameter 0 is a TMA descriptor without a megamoe.tma spec}}
    llvm.func @k(%d: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant}) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    // expected-error @below {{kernel 'k' parameter 0 has type 'vector<2xf32>', which the manifest cannot describe}}
    llvm.func @k(%v: vector<2xf32>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
      llvm.return
    }
  }
}

// -----

// Launch shapes are constants, the SM count (capped) or a runtime symbol
// times a constant (docs/Manifest.md); an expression string is a builder bug.
module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    // expected-error @below {{kernel 'k' has grid ["min(num_sms, 8)", 1, 1]; each of its 3 entries must be a positive integer or {ctas = "num_sms"} with an optional max = N (docs/Manifest.md)}}
    llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>, megamoe.grid = ["min(num_sms, 8)", 1, 1]} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    // expected-error @below {{has grid [{ctas = "num_sms", max = 0 : i64}, 1, 1]; each of its 3 entries}}
    llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>, megamoe.grid = [{ctas = "num_sms", max = 0 : i64}, 1, 1]} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    // expected-error @below {{kernel 'k' TMA descriptor "a" has global_shape entry "M * 4"; it must be a positive integer or {symbol = NAME} with an optional times = N (docs/Manifest.md)}}
    llvm.func @k(%d: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant, megamoe.name = "a", megamoe.tma = {dtype = "e4m3", rank = 2 : i64, global_shape = [128, "M * 4"], global_strides_bytes = [128], box = [128, 64], swizzle = "128B"}}) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    // expected-error @below {{has global_strides_bytes entry {symbol = "M", times = -4 : i64}}}
    llvm.func @k(%d: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant, megamoe.name = "a", megamoe.tma = {dtype = "e4m3", rank = 2 : i64, global_shape = [128, {symbol = "M"}], global_strides_bytes = [{symbol = "M", times = -4 : i64}], box = [128, 64], swizzle = "128B"}}) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
      llvm.return
    }
  }
}
