//===- WarpSpecGlobalOps.cpp - typed global pointers and their ops --------===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "GlobalPtrAsm.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::warpspec;

//===----------------------------------------------------------------------===//
// GlobalType
//===----------------------------------------------------------------------===//

namespace {
/// Bits of an int/float or of a 1-D static vector of them; 0 otherwise.
int64_t elementBits(Type type) {
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth();
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || vector.getRank() != 1 || vector.isScalable() ||
      !vector.getElementType().isIntOrFloat())
    return 0;
  return vector.getNumElements() *
         vector.getElementType().getIntOrFloatBitWidth();
}

bool isUntypedGlobalPtr(Type type) {
  auto ptr = dyn_cast<LLVM::LLVMPointerType>(type);
  return ptr && ptr.getAddressSpace() == 1;
}
} // namespace

LogicalResult
GlobalType::verify(function_ref<InFlightDiagnostic()> emitError,
                   Type elementType) {
  int64_t bits = elementBits(elementType);
  if (bits == 0 || bits % 8 != 0)
    return emitError() << "!warpspec.global needs an integer or float element "
                          "type of whole bytes, or a 1-D vector of them; got "
                       << elementType;
  return success();
}

int64_t GlobalType::getElementBytes() const {
  return elementBits(getElementType()) / 8;
}

//===----------------------------------------------------------------------===//
// custom<GlobalPtrTypes>
//===----------------------------------------------------------------------===//

ParseResult warpspec::parseGlobalPtrTypes(OpAsmParser &parser, Type &first) {
  if (succeeded(parser.parseOptionalColon()))
    return parser.parseType(first);
  first = LLVM::LLVMPointerType::get(parser.getContext(), 1);
  return success();
}

ParseResult warpspec::parseGlobalPtrTypes(OpAsmParser &parser, Type &first,
                                          Type &second) {
  if (succeeded(parser.parseOptionalColon()))
    return failure(parser.parseType(first) || parser.parseComma() ||
                   parser.parseType(second));
  first = second = LLVM::LLVMPointerType::get(parser.getContext(), 1);
  return success();
}

void warpspec::printGlobalPtrTypes(OpAsmPrinter &printer, Operation *,
                                   Type first) {
  if (!isUntypedGlobalPtr(first))
    printer << " : " << first;
}

void warpspec::printGlobalPtrTypes(OpAsmPrinter &printer, Operation *,
                                   Type first, Type second) {
  if (!isUntypedGlobalPtr(first) || !isUntypedGlobalPtr(second))
    printer << " : " << first << ", " << second;
}

//===----------------------------------------------------------------------===//
// Loads, stores, casts, atomics
//===----------------------------------------------------------------------===//

static LogicalResult verifyAlignment(Operation *op,
                                     std::optional<int64_t> alignment) {
  if (alignment && (*alignment <= 0 || !llvm::isPowerOf2_64(*alignment)))
    return op->emitOpError("expects align to be a power of two (bytes), got ")
           << *alignment;
  return success();
}

LogicalResult GlobalLoadOp::verify() {
  return verifyAlignment(*this, getAlignment());
}

LogicalResult GlobalStoreOp::verify() {
  return verifyAlignment(*this, getAlignment());
}

LogicalResult GlobalPrefetchOp::verify() {
  // cp.async.bulk.prefetch moves whole 16-byte units.
  APInt bytes;
  if (matchPattern(getBytes(), m_ConstantInt(&bytes)) &&
      (bytes.getSExtValue() <= 0 || bytes.getSExtValue() % 16 != 0))
    return emitOpError("prefetches ")
           << bytes.getSExtValue()
           << " bytes; the bulk prefetch needs a positive multiple of 16";
  return success();
}

LogicalResult GlobalCastOp::verify() {
  if (isUntypedGlobalPtr(getSource().getType()) &&
      isUntypedGlobalPtr(getResult().getType()))
    return emitOpError("casts !llvm.ptr<1> to itself; one side must be a "
                       "!warpspec.global<T>");
  return success();
}

OpFoldResult GlobalCastOp::fold(FoldAdaptor) {
  if (getSource().getType() == getResult().getType())
    return getSource();
  // cast(cast(x)) is one cast, or x itself.
  if (auto inner = getSource().getDefiningOp<GlobalCastOp>()) {
    if (inner.getSource().getType() == getResult().getType())
      return inner.getSource();
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  return {};
}

LogicalResult GlobalAtomicOp::verify() {
  Type type = getValue().getType();
  if (getKind() == AtomicKind::fadd) {
    if (!type.isF32())
      return emitOpError("fadd needs an f32 element, got ") << type;
    return success();
  }
  if (!type.isInteger(32) && !type.isInteger(64))
    return emitOpError("")
           << stringifyAtomicKind(getKind())
           << " needs an i32 or i64 element, got " << type;
  return success();
}
