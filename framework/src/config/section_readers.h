#pragma once

#include <string_view>
#include <vector>

#include "ferry/framework/config.h"
#include "ferry/framework/config_reader.h"

// Readers of the config sections that name extensions (plugins, registries, balancers, filters).
// Each checks names against the ExtensionRegistry, so plugins must be loaded first.
namespace ferry::config {

void ReadPlugins(ConfigReader& top, std::vector<std::string>* out);
void ReadRegistry(ConfigReader section, RegistryOptions* out);
// Reports `key` unless `url` names a registered registry scheme.
void CheckRegistryUrl(ConfigReader& section, std::string_view key, const std::string& url);
void ReadProvider(ConfigReader section, ProviderOptions* out);
// `kind` is "client" or "server".
void ReadFilters(ConfigReader& parent, std::string_view kind, std::vector<FilterSpec>* out);
// The cluster keys of a `clients:` entry.
void ReadClusterKeys(ConfigReader& client, ClusterOptions* out);

}  // namespace ferry::config
