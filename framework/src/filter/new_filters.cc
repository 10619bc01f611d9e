#include "filter/new_filters.h"

#include <string>
#include <string_view>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/config_reader.h"

namespace ferry {

FilterSpec FilterSpec::FromYaml(std::string name, std::string_view yaml) {
  FilterSpec spec{.name = name, .source = "<code>", .path = name};
  try {
    spec.config = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception&) {
    // Configure() then reports that the spec is no mapping.
  }
  return spec;
}

namespace filter {
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
                    spec.source + ": " + spec.path + ": unknown " + std::string(side) +
                        " filter '" + spec.name +
                        "' (known: " + (known.empty() ? "none registered" : known) + ")");
    }
    config::ConfigErrors errors(spec.source);
    errors.set_sample_secrets_allowed(spec.allow_sample_secrets);
    if (!spec.config.IsMap()) {
      errors.Add(spec.path, "expected a mapping of the filter's settings", spec.config.Mark());
      return errors.first();
    }
    config::ConfigReader reader(spec.config, spec.path, &errors);
    std::string name;
    reader.String("name", &name);
    filter->Configure(reader);
    reader.RejectUnknownKeys();
    if (!errors.first().ok()) return errors.first();
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

}  // namespace filter
}  // namespace ferry
