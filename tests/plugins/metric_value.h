#pragma once

#include <sstream>
#include <string>

#include "ferry/framework/metrics.h"

namespace ferry::plugins_test {

// The value of one series of the process's metrics as /metrics renders it, e.g.
// MetricValue("ferry_x_total{reason=\"y\"}"); 0 when it is not there.
inline double MetricValue(const std::string& series) {
  std::istringstream text(metrics::RenderText(metrics::Metrics()));
  for (std::string line; std::getline(text, line);) {
    if (line.starts_with(series + " ")) return std::stod(line.substr(series.size() + 1));
  }
  return 0;
}

}  // namespace ferry::plugins_test
