//===- Print.h - readable text and JSON of a plan and its layout -*- C++
//-*-===//
#ifndef MEGAMOE_CONFIG_PRINT_H
#define MEGAMOE_CONFIG_PRINT_H

#include "megamoe/Config/BufferLayout.h"

#include <string>

namespace megamoe::config {

/// A few lines a person reads: the layer, the launch shape, each variant and
/// the symmetric-buffer size.
std::string planToText(const LayerConfig &config, const Plan &plan);

/// {"config": ..., "plan": ..., "buffer_layout": ...}; keys in a fixed order.
/// "buffer_layout" is the manifest's field of the same name (docs/Manifest.md).
std::string planToJson(const LayerConfig &config, const Plan &plan,
                       int indent = 2);

/// The "buffer_layout" object alone.
std::string layoutToJson(const BufferLayout &layout, int indent = 2);

/// Bytes as "1,234,567 B (1.18 MiB)".
std::string formatBytes(int64_t bytes);

} // namespace megamoe::config

#endif // MEGAMOE_CONFIG_PRINT_H
