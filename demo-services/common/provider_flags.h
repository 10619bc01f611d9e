#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ferry/codec/status.h"

namespace ferry::demo {

// Command line shared by the demo providers: --config <yaml> [--port N]; `--flag=value` works too.
struct ProviderFlags {
  std::string config_path;
  std::optional<uint16_t> port;  // replaces the port of server.listen
};

// `args` excludes the program name. INVALID_ARGUMENT naming the offending argument.
Status ParseProviderFlags(std::span<const char* const> args, ProviderFlags* out);

// Replaces the port of a "host:port" (or "[v6]:port") listen address.
Status OverrideListenPort(uint16_t port, std::string* listen);

}  // namespace ferry::demo
