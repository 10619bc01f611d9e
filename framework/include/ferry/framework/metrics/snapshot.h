#pragma once

#include <string>
#include <vector>

#include "ferry/framework/metrics/histogram.h"

namespace ferry::metrics {

enum class MetricType { kCounter, kGauge, kHistogram };

// One labelled series of a family, as read at one scrape.
struct Series {
  std::vector<std::string> label_values;  // in the order of the family's label_names
  double value = 0;                       // counters and gauges
  HistogramCounts histogram;              // histograms
};

// A family as read at one scrape: what a text (or any other) exposition is rendered from.
struct FamilySnapshot {
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<std::string> label_names;
  std::vector<double> bucket_bounds;  // histograms: upper bounds in seconds, +Inf implied
  std::vector<Series> series;         // ordered by label values
};

}  // namespace ferry::metrics
