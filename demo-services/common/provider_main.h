#pragma once

#include <span>
#include <string_view>

#include "ferry/framework/service.h"

namespace ferry::demo {

// The whole life of a demo provider process named `name` (also its executable's name):
// parses `--config <yaml> [--port N]`, loads the config, applies log.level, serves `services`,
// prints exactly one line "<name> listening on <host>:<port>" to stdout once listening (scripts
// wait for it), and on SIGINT or SIGTERM stops gracefully.
// Returns the exit code: 0 after a graceful stop, 2 on a bad command line or config, 1 when the
// server cannot start. Call it from main() before starting any thread.
int RunProvider(std::string_view name, int argc, char** argv, std::span<Service* const> services);

}  // namespace ferry::demo
