#include "filter/new_filters.h"

#include <string>
#include <string_view>

#include "ferry/codec/extension_registry.h"

namespace ferry::filter {
namespace {

template <class Filter>
Status NewFilters(std::string_view side, const std::vector<FilterSpec>& specs,
                  std::vector<std::shared_ptr<Filter>>* out) {
  const ExtensionRegistry& registry = ExtensionRegistry::Instance();
  std::vector<std::shared_ptr<Filter>> filters;
  filters.reserve(specs.size());
  for (const FilterSpec& spec : specs) {
    std::shared_ptr<Filter> filter = registry.Create<Filter>(spec.name);
    if (filter == nullptr) {
      std::string known;
      for (const std::string& name : registry.Names<Filter>()) {
        known += (known.empty() ? "" : ", ") + name;
      }
      return Status(StatusCode::INVALID_ARGUMENT,
                    "unknown " + std::string(side) + " filter '" + spec.name +
                        "' (known: " + (known.empty() ? "none registered" : known) + ")");
    }
    if (Status configured = filter->Configure(spec.yaml); !configured.ok()) {
      return Status(configured.code(),
                    std::string(side) + " filter '" + spec.name + "': " + configured.message());
    }
    filters.push_back(std::move(filter));
  }
  *out = std::move(filters);
  return Status::Ok();
}

}  // namespace

Status NewClientFilters(const std::vector<FilterSpec>& specs,
                        std::vector<std::shared_ptr<ClientFilter>>* out) {
  return NewFilters("client", specs, out);
}

Status NewServerFilters(const std::vector<FilterSpec>& specs,
                        std::vector<std::shared_ptr<ServerFilter>>* out) {
  return NewFilters("server", specs, out);
}

}  // namespace ferry::filter
