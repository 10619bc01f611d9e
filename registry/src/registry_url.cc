#include "ferry/registry/registry_url.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace ferry::registry {
namespace {

Status Malformed(std::string_view url, std::string_view why) {
  return Status(StatusCode::INVALID_ARGUMENT,
                "registry url '" + std::string(url) + "': " + std::string(why));
}

bool IsValidPort(std::string_view text) {
  uint32_t port = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, port);
  return ec == std::errc() && ptr == end && port >= 1 && port <= 65535;
}

}  // namespace

bool IsHostPort(std::string_view address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view host = address.substr(0, colon);
  const bool bad_char = std::any_of(host.begin(), host.end(), [](char c) {
    return c == '/' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
  });
  if (bad_char) return false;
  // An IPv6 host must be bracketed, or its own colons would be taken for the port separator.
  const bool bracketed = host.front() == '[' && host.back() == ']' && host.size() > 2;
  if (host.find(':') != std::string_view::npos && !bracketed) return false;
  return IsValidPort(address.substr(colon + 1));
}

Status ParseRegistryUrl(std::string_view url, std::string_view scheme, bool allow_empty,
                        std::vector<std::string>* addresses) {
  const size_t separator = url.find("://");
  if (separator == std::string_view::npos || url.substr(0, separator) != scheme) {
    return Malformed(url, "expected " + std::string(scheme) + "://host:port[,host:port...]");
  }
  std::string_view body = url.substr(separator + 3);
  if (body.find_first_of("/?#") != std::string_view::npos) {
    return Malformed(url, "a path, query or fragment is not supported");
  }
  std::vector<std::string> parsed;
  while (!body.empty()) {
    const size_t comma = body.find(',');
    const std::string_view address = body.substr(0, comma);
    if (!IsHostPort(address)) {
      return Malformed(url, "'" + std::string(address) + "' is not host:port");
    }
    parsed.emplace_back(address);
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
    if (body.empty()) return Malformed(url, "trailing ','");
  }
  if (parsed.empty() && !allow_empty) return Malformed(url, "no host:port given");
  *addresses = std::move(parsed);
  return Status::Ok();
}

Status ParseZooKeeperUrl(std::string_view url, std::string* connect_string) {
  std::vector<std::string> addresses;
  Status status = ParseRegistryUrl(url, "zookeeper", /*allow_empty=*/false, &addresses);
  if (!status.ok()) return status;
  connect_string->clear();
  for (const std::string& address : addresses) {
    if (!connect_string->empty()) connect_string->push_back(',');
    connect_string->append(address);
  }
  return Status::Ok();
}

}  // namespace ferry::registry
