#include "filter/server_filter_chain.h"

#include "filter/new_filters.h"

namespace ferry::filter {

Status ServerFilterChain::Create(const std::vector<FilterSpec>& specs, ServerFilterChain* out) {
  return NewServerFilters(specs, &out->filters_);
}

}  // namespace ferry::filter
