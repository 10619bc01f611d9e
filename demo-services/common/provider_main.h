#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ferry/framework/config.h"
#include "ferry/framework/service.h"

namespace ferry::demo {

// A provider whose services need the loaded config: storage connections, background jobs.
class ProviderApp {
 public:
  virtual ~ProviderApp() = default;
  virtual std::span<Service* const> services() = 0;
  // Called once the server has stopped and drained, before the process exits.
  virtual void Stop() {}
};

struct ProviderSetup {
  const Config& config;  // with --port and --registry applied
  const std::string& config_path;
};

// Builds the provider's app; a non-OK status is printed and the process exits with 2 for
// INVALID_ARGUMENT (bad config) and 1 otherwise (e.g. a database that cannot be reached).
using ProviderAppFactory =
    std::function<Status(const ProviderSetup& setup, std::unique_ptr<ProviderApp>* app)>;

// The whole life of a demo provider process named `name` (also its executable's name):
// parses `--config <yaml> [--port N]`, loads the config, applies log.level, serves `services`,
// prints exactly one line "<name> listening on <host>:<port>" to stdout once listening (scripts
// wait for it), and on SIGINT or SIGTERM stops gracefully.
// Returns the exit code: 0 after a graceful stop, 2 on a bad command line or config, 1 when the
// server cannot start. Call it from main() before starting any thread.
int RunProvider(std::string_view name, int argc, char** argv, std::span<Service* const> services);
// The same, with services built by `factory` after the config is loaded.
int RunProvider(std::string_view name, int argc, char** argv, const ProviderAppFactory& factory);

}  // namespace ferry::demo
