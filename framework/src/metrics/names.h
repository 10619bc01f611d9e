#pragma once

#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/metrics/snapshot.h"

namespace ferry::metrics {

bool IsValidUtf8(std::string_view text);

// INVALID_ARGUMENT naming what breaks Prometheus' rules or conventions (MetricsRegistry lists
// them): the name, its suffix for the type, the help, the label names. Bucket bounds are checked
// where they are converted (bucket_bounds.h).
Status CheckFamilyInfo(const FamilySnapshot& info);

}  // namespace ferry::metrics
