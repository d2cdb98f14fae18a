//===- EmbedHeader.h - a C header embedding a cubin and manifest -*- C++
//-*-===//
//
// Plain C++ (no MLIR). The header lets an application link a kernel without
// files at run time: megamoe_<name>_cubin[] / _cubin_size and
// megamoe_<name>_manifest[] (the JSON text, NUL-terminated).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAMOE_CONVERSION_EMBEDHEADER_H
#define MEGAMOE_CONVERSION_EMBEDHEADER_H

#include <string>

namespace megamoe {

/// `name` with every character that cannot appear in a C identifier
/// replaced by '_' (and a leading '_' if it starts with a digit).
std::string cIdentifier(const std::string &name);

/// The text of the header for kernel object `name`.
std::string makeEmbedHeader(const std::string &name, const std::string &cubin,
                            const std::string &manifestJson);

} // namespace megamoe

#endif // MEGAMOE_CONVERSION_EMBEDHEADER_H
