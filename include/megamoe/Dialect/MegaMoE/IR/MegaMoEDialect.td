#ifndef MEGAMOE_DIALECT_MEGAMOE_MEGAMOEDIALECT_TD
#define MEGAMOE_DIALECT_MEGAMOE_MEGAMOEDIALECT_TD

include "mlir/IR/OpBase.td"

def MegaMoE_Dialect : Dialect {
  let name = "megamoe";
  let cppNamespace = "::mlir::megamoe";
  let summary = "The Mixture-of-Experts layer as the user describes it, and its kernel plan.";
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class MegaMoE_Op<string mnemonic, list<Trait> traits = []>
    : Op<MegaMoE_Dialect, mnemonic, traits>;

#endif // MEGAMOE_DIALECT_MEGAMOE_MEGAMOEDIALECT_TD
