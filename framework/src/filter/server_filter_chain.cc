#include "filter/server_filter_chain.h"

#include <algorithm>

#include "filter/new_filters.h"

namespace ferry::filter {

Status ServerFilterChain::Create(const std::vector<FilterSpec>& specs, ServerFilterChain* out) {
  if (Status status = NewServerFilters(specs, &out->filters_); !status.ok()) return status;
  out->observes_done_ = std::any_of(out->filters_.begin(), out->filters_.end(),
                                    [](const auto& filter) { return filter->ObservesDone(); });
  return Status::Ok();
}

}  // namespace ferry::filter
