// REQUIRES: ptxas
// RUN: rm -rf %t && megamoe-opt %s --pass-pipeline='builtin.module(megamoe-collect-manifest,gpu-module-to-binary{format=isa},megamoe-assemble-ptx,megamoe-emit-kernels{output-dir=%t})' -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t/kmod.json
// RUN: FileCheck %s --check-prefix=HDR < %t/kmod.h
// RUN: FileCheck %s --check-prefix=PTX < %t/kmod.ptx
// RUN: %ptxas -arch=sm_90a %t/kmod.ptx -o %t/again.cubin
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1])); k=m['kernels'][0]; assert open(sys.argv[2],'rb').read()[:4]==b'\x7fELF'; print(m['version'], k['name'], k['block'], k['dynamic_smem_bytes'], [p['kind'] for p in k['params']])" %t/kmod.json %t/kmod.cubin | FileCheck %s --check-prefix=PY

// JSON: "chip": "sm_90a",
// JSON: "cubin": "kmod.cubin",
// JSON: "format": "megamoe-manifest",
// JSON: "dynamic_smem_bytes": 2048,
// A kernel without megamoe.grid runs one CTA per SM.
// JSON-NEXT: "grid": [
// JSON-NEXT: {
// JSON-NEXT: "ctas": "num_sms"
// JSON-NEXT: },
// JSON-NEXT: 1,
// JSON-NEXT: 1
// JSON-NEXT: ],
// JSON-NEXT: "max_registers": 168,
// JSON: "name": "k",
// JSON: "kind": "tma_descriptor",
// JSON: "name": "a",
// JSON: "tma": "a"
// JSON: "resources": {
// JSON-NEXT: "registers": {{[1-9][0-9]*}},
// JSON-NEXT: "spill_loads_bytes": 0,
// JSON-NEXT: "spill_stores_bytes": 0,
// JSON: "tma_descriptors": [
// JSON: "dtype": "e4m3",
// JSON: "global_shape": [
// JSON-NEXT: 7168,
// JSON-NEXT: {
// JSON-NEXT: "symbol": "M"
// JSON-NEXT: }
// JSON-NEXT: ],
// JSON-NEXT: "global_strides_bytes": [
// JSON-NEXT: 7168
// JSON-NEXT: ],
// JSON: "swizzle": "128B"
// JSON: "ptx": "kmod.ptx",
// JSON: "version": 2

// HDR: #ifndef MEGAMOE_EMBED_KMOD_H
// HDR: static const unsigned char megamoe_kmod_cubin[] __attribute__((aligned(8))) = {
// HDR-NEXT: 0x7f,0x45,0x4c,0x46,
// HDR: static const size_t megamoe_kmod_cubin_size = {{[1-9][0-9]*}};
// HDR: static const char megamoe_kmod_manifest[] =
// HDR-NEXT: "{\n"
// HDR: "  \"format\": \"megamoe-manifest\",\n"

// PTX: .target sm_90a
// PTX: .entry k(
// PTX: .maxnreg 168

// PY: 2 k [384, 1, 1] 2048 ['tma_descriptor', 'pointer']

module attributes {gpu.container_module} {
  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx86", O = 3>] attributes {megamoe.runtime_symbols = ["M"]} {
    llvm.func @k(%d: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant, megamoe.name = "a", megamoe.tma = {dtype = "e4m3", rank = 2 : i64, global_shape = [7168, {symbol = "M"}], global_strides_bytes = [7168], box = [128, 128], element_strides = [1, 1], swizzle = "128B", interleave = "none", l2_promotion = "256B", oob_fill = "zero"}},
                 %out: !llvm.ptr<1>)
        attributes {nvvm.kernel, nvvm.reqntid = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32, megamoe.dynamic_smem_bytes = 2048 : i64} {
      nvvm.prefetch tensormap, %d : !llvm.ptr
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      llvm.store %tid, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
