#include "zookeeper_url.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace ferry::idgen {
namespace {

constexpr std::string_view kScheme = "zookeeper://";

Status Malformed(std::string_view url, std::string_view why) {
  return Status(StatusCode::INVALID_ARGUMENT,
                "idgen ZooKeeper url '" + std::string(url) + "': " + std::string(why));
}

bool IsValidPort(std::string_view text) {
  uint32_t port = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, port);
  return ec == std::errc() && ptr == end && port >= 1 && port <= 65535;
}

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

}  // namespace

Status ParseZooKeeperUrl(std::string_view url, std::string* hosts) {
  if (!url.starts_with(kScheme)) {
    return Malformed(url, "expected zookeeper://host:port[,host:port...]");
  }
  std::string_view body = url.substr(kScheme.size());
  if (body.find_first_of("/?#") != std::string_view::npos) {
    return Malformed(url, "a path, query or fragment is not supported");
  }
  if (body.empty()) return Malformed(url, "no host:port given");
  for (std::string_view rest = body;;) {
    const size_t comma = rest.find(',');
    const std::string_view address = rest.substr(0, comma);
    if (!IsHostPort(address)) {
      return Malformed(url, "'" + std::string(address) + "' is not host:port");
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
    if (rest.empty()) return Malformed(url, "trailing ','");
  }
  *hosts = std::string(body);
  return Status::Ok();
}

Status CheckNamespace(std::string_view name) {
  const auto bad = [&](std::string_view why) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "idgen namespace '" + std::string(name) + "' " + std::string(why));
  };
  if (name.empty()) return bad("is empty");
  if (name == "." || name == "..") return bad("is not a usable znode name");
  const bool bad_char = std::any_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return c == '/' || u <= 0x20 || u == 0x7f;
  });
  if (bad_char) return bad("contains '/', whitespace or a control character");
  return Status::Ok();
}

}  // namespace ferry::idgen
