#ifndef MEGAMOE_DIALECT_WARPSPEC_WARPSPECDIALECT_TD
#define MEGAMOE_DIALECT_WARPSPEC_WARPSPECDIALECT_TD

include "mlir/IR/OpBase.td"

def WarpSpec_Dialect : Dialect {
  let name = "warpspec";
  let cppNamespace = "::mlir::warpspec";
  let summary = "Warp-specialized persistent kernels: warp roles, SMEM pipelines, arrival counters, symmetric memory and tile MMA.";
}

class WarpSpec_Op<string mnemonic, list<Trait> traits = []>
    : Op<WarpSpec_Dialect, mnemonic, traits>;

#endif // MEGAMOE_DIALECT_WARPSPEC_WARPSPECDIALECT_TD
