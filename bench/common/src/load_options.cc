#include "ferry/bench/load_options.h"

#include <charconv>
#include <limits>
#include <string>

namespace ferry::bench {

void AddLoadFlags(FlagParser& flags, LoadOptions* o, TargetFlag target) {
  const bool required = target == TargetFlag::kRequired;
  flags.AddString("--target", "HOST:PORT", &o->target,
                  required ? "server to load (required)" : "server to load");
  flags.AddInteger<uint32_t>("--conns", "C", &o->conns, 1, 100'000, "connections (default 1)");
  flags.AddInteger<uint32_t>("--depth", "D", &o->depth, 1, 100'000,
                             "calls outstanding per connection (default 1)");
  flags.AddInteger<uint32_t>("--size", "BYTES", &o->size, 0, kMaxPayloadBytes,
                             "request payload bytes (default 16)");
  flags.AddDouble("--duration", "SECONDS", &o->duration_seconds, 0.001, 86'400,
                  "measured seconds after warmup (default 10)");
  flags.AddDouble("--warmup", "SECONDS", &o->warmup_seconds, 0, 3'600,
                  "seconds of load before measuring (default 0)");
  flags.AddInteger<uint32_t>("--threads", "T", &o->threads, 1, 1'024,
                             "client IO threads (default 1)");
  flags.AddDouble("--slow-ratio", "R", &o->slow_ratio, 0, 1,
                  "fraction of calls made slow on the server (default 0)");
  flags.AddInteger<uint32_t>("--slow-ms", "MS", &o->slow_ms, 1, 60'000,
                             "server-side delay of a slow call (default 5)");
  flags.AddCheck([o, required](std::string* error) {
    if (o->target.empty() && required) {
      *error = "--target: required (host:port)";
      return false;
    }
    return CheckLoadShape(*o, error);
  });
}

bool CheckLoadShape(const LoadOptions& o, std::string* error) {
  if (uint64_t{o.conns} * o.depth > kMaxCallsInFlight) {
    *error = "--conns x --depth: at most " + std::to_string(kMaxCallsInFlight) +
             " calls in flight, got " + std::to_string(uint64_t{o.conns} * o.depth);
    return false;
  }
  HostPort ignored;
  std::string why;
  if (!o.target.empty() && !ParseHostPort(o.target, &ignored, &why)) {
    *error = "--target: " + why;
    return false;
  }
  return true;
}

bool ParseHostPort(std::string_view text, HostPort* out, std::string* error) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    *error = "expected host:port, got '" + std::string(text) + "'";
    return false;
  }
  std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    *error = "IPv6 addresses need brackets, e.g. [::1]:7001, got '" + std::string(text) + "'";
    return false;
  }
  if (host.empty()) {
    *error = "empty host in '" + std::string(text) + "'";
    return false;
  }
  uint32_t number = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (ec != std::errc() || end != port.data() + port.size() || number == 0 ||
      number > std::numeric_limits<uint16_t>::max()) {
    *error = "port must be a number from 1 to 65535 in '" + std::string(text) + "'";
    return false;
  }
  out->host = std::string(host);
  out->port = static_cast<uint16_t>(number);
  return true;
}

}  // namespace ferry::bench
