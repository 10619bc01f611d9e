#include "call_recorder.h"

#include <algorithm>

namespace ferry::bench {

std::vector<std::pair<std::string, uint64_t>> ErrorsByStatus(
    const std::array<uint64_t, kStatusCodes>& errors, uint64_t* total) {
  std::vector<std::pair<std::string, uint64_t>> by_status;
  *total = 0;
  for (size_t i = 0; i < errors.size(); ++i) {
    if (errors[i] == 0) continue;
    *total += errors[i];
    by_status.emplace_back(
        i == 0 ? "BAD_ANSWER" : std::string(StatusCodeName(static_cast<StatusCode>(i))), errors[i]);
  }
  std::stable_sort(by_status.begin(), by_status.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return by_status;
}

}  // namespace ferry::bench
