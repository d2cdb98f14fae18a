//===- WarpSpecTypes.cpp - warpspec types: parsing, printing, verifying
//----===//
#include "megamoe/Dialect/WarpSpec/IR/WarpSpec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::warpspec;

#define GET_TYPEDEF_CLASSES
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsTypes.cpp.inc"

void WarpSpecDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "megamoe/Dialect/WarpSpec/IR/WarpSpecOpsTypes.cpp.inc"
      >();
}

namespace {
/// Bits of an integer or float element type (0 for anything else).
unsigned elementBits(Type type) {
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth();
  return 0;
}

int64_t tileBytes(ArrayRef<int64_t> shape, Type elementType) {
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  return elements * elementBits(elementType) / 8;
}

bool isValidSwizzle(unsigned swizzle) {
  return swizzle == 0 || swizzle == 32 || swizzle == 64 || swizzle == 128;
}

/// Parses `DxDx...xT` (a static shape and an element type).
ParseResult parseShapedElement(AsmParser &parser,
                               SmallVectorImpl<int64_t> &shape,
                               Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

void printShapedElement(AsmPrinter &printer, ArrayRef<int64_t> shape,
                        Type elementType) {
  for (int64_t d : shape)
    printer << d << "x";
  printer << elementType;
}
} // namespace

//===----------------------------------------------------------------------===//
// TmaDescType
//===----------------------------------------------------------------------===//

Type TmaDescType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> box;
  Type elementType;
  unsigned swizzle = 0;
  if (parser.parseLess() || parseShapedElement(parser, box, elementType) ||
      parser.parseComma() || parser.parseKeyword("swizzle") ||
      parser.parseEqual() || parser.parseInteger(swizzle) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<TmaDescType>(loc, parser.getContext(), box,
                                        elementType, swizzle);
}

void TmaDescType::print(AsmPrinter &printer) const {
  printer << "<";
  printShapedElement(printer, getBox(), getElementType());
  printer << ", swizzle = " << getSwizzle() << ">";
}

LogicalResult TmaDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> box, Type elementType,
                                  unsigned swizzle) {
  if (box.empty() || box.size() > 5)
    return emitError() << "TMA box must have 1 to 5 dimensions, got "
                       << box.size();
  for (int64_t d : box)
    if (d < 1 || d > 256)
      return emitError() << "TMA box dimensions must be in [1, 256], got " << d;
  unsigned bits = elementBits(elementType);
  if (bits == 0 || bits % 8 != 0)
    return emitError() << "TMA element type must be a byte-sized integer or "
                          "float, got "
                       << elementType;
  if (!isValidSwizzle(swizzle))
    return emitError() << "TMA swizzle must be 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  int64_t innerBytes = box.back() * bits / 8;
  if (innerBytes % 16 != 0)
    return emitError() << "TMA box inner dimension must span a multiple of 16 "
                          "bytes, got "
                       << innerBytes << " B";
  if (swizzle != 0 && innerBytes > swizzle)
    return emitError() << "TMA box inner dimension spans " << innerBytes
                       << " B, more than the " << swizzle << " B swizzle span";
  return success();
}

int64_t TmaDescType::getBoxBytes() const {
  return tileBytes(getBox(), getElementType());
}

//===----------------------------------------------------------------------===//
// SmemType
//===----------------------------------------------------------------------===//

Type SmemType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  unsigned slots = 1, align = 16, swizzle = 0;
  if (parser.parseLess() || parseShapedElement(parser, shape, elementType))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    unsigned value = 0;
    if (parser.parseKeyword(&key) || parser.parseEqual() ||
        parser.parseInteger(value))
      return {};
    if (key == "slots")
      slots = value;
    else if (key == "align")
      align = value;
    else if (key == "swizzle")
      swizzle = value;
    else {
      parser.emitError(keyLoc) << "unknown smem parameter '" << key
                               << "' (expected slots, align or swizzle)";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<SmemType>(loc, parser.getContext(), shape,
                                     elementType, slots, align, swizzle);
}

void SmemType::print(AsmPrinter &printer) const {
  printer << "<";
  printShapedElement(printer, getShape(), getElementType());
  printer << ", slots = " << getSlots() << ", align = " << getAlign();
  if (getSwizzle() != 0)
    printer << ", swizzle = " << getSwizzle();
  printer << ">";
}

