#include "app/app_flags.h"

#include <charconv>
#include <string_view>

namespace ferry::app {

namespace {

Status Invalid(std::string message) {
  return Status(StatusCode::INVALID_ARGUMENT, std::move(message));
}

Status ParsePort(std::string_view text, uint16_t* out) {
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, *out);
  if (text.empty() || error != std::errc() || ptr != end) {
    return Invalid("--port: expected an integer in [0, 65535], got \"" + std::string(text) + "\"");
  }
  return Status::Ok();
}

}  // namespace

Status ParseAppFlags(std::span<const char* const> args, AppFlags* out) {
  AppFlags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::string_view name = arg.substr(0, arg.find('='));
    std::string_view value;
    if (name.size() < arg.size()) {
      value = arg.substr(name.size() + 1);
    } else if (name == "--config" || name == "--port" || name == "--registry") {
      if (i + 1 == args.size()) return Invalid(std::string(name) + ": missing value");
      value = args[++i];
    }
    if (name == "--config") {
      if (value.empty()) return Invalid("--config: empty path");
      flags.config_path = value;
    } else if (name == "--port") {
      uint16_t port = 0;
      if (Status status = ParsePort(value, &port); !status.ok()) return status;
      flags.port = port;
    } else if (name == "--registry") {
      if (value.find("://") == std::string_view::npos) {
        return Invalid(
            "--registry: expected <scheme>://..., e.g. zookeeper://127.0.0.1:2181, got \"" +
            std::string(value) + "\"");
      }
      flags.registry_url = value;
    } else if (name == "--dev" && name.size() == arg.size()) {
      flags.dev = true;
    } else {
      return Invalid("unknown argument \"" + std::string(arg) + "\"");
    }
  }
  if (flags.config_path.empty()) return Invalid("--config <file.yaml> is required");
  *out = std::move(flags);
  return Status::Ok();
}

Status OverrideListenPort(uint16_t port, std::string* listen) {
  const size_t colon = listen->rfind(':');
  if (colon == std::string::npos) {
    return Invalid("server.listen \"" + *listen + "\" has no port to override");
  }
  listen->replace(colon + 1, std::string::npos, std::to_string(port));
  return Status::Ok();
}

}  // namespace ferry::app
