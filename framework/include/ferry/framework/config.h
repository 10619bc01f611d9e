#pragma once

#include <string>

#include "ferry/codec/status.h"
#include "ferry/framework/client_options.h"
#include "ferry/framework/server_options.h"

namespace ferry {

struct LogOptions {
  std::string level = "info";  // log.level: trace | debug | info | warn | error | off
};

// A whole YAML file: any of the top-level sections `log`, `server`, `client`, and
// `service` (free-form, for the provider's own settings, not validated here).
struct Config {
  LogOptions log;
  ServerOptions server;
  ClientOptions client;
  std::string service_yaml;  // the `service:` section re-emitted as YAML, empty if absent
};

// Unknown keys, wrong types and out-of-range values fail with INVALID_ARGUMENT naming the key
// by its full path, e.g. "config.yaml: server.business_pool.threads: expected an integer >= 1".
Status LoadConfigFile(const std::string& path, Config* out);
Status ParseConfig(const std::string& yaml_text, const std::string& source_name, Config* out);

}  // namespace ferry
