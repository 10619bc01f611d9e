#include "ferry/registry/registry_url.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <utility>

#include "ferry/framework/logging.h"

namespace ferry::registry {
namespace {

// Never the password: these messages end up in logs and on stderr.
Status Malformed(std::string_view url, std::string_view why) {
  return Status(StatusCode::INVALID_ARGUMENT,
                "registry url '" + RedactedUrl(url) + "': " + std::string(why));
}

bool HasSpaceOrControl(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](unsigned char c) { return c <= ' ' || c == 0x7f; });
}

// "user:password" as the digest scheme takes it.
Status ParseCredentials(std::string_view url, std::string_view user_info, std::string* digest) {
  const size_t colon = user_info.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == user_info.size() ||
      HasSpaceOrControl(user_info)) {
    return Malformed(url, "credentials must be user:password, both non-empty, without whitespace");
  }
  *digest = user_info;
  return Status::Ok();
}

// The "host:port,..." after "<scheme>://" (and any user information) of `url`.
Status ParseAddressList(std::string_view url, std::string_view body, bool allow_empty,
                        std::vector<std::string>* addresses) {
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

// The part of `url` after "<scheme>://".
Status BodyOf(std::string_view url, std::string_view scheme, std::string_view* body) {
  const size_t separator = url.find("://");
  if (separator == std::string_view::npos || url.substr(0, separator) != scheme) {
    return Malformed(url, "expected " + std::string(scheme) + "://host:port[,host:port...]");
  }
  *body = url.substr(separator + 3);
  return Status::Ok();
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
  std::string_view body;
  if (Status status = BodyOf(url, scheme, &body); !status.ok()) return status;
  if (body.find('@') != std::string_view::npos) {
    return Malformed(
        url, "credentials (user:password@) are not supported by " + std::string(scheme) + "://");
  }
  return ParseAddressList(url, body, allow_empty, addresses);
}

Status ParseZooKeeperUrl(std::string_view url, ZooKeeperUrl* out) {
  std::string_view body;
  if (Status status = BodyOf(url, "zookeeper", &body); !status.ok()) return status;
  ZooKeeperUrl parsed;
  // Hosts never hold '@'; a password may.
  if (const size_t at = body.rfind('@'); at != std::string_view::npos) {
    if (Status status = ParseCredentials(url, body.substr(0, at), &parsed.digest); !status.ok()) {
      return status;
    }
    body.remove_prefix(at + 1);
  }
  std::vector<std::string> addresses;
  if (Status status = ParseAddressList(url, body, /*allow_empty=*/false, &addresses);
      !status.ok()) {
    return status;
  }
  for (const std::string& address : addresses) {
    if (!parsed.connect_string.empty()) parsed.connect_string.push_back(',');
    parsed.connect_string.append(address);
  }
  *out = std::move(parsed);
  return Status::Ok();
}

}  // namespace ferry::registry
