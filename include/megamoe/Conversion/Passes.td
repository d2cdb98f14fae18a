//===- Passes.td - megamoe conversion passes ----------------*- tablegen -*-===//
//
// The passes that take warpspec kernels inside a gpu.module down to NVVM/LLVM,
// to PTX and a cubin, and write what the runtime consumes (cubin, PTX,
// manifest JSON, embeddable C header).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONVERSION_PASSES
#define MEGAMOE_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def MegaMoEAttachTarget : Pass<"megamoe-attach-target", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Set the #nvvm.target of a gpu.module from a chip name";
  let description = [{
    Replaces the targets of the gpu.module with one `#nvvm.target` whose PTX
    version is chosen from the chip (sm_90a -> +ptx86, sm_100a -> +ptx88). A
    PTX version that is too old makes LLVM abort in instruction selection
    instead of reporting an error, so the pipeline never lets the user pick
    it by hand. An unknown chip is an error that lists the known ones.
  }];
  let options = [
    Option<"chip", "chip", "std::string", [{"sm_90a"}],
           "Target chip (sm_90a, sm_100a, ...)">,
    Option<"optLevel", "O", "unsigned", "3", "LLVM optimization level">,
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

def MegaMoEConvertToLLVM : Pass<"megamoe-convert-to-llvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower arith, cf, index, math and ub inside a gpu.module to LLVM";
  let description = [{
    Finishes the lowering of a kernel body after `convert-warpspec-to-nvvm`
    and `convert-scf-to-cf`: everything that is not yet LLVM or NVVM becomes
    LLVM. Upstream `convert-cf-to-llvm` and `convert-func-to-llvm` are
    anchored on builtin.module and cannot nest in a gpu.module; this pass
    gathers the same pattern sets for one gpu.module.
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", "64",
           "Bitwidth of the index type">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def MegaMoECollectManifest : Pass<"megamoe-collect-manifest", "::mlir::ModuleOp"> {
  let summary = "Record the launch contract of every kernel before serialization";
  let description = [{
    Reads every `llvm.func` with `nvvm.kernel` in every gpu.module and writes
    its launch contract (docs/Manifest.md: name, parameters, block, grid,
    cluster, dynamic shared memory, register cap, TMA descriptor specs) into
    the attribute `megamoe.manifests` of the builtin.module, keyed by the
    gpu.module name, because gpu-module-to-binary drops the functions. The
    `megamoe.*` attributes that the lowering put on kernels and arguments are
    consumed and removed.
  }];
}

def MegaMoEAssemblePTX : Pass<"megamoe-assemble-ptx", "::mlir::ModuleOp"> {
  let summary = "Assemble PTX gpu.binary objects with ptxas -v and record resources";
  let description = [{
    Runs the CUDA toolkit's `ptxas -v` on every PTX object of every
    gpu.binary, replaces it with the cubin (the PTX stays in the object's
    properties as `ptx`), and records each kernel's registers, spills, stack
    and static shared memory into `megamoe.manifests`. Spills are reported
    as a warning. ptxas comes from `toolkit`, else $CUDA_HOME, else
    /usr/local/cuda.
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", [{""}],
           "CUDA toolkit root (default: $CUDA_HOME, then /usr/local/cuda)">,
    Option<"ptxasOptions", "ptxas-options", "std::string", [{""}],
           "Extra options for ptxas, separated by spaces">,
  ];
}

def MegaMoEEmitKernels : Pass<"megamoe-emit-kernels", "::mlir::ModuleOp"> {
  let summary = "Write cubin, PTX, manifest JSON and a C header per gpu.binary";
  let description = [{
    For each gpu.binary `@name` holding a cubin (after
    `megamoe-assemble-ptx`), writes into `output-dir`: `name.cubin`,
    `name.ptx`, `name.json` (docs/Manifest.md, schema version 1) and
    `name.h`, a C header embedding the cubin bytes and the manifest text.
  }];
  let options = [
    Option<"outputDir", "output-dir", "std::string", [{""}],
           "Directory to write the files into (created if missing)">,
  ];
}

#endif // MEGAMOE_CONVERSION_PASSES
