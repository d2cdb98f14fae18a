//===- ManifestAttrs.cpp - manifest attributes to JSON --------------------===//
#include "ManifestAttrs.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

llvm::json::Value mlir::megamoe::manifest::toJSON(Attribute attr) {
  if (!attr)
    return nullptr;
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object obj;
    for (NamedAttribute named : dict)
      obj[named.getName().strref()] = toJSON(named.getValue());
    return obj;
  }
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array arr;
    for (Attribute element : array)
      arr.push_back(toJSON(element));
    return arr;
  }
  if (auto dense = dyn_cast<DenseI32ArrayAttr>(attr)) {
    llvm::json::Array arr;
    for (int32_t v : dense.asArrayRef())
      arr.push_back(v);
    return arr;
  }
  if (auto dense = dyn_cast<DenseI64ArrayAttr>(attr)) {
    llvm::json::Array arr;
    for (int64_t v : dense.asArrayRef())
      arr.push_back(v);
    return arr;
  }
  if (auto str = dyn_cast<StringAttr>(attr))
    return str.str();
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return boolean.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  if (auto fp = dyn_cast<FloatAttr>(attr))
    return fp.getValueAsDouble();
  if (isa<UnitAttr>(attr))
    return true;
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}