LogicalResult SmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               unsigned slots, unsigned align,
                               unsigned swizzle) {
  if (shape.empty())
    return emitError() << "smem tile needs at least one dimension";
  for (int64_t d : shape)
    if (d < 1)
      return emitError() << "smem tile dimensions must be positive, got " << d;
  unsigned bits = elementBits(elementType);
  if (bits == 0)
    return emitError() << "smem element type must be an integer or float, got "
                       << elementType;
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  if ((elements * bits) % 8 != 0)
    return emitError()
           << "smem tile of sub-byte elements must fill whole bytes";
  if (slots < 1)
    return emitError() << "smem buffer needs at least one slot";
  if (align < 16 || !llvm::isPowerOf2_32(align))
    return emitError() << "smem alignment must be a power of two >= 16, got "
                       << align;
  if (!isValidSwizzle(swizzle))
    return emitError() << "smem swizzle must be 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  if (swizzle != 0 && align < 8 * swizzle)
    return emitError() << "smem swizzle " << swizzle
                       << " needs align >= " << 8 * swizzle
                       << " (one 8-row swizzle atom), got " << align;
  return success();
}

int64_t SmemType::getSlotBytes() const {
  return tileBytes(getShape(), getElementType());
}

int64_t SmemType::getSlotStride() const {
  return llvm::alignTo(getSlotBytes(), getAlign());
}

int64_t SmemType::getTotalBytes() const { return getSlots() * getSlotStride(); }

//===----------------------------------------------------------------------===//
// PipelineType
//===----------------------------------------------------------------------===//

LogicalResult PipelineType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   unsigned stages) {
  if (stages < 1 || stages > 32)
    return emitError() << "pipeline needs 1 to 32 stages, got " << stages;
  return success();
}

//===----------------------------------------------------------------------===//
// AccType
//===----------------------------------------------------------------------===//

namespace {
/// Parses `<MxNxT>` into (m, n, T).
ParseResult parseMatrixType(AsmParser &parser, int64_t &m, int64_t &n,
                            Type &elementType) {
  SmallVector<int64_t> shape;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parseShapedElement(parser, shape, elementType) ||
      parser.parseGreater())
    return failure();
  if (shape.size() != 2)
    return parser.emitError(loc) << "expected a 2-d shape MxNxtype";
  m = shape[0];
  n = shape[1];
  return success();
}
} // namespace

Type AccType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t m, n;
  Type elementType;
  if (parseMatrixType(parser, m, n, elementType))
    return {};
  return parser.getChecked<AccType>(loc, parser.getContext(), m, n,
                                    elementType);
}

void AccType::print(AsmPrinter &printer) const {
  printer << "<" << getM() << "x" << getN() << "x" << getElementType() << ">";
}

LogicalResult AccType::verify(function_ref<InFlightDiagnostic()> emitError,
                              int64_t m, int64_t n, Type elementType) {
  if (m != 64)
    return emitError() << "accumulator of one warpgroup has m = 64 rows "
                          "(wgmma m64), got m = "
                       << m;
  if (n < 8 || n > 256 || n % 8 != 0)
    return emitError() << "accumulator n must be a multiple of 8 in [8, 256] "
                          "(wgmma n), got n = "
                       << n;
  if (!elementType.isF32())
    return emitError() << "accumulator element type must be f32, got "
                       << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// AccRowsType
//===----------------------------------------------------------------------===//

Type AccRowsType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() || parseShapedElement(parser, shape, elementType) ||
      parser.parseGreater())
    return {};
  if (shape.size() != 1) {
    parser.emitError(loc) << "expected a 1-d shape Mxtype (one value per row)";
    return {};
  }
  return parser.getChecked<AccRowsType>(loc, parser.getContext(), shape[0],
                                        elementType);
}

void AccRowsType::print(AsmPrinter &printer) const {
  printer << "<" << getM() << "x" << getElementType() << ">";
}

LogicalResult
AccRowsType::verify(function_ref<InFlightDiagnostic()> emitError, int64_t m,
                    Type elementType) {
  // The rows of the accumulators they go with (AccType: m = 64).
  if (m != 64)
    return emitError() << "per-row values of a warpgroup accumulator have "
                          "m = 64 rows, got m = "
                       << m;
  if (!elementType.isF32())
    return emitError() << "per-row values are f32, got " << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// TmemType
//===----------------------------------------------------------------------===//

Type TmemType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t lanes, columns;
  Type elementType;
  if (parseMatrixType(parser, lanes, columns, elementType))
    return {};
  return parser.getChecked<TmemType>(loc, parser.getContext(), lanes, columns,
                                     elementType);
}

void TmemType::print(AsmPrinter &printer) const {
  printer << "<" << getLanes() << "x" << getColumns() << "x" << getElementType()
          << ">";
}

LogicalResult TmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t lanes, int64_t columns,
                               Type elementType) {
  if (lanes != 64 && lanes != 128)
    return emitError() << "TMEM allocation spans 64 or 128 lanes, got "
                       << lanes;
  if (columns < 32 || columns > 512 || !llvm::isPowerOf2_64(columns))
    return emitError() << "TMEM columns must be a power of two in [32, 512], "
                          "got "
                       << columns;
  if (!elementType.isF32() && !elementType.isInteger(32))
    return emitError() << "TMEM element type must be f32 (accumulators) or "
                          "i32 (scale factors), got "
                       << elementType;
  return success();
}
