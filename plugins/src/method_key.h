#pragma once

#include <string_view>

namespace ferry::plugins {

// Whether `key` is "<service>/<method>": how the filters name a method in their configuration
// and caches, checked without building the key.
inline bool IsMethodKey(std::string_view key, std::string_view service, std::string_view method) {
  return key.size() == service.size() + 1 + method.size() && key.starts_with(service) &&
         key[service.size()] == '/' && key.ends_with(method);
}

}  // namespace ferry::plugins
