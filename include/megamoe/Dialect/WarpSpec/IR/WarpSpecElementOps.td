#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECELEMENTOPS_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECELEMENTOPS_TD

// Per-thread element math with PTX-exact semantics that no upstream op has:
// the approximate (flush-to-zero) ex2 / rcp of fast-math kernels and the
// packed, saturating f32 -> e4m3 conversion of FP8 requantization. Kernel
// builders use these instead of NVVM ops (lib/Kernels creates no NVVM or
// LLVM op); lowered by lib/Conversion/WarpSpecToNVVM/LowerElementMath.cpp.

include "mlir/IR/EnumAttr.td"

def WarpSpec_ApproxEx2 : I32EnumAttrCase<"ex2", 0>;
def WarpSpec_ApproxRcp : I32EnumAttrCase<"rcp", 1>;
def WarpSpec_ApproxKindAttr : I32EnumAttr<"ApproxKind",
    "an approximate f32 function of PTX: ex2 (2^x) or rcp (1/x)",
    [WarpSpec_ApproxEx2, WarpSpec_ApproxRcp]> {
  let cppNamespace = "::mlir::warpspec";
}

def WarpSpec_ApproxOp : WarpSpec_Op<"approx", [Pure]> {
  let summary = "approximate ex2 or rcp of an f32, subnormals flushed to zero";
  let description = [{
    Per thread: `ex2.approx.ftz.f32` (2^x, at most 2 ulp over the full
    range) or `rcp.approx.ftz.f32` (1/x, at most 1 ulp); subnormal inputs
    and results are flushed to sign-preserving zero. What `math.exp2` or
    `arith.divf` with fast-math flags lower to is the backend's choice (not
    flushing, or a different approximation); these are the instructions the
    fast-math numerics of the kernels are specified with.

    ```mlir
    %e = warpspec.approx ex2 %x
    %r = warpspec.approx rcp %d
    ```

    Lowers to `llvm.nvvm.ex2.approx.ftz.f32` / `llvm.nvvm.rcp.approx.ftz.f`.
  }];
  let arguments = (ins WarpSpec_ApproxKindAttr:$kind, F32:$x);
  let results = (outs F32:$result);
  let assemblyFormat = "$kind $x attr-dict";
}

def WarpSpec_CvtE4M3x2Op : WarpSpec_Op<"cvt.e4m3x2", [Pure]> {
  let summary = "two f32 to a packed pair of e4m3 bytes (round to nearest even, saturating)";
  let description = [{
    Per thread: `cvt.rn.satfinite.e4m3x2.f32`. The low byte of the i16
    result is `lo` and the high byte `hi`, each converted to
    `f8E4M3FN` with round-to-nearest-even; finite values beyond the largest
    e4m3 magnitude (448) saturate to +-448, NaN stays NaN. `arith.truncf` to
    `f8E4M3FN` has no NVVM lowering upstream, and its overflow is not the
    saturation the FP8 recipes specify.

    ```mlir
    %pair = warpspec.cvt.e4m3x2 %lo, %hi
    ```

    Lowers to `nvvm.convert.f32x2.to.f8x2` (whose first operand goes to the
    high byte).
  }];
  let arguments = (ins F32:$lo, F32:$hi);
  let results = (outs I16:$result);
  let assemblyFormat = "$lo `,` $hi attr-dict";
}

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECELEMENTOPS_TD
