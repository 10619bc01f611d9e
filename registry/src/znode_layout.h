#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ferry::registry {

// Where providers live in ZooKeeper (docs/registry.md):
//   /ferry/<namespace>/<service>/providers/<host:port>   ephemeral, data = provider record
// Namespace and service are single path segments (CheckPathSegment), so paths parse back.
inline std::string ProvidersPath(std::string_view namespace_name, std::string_view service) {
  return "/ferry/" + std::string(namespace_name) + "/" + std::string(service) + "/providers";
}

inline std::string ProviderPath(std::string_view namespace_name, std::string_view service,
                                std::string_view address) {
  return ProvidersPath(namespace_name, service) + "/" + std::string(address);
}

// The service whose providers directory `path` is, if it is one in `namespace_name`.
inline std::optional<std::string> ServiceOfProvidersPath(std::string_view namespace_name,
                                                         std::string_view path) {
  const std::string prefix = "/ferry/" + std::string(namespace_name) + "/";
  constexpr std::string_view kSuffix = "/providers";
  if (!path.starts_with(prefix) || !path.ends_with(kSuffix)) return std::nullopt;
  path = path.substr(prefix.size(), path.size() - prefix.size() - kSuffix.size());
  if (path.empty() || path.find('/') != std::string_view::npos) return std::nullopt;
  return std::string(path);
}

}  // namespace ferry::registry
