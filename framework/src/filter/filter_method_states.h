#pragma once

#include <memory>
#include <vector>

namespace ferry::filter {

// What each filter of a chain keeps for one method (Filter::NewMethodState), by filter index.
using FilterMethodStates = std::vector<std::shared_ptr<void>>;

}  // namespace ferry::filter
