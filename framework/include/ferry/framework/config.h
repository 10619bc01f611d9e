#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/client_options.h"
#include "ferry/framework/cluster_options.h"
#include "ferry/framework/config_reader.h"
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

// YAML `clients.<name>`: how this process calls one downstream service. Either directly,
// `cluster.client.target: host:port`, or through a registry, `cluster.service` with the file's
// `registry:` (or `registry:` here, a URL of its own).
struct ClientConfig {
  ClusterOptions cluster;
  std::string registry;  // registry URL for this client alone; empty: the file's registry.url
};

// A whole YAML file: any of the top-level sections `log`, `plugins`, `registry`, `provider`,
// `server`, `clients`, and `service` (free-form, for the provider's own settings, read with
// ReadServiceSection). See docs/configuration.md.
struct Config {
  std::string source;  // the file's name, as errors quote it
  LogOptions log;
  // Shared objects loaded while the file is read, before any other section, so that the names
  // they register (balancers, filters, ...) are valid in the rest of the file.
  std::vector<std::string> plugins;
  RegistryOptions registry;  // registry.url empty: no registry
  ProviderOptions provider;
  ServerOptions server;
  std::map<std::string, ClientConfig, std::less<>> clients;
  YAML::Node service;  // the `service:` section as read, line marks intact; null if absent
  // allow_sample_secrets: the shipped configs' sample secrets are accepted (demos, tests).
  bool allow_sample_secrets = false;
  // The whole file as read (a copy), with what flags override written in: the status page's.
  YAML::Node document;
};

// Sets config->allow_sample_secrets and the same flag of every server and client filter spec
// (the App's --dev).
void AllowSampleSecrets(Config* config);

// Reads `config.service` with `read`, which is handed a reader of the `service:` mapping; keys
// `read` does not ask for are rejected afterwards. Errors name "file:line: service.key" like
// every other section's.
Status ReadServiceSection(const Config& config,
                          const std::function<void(config::ConfigReader& service)>& read);

// Unknown keys, wrong types and out-of-range values fail with INVALID_ARGUMENT naming the key
// by its file, line and full path, e.g.
// "config.yaml:4: server.business_pool.threads: expected an integer >= 1, got 'x'".
Status LoadConfigFile(const std::string& path, Config* out);
Status ParseConfig(const std::string& yaml_text, const std::string& source_name, Config* out);

}  // namespace ferry
