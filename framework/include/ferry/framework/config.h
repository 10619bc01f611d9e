#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/client_options.h"
#include "ferry/framework/cluster_options.h"
#include "ferry/framework/registry.h"
#include "ferry/framework/server_options.h"

namespace ferry {

struct LogOptions {
  std::string level = "info";  // log.level: trace | debug | info | warn | error | off
};

// YAML `provider:`: how a provider publishes itself in the registry.
struct ProviderOptions {
  uint32_t weight = 100;  // weight
  std::string version;    // version
  std::string group;      // group
  std::string zone;       // zone
  // advertise: "host:port" clients should dial. Empty: the listen address, with the bound port
  // and, for a wildcard listen host, 127.0.0.1.
  std::string advertise;
};

// A whole YAML file: any of the top-level sections `log`, `plugins`, `registry`, `provider`,
// `server`, `client`, and `service` (free-form, for the provider's own settings, not validated
// here). See docs/configuration.md.
struct Config {
  LogOptions log;
  // Shared objects loaded while the file is read, before any other section, so that the names
  // they register (balancers, filters, ...) are valid in the rest of the file.
  std::vector<std::string> plugins;
  RegistryOptions registry;  // registry.url empty: no registry
  ProviderOptions provider;
  ServerOptions server;
  ClientOptions client;
  // From `client:` too (service, loadbalance, fault_tolerance, methods, outlier);
  // cluster.client is the same as `client`.
  ClusterOptions cluster;
  std::string service_yaml;  // the `service:` section re-emitted as YAML, empty if absent
};

// Unknown keys, wrong types and out-of-range values fail with INVALID_ARGUMENT naming the key
// by its full path, e.g. "config.yaml: server.business_pool.threads: expected an integer >= 1".
Status LoadConfigFile(const std::string& path, Config* out);
Status ParseConfig(const std::string& yaml_text, const std::string& source_name, Config* out);

}  // namespace ferry
