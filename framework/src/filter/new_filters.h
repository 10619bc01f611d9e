#pragma once

#include <memory>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/filter.h"

namespace ferry::filter {

// Creates and configures one filter per spec, in order, through the ExtensionRegistry.
// INVALID_ARGUMENT naming an unknown filter and listing the known ones, or the first mistake a
// filter's Configure() reported, as "file:line: key.path: message".
Status NewClientFilters(const std::vector<FilterSpec>& specs,
                        std::vector<std::shared_ptr<ClientFilter>>* out);
Status NewServerFilters(const std::vector<FilterSpec>& specs,
                        std::vector<std::shared_ptr<ServerFilter>>* out);

}  // namespace ferry::filter
