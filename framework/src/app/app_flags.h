#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "ferry/codec/status.h"

namespace ferry::app {

// The command line of every App: --config <yaml> [--port N] [--registry URL] [--dev];
// `--flag=value` works too.
struct AppFlags {
  std::string config_path;
  std::optional<uint16_t> port;  // replaces the port of server.listen
  std::string registry_url;      // replaces registry.url, e.g. zookeeper://127.0.0.1:2181
  bool dev = false;              // as allow_sample_secrets: true (demos on a developer's machine)
};

// `args` excludes the program name. INVALID_ARGUMENT naming the offending argument.
Status ParseAppFlags(std::span<const char* const> args, AppFlags* out);

// Replaces the port of a "host:port" (or "[v6]:port") listen address.
Status OverrideListenPort(uint16_t port, std::string* listen);

}  // namespace ferry::app
