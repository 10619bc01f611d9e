#include "transport/endpoint.h"

#include <charconv>

namespace ferry::transport {

Status ParseEndpoint(std::string_view text, Endpoint* out) {
  auto invalid = [&](std::string_view why) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "invalid endpoint '" + std::string(text) + "': " + std::string(why));
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return invalid("expected host:port");
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return invalid("IPv6 addresses need brackets, e.g. [::1]:7001");
  }
  if (host.empty()) return invalid("empty host");
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    return invalid("port must be a number from 0 to 65535");
  }
  out->host = std::string(host);
  out->port = static_cast<uint16_t>(port);
  return Status::Ok();
}

}  // namespace ferry::transport
