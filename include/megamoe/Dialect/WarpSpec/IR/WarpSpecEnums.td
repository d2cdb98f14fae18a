#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECENUMS_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECENUMS_TD

include "mlir/IR/EnumAttr.td"

def WarpSpec_ScopeGpu : I32EnumAttrCase<"gpu", 0>;
def WarpSpec_ScopeSys : I32EnumAttrCase<"sys", 1>;
def WarpSpec_ScopeAttr : I32EnumAttr<"Scope",
    "memory scope of a release/acquire on a global counter: gpu (all CTAs of "
    "this GPU) or sys (also peers over NVLink and the host)",
    [WarpSpec_ScopeGpu, WarpSpec_ScopeSys]> {
  let cppNamespace = "::mlir::warpspec";
}

def WarpSpec_MajorK : I32EnumAttrCase<"k", 0>;
def WarpSpec_MajorMN : I32EnumAttrCase<"mn", 1>;
def WarpSpec_MajorAttr : I32EnumAttr<"Major",
    "which dimension of an SMEM MMA operand is contiguous: k (K-major) or mn "
    "(M-/N-major, i.e. transposed)",
    [WarpSpec_MajorK, WarpSpec_MajorMN]> {
  let cppNamespace = "::mlir::warpspec";
}

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECENUMS_TD
