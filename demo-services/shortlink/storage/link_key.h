#pragma once

#include <string>
#include <string_view>

namespace ferry::shortlink {

// A link's key, under which the store, the caches, the Bloom filter, the change log and the
// statistics know it: its code on the service's own domain, "<domain>/<code>" on a custom one.
// Neither a code nor a host name holds '/', so keys of different domains never meet, and keys
// of the own domain are the codes they were before custom domains existed.
inline std::string LinkKey(std::string_view domain, std::string_view code) {
  if (domain.empty()) return std::string(code);
  std::string key;
  key.reserve(domain.size() + 1 + code.size());
  key.append(domain).append(1, '/').append(code);
  return key;
}

inline std::string_view CodeOfKey(std::string_view key) {
  const size_t slash = key.rfind('/');
  return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

inline std::string_view DomainOfKey(std::string_view key) {
  const size_t slash = key.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : key.substr(0, slash);
}

}  // namespace ferry::shortlink
