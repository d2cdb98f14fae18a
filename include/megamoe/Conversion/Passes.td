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

def ConvertWarpSpecToNVVM : Pass<"convert-warpspec-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower warpspec kernels to NVVM, LLVM, arith and scf (SM90)";
  let description = [{
    Lowers every warpspec op of the gpu.module for sm_90a:
    - `warpspec.kernel` -> `llvm.func` with `nvvm.kernel`, `nvvm.reqntid`,
      `nvvm.maxnreg`, `nvvm.cluster_dim`; TMA descriptor arguments become
      `!llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64,
      nvvm.grid_constant}`; manifest facts go into `megamoe.*` attributes;
    - roles -> a uniform warp index (`shfl.sync` of tid.x / 32) and an
      if/else chain, one branch per group of warpgroups, each starting with
      `setmaxnreg.inc/dec`; named barriers -> `bar.sync/bar.arrive id, n`;
    - SMEM buffers -> offsets into the extern `__dynamic_smem` array;
      pipelines -> full/empty mbarrier arrays (init by thread 0,
      `fence.mbarrier_init`, `bar.sync 0`), `mbarrier.try_wait.parity` with
      a per-(pipeline, side, role) counter kept in an alloca (SROA makes it a
      register), `arrive.expect_tx` / `arrive` by lane 0;
    - TMA -> `cp.async.bulk.tensor` (shared::cta destination, PTX 8.6), bulk
      copies, `fence.proxy.async.shared::cta`;
    - counters -> `red.release.{gpu,sys}` via `nvvm.inline_ptx`, acquire
      loads, clock64 timeouts that trap; grid sync, peer pointers,
      cross-rank barrier;
    - `mma.sm90` -> `wgmma.fence`, `wgmma.mma_async` over 128B/64B/32B
      swizzled K-major SMEM descriptors, `wgmma.commit_group`; `mma.wait`
      -> `wgmma.wait_group`; `acc.promote` (CUDA-core FMA with per-row
      scales) and `acc.store` (bf16/f16/f32 pairs, swizzled) per the wgmma D
      fragment layout.
    SMEM offsets must be planned (`warpspec-plan-smem`) before this pass.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"
  ];
}

def MegaMoEConvertToLLVM : Pass<"megamoe-convert-to-llvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower gpu, arith, cf, index, math, ub and vector inside a gpu.module to NVVM/LLVM";
  let description = [{
    Finishes the lowering of a kernel body after `convert-warpspec-to-nvvm`
    and `convert-scf-to-cf`: everything that is not yet LLVM or NVVM becomes
    LLVM. Upstream `convert-cf-to-llvm` and `convert-func-to-llvm` are
    anchored on builtin.module and cannot nest in a gpu.module; this pass
    gathers the same pattern sets for one gpu.module.

    First, upstream's GPU-to-NVVM patterns lower the gpu ops kernels use
    (`gpu.thread_id`, `gpu.block_id`, `gpu.grid_dim`, `gpu.lane_id`,
    `gpu.shuffle`, `gpu.barrier`, uniform `gpu.subgroup_reduce` as
    `redux.sync`) and `math.exp` becomes a call of libdevice's `__nv_expf`
    (the exp the numerics contract names); other math ops are untouched by
    that step, so `math.absf` stays the `llvm.fabs` intrinsic. Then arith,
    cf, index, math, ub and vector become LLVM.
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", "64",
           "Bitwidth of the index type">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
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
