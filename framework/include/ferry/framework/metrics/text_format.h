#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ferry/framework/metrics/registry.h"
#include "ferry/framework/metrics/snapshot.h"

namespace ferry::metrics {

// The Content-Type of what RenderText returns: Prometheus' text exposition format 0.0.4.
inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// `# HELP` and `# TYPE` lines and the sample lines of every family, in the order given; help
// escapes `\` and line feeds, label values `\`, `"` and line feeds. Histograms give cumulative
// `_bucket` lines (`le` last among the labels, ending with "+Inf"), then `_sum` and `_count`.
// Values print in the shortest form that reads back exactly, without an exponent from 1e-4 to
// 1e16 (so counts print as integers and bounds as "0.0001"); NaN, +Inf and -Inf by name.
std::string RenderText(const std::vector<FamilySnapshot>& families);
// RenderText(registry.Collect()).
std::string RenderText(const MetricsRegistry& registry);

}  // namespace ferry::metrics
