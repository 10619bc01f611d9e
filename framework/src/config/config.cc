#include "ferry/framework/config.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/section_readers.h"
#include "ferry/codec/compressor.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/codec/frame_header.h"
#include "ferry/codec/serializer.h"
#include "ferry/framework/config_reader.h"
#include "http/trusted_proxies.h"
#include "logger.h"
#include "transport/endpoint.h"
#include "transport/tls_context.h"

namespace ferry {
namespace {

using config::ConfigErrors;
using config::ConfigReader;

// Bounds that catch typos (an extra zero) without second-guessing real deployments.
constexpr int64_t kMaxThreads = 1024;
constexpr int64_t kMaxQueueCapacity = int64_t{1} << 24;
constexpr int64_t kMinFrameBytes = 4096;
constexpr int64_t kMaxFrameBytes = int64_t{1} << 31;
constexpr int64_t kMinCompressionLevel = 1;
constexpr int64_t kMaxCompressionLevel = 22;  // zstd's maximum
// A day: anything longer is a typo, and would overflow deadline arithmetic on the way.
constexpr int64_t kMaxMillis = 24 * 3600 * 1000;
constexpr int64_t kMaxConnections = 1 << 24;
constexpr int64_t kMaxBufferedBytes = int64_t{1} << 40;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

void ReadCompression(ConfigReader section, std::string* algorithm, size_t* threshold, int* level) {
  section.String("algorithm", algorithm);
  if (*algorithm != "none" && codec::FindCompressor(*algorithm) == nullptr) {
    section.Invalid("algorithm",
                    "unknown compression algorithm '" + *algorithm + "' (expected one of: none, " +
                        JoinNames(ExtensionRegistry::Instance().Names<codec::Compressor>()) + ")");
  }
  section.Integer("threshold_bytes", 0, ConfigReader::kNoMax, threshold);
  section.Integer("level", kMinCompressionLevel, kMaxCompressionLevel, level);
  section.RejectUnknownKeys();
}

void ReadLog(ConfigReader section, LogOptions* out) {
  section.String("level", &out->level);
  if (!ParseLogLevel(out->level)) {
    section.Invalid("level", "unknown log level '" + out->level +
                                 "' (expected one of: " + std::string(kLogLevelNames) + ")");
  }
  section.RejectUnknownKeys();
}

void ReadHttp(ConfigReader section, HttpOptions* out) {
  section.Bool("enabled", &out->enabled);
  section.Integer("max_header_bytes", 1024, 1 << 20, &out->max_header_bytes);
  section.Integer("max_body_bytes", 0, kMaxFrameBytes, &out->max_body_bytes);
  section.Millis("request_timeout_ms", 0, kMaxMillis, &out->request_timeout);
  section.String("admin_listen", &out->admin_listen);
  if (!out->admin_listen.empty()) {
    transport::Endpoint endpoint;
    if (Status parsed = transport::ParseEndpoint(out->admin_listen, &endpoint); !parsed.ok()) {
      section.Invalid("admin_listen", parsed.message());
    }
  }
  // A list of networks, each checked here so that a typo names its line.
  const auto networks = [&section](std::string_view key, std::vector<std::string>* list) {
    section.StringList(key, list);
    if (!section.Raw(key).IsSequence()) return;
    http::TrustedProxies parsed;
    for (size_t i = 0; i < list->size(); ++i) {
      if (Status added = parsed.Add((*list)[i]); !added.ok()) {
        section.errors()->Add(section.PathOf(key) + "[" + std::to_string(i) + "]", added.message(),
                              section.Raw(key)[i].Mark());
      }
    }
  };
  networks("trusted_proxies", &out->trusted_proxies);
  networks("admin_networks", &out->admin_networks);
  section.StringList("admin_hosts", &out->admin_hosts);
  for (size_t i = 0; i < out->admin_hosts.size(); ++i) {
    const std::string& host = out->admin_hosts[i];
    if (host.empty() || host.find_first_of(" \t:/[]") != std::string::npos) {
      section.errors()->Add(section.PathOf("admin_hosts") + "[" + std::to_string(i) + "]",
                            "'" + host + "' is not a host name (a name alone: no port, no scheme)",
                            section.Raw("admin_hosts")[i].Mark());
    }
  }
  section.RejectUnknownKeys();
}

void ReadLimits(ConfigReader section, ConnectionLimits* out) {
  section.Millis("frame_timeout_ms", 0, kMaxMillis, &out->frame_timeout);
  section.Millis("first_byte_timeout_ms", 0, kMaxMillis, &out->first_byte_timeout);
  section.Millis("handshake_timeout_ms", 1, kMaxMillis, &out->handshake_timeout);
  section.Integer("max_handshakes", 1, kMaxConnections, &out->max_handshakes);
  section.Integer("outbound_high_water_bytes", kMinFrameBytes, kMaxFrameBytes * 4,
                  &out->outbound_high_water_bytes);
  section.Integer("max_outbound_bytes", kMinFrameBytes, kMaxFrameBytes * 4,
                  &out->max_outbound_bytes);
  if (out->max_outbound_bytes <= out->outbound_high_water_bytes) {
    section.Invalid("max_outbound_bytes", "must be greater than outbound_high_water_bytes (" +
                                              std::to_string(out->outbound_high_water_bytes) + ")");
  }
  section.Integer("max_connections", 1, kMaxConnections, &out->max_connections);
  section.Integer("max_connections_per_peer", 1, kMaxConnections, &out->max_connections_per_peer);
  section.Integer("peer_prefix_v4", 1, 32, &out->peer_prefix_v4);
  section.Integer("peer_prefix_v6", 1, 128, &out->peer_prefix_v6);
  section.Integer("max_buffered_bytes", kMinFrameBytes, kMaxBufferedBytes,
                  &out->max_buffered_bytes);
  section.Integer("max_queued_bytes", kMinFrameBytes, kMaxBufferedBytes, &out->max_queued_bytes);
  section.RejectUnknownKeys();
}

// The files are loaded as the server will load them, so that a missing or broken one fails
// start-up here, naming its key and line.
void ReadServerTls(ConfigReader section, ServerTlsOptions* out) {
  section.String("cert_file", &out->cert_file);
  section.String("key_file", &out->key_file);
  section.String("ca_file", &out->ca_file);
  std::string client_cert;
  section.String("client_cert", &client_cert);
  if (client_cert == "none") {
    out->client_cert = ServerTlsOptions::ClientCert::kNone;
  } else if (client_cert == "optional") {
    out->client_cert = ServerTlsOptions::ClientCert::kOptional;
  } else if (client_cert == "require" || (!section.Has("client_cert") && !out->ca_file.empty())) {
    out->client_cert = ServerTlsOptions::ClientCert::kRequire;
  } else if (section.Has("client_cert")) {
    section.Invalid("client_cert", "unknown client_cert '" + client_cert +
                                       "' (expected none, optional or require)");
  }
  section.Bool("accept_plaintext", &out->accept_plaintext);
  section.Integer("handshake_threads", 1, 64, &out->handshake_threads);
  section.RejectUnknownKeys();
  if (!section.Has("cert_file") && !section.Has("key_file") && !section.Has("ca_file") &&
      !section.Has("client_cert") && !section.Has("accept_plaintext") &&
      !section.Has("handshake_threads")) {
    return;  // no TLS
  }
  if (out->cert_file.empty()) {
    return section.Invalid("cert_file", "required with TLS: the server's certificate chain (PEM)");
  }
  if (out->key_file.empty()) {
    return section.Invalid("key_file", "required with cert_file: its private key (PEM)");
  }
  if (out->client_cert != ServerTlsOptions::ClientCert::kNone && out->ca_file.empty()) {
    return section.Invalid("client_cert",
                           "needs ca_file, the CA that client certificates must come from");
  }
  std::shared_ptr<boost::asio::ssl::context> context;
  std::string key;
  if (Status loaded = transport::NewServerTlsContext(*out, &context, &key); !loaded.ok()) {
    section.Invalid(key, loaded.message());
  }
}

void ReadServer(ConfigReader section, ServerOptions* out) {
  section.String("listen", &out->listen);
  transport::Endpoint endpoint;
  if (Status parsed = transport::ParseEndpoint(out->listen, &endpoint); !parsed.ok()) {
    section.Invalid("listen", parsed.message());
  }
  section.Integer("io_threads", 1, kMaxThreads, &out->io_threads);
  ConfigReader pool = section.Section("business_pool");
  pool.Integer("threads", 1, kMaxThreads, &out->worker_threads);
  pool.Integer("queue_capacity", 1, kMaxQueueCapacity, &out->queue_capacity);
  pool.RejectUnknownKeys();
  section.Millis("grace_period_ms", 0, kMaxMillis, &out->grace_period);
  section.Millis("drain_delay_ms", 0, kMaxMillis, &out->drain_delay);
  section.Millis("idle_timeout_ms", 0, kMaxMillis, &out->idle_timeout);
  section.Millis("slow_call_ms", 0, kMaxMillis, &out->slow_call);
  section.Bool("metrics", &out->metrics);
  ReadCompression(section.Section("compression"), &out->compression, &out->compress_threshold,
                  &out->compression_level);
  section.Integer("max_frame_bytes", kMinFrameBytes, kMaxFrameBytes, &out->max_frame_bytes);
  config::ReadFilters(section, "server", &out->filters);
  ReadHttp(section.Section("http"), &out->http);
  ReadLimits(section.Section("limits"), &out->limits);
  ReadServerTls(section.Section("tls"), &out->tls);
  if (out->limits.max_outbound_bytes < out->max_frame_bytes) {
    section.Invalid("max_frame_bytes", "must not exceed limits.max_outbound_bytes (" +
                                           std::to_string(out->limits.max_outbound_bytes) +
                                           "): one answer must fit");
  }
  section.RejectUnknownKeys();
}

// Present, even empty, the section turns TLS on. Files are loaded as each connection will.
void ReadClientTls(ConfigReader& client, ClientTlsOptions* out) {
  const YAML::Node node = client.Raw("tls");
  if (!node.IsDefined()) return;
  if (!node.IsNull() && !node.IsMap()) {
    return client.Invalid("tls", "expected a mapping of TLS settings ({} for the defaults)");
  }
  ConfigReader section = client.Section("tls");
  out->enabled = true;
  section.String("ca_file", &out->ca_file);
  section.String("cert_file", &out->cert_file);
  section.String("key_file", &out->key_file);
  section.String("server_name", &out->server_name);
  section.Bool("verify", &out->verify);
  section.RejectUnknownKeys();
  if (out->cert_file.empty() != out->key_file.empty()) {
    return section.Invalid(out->cert_file.empty() ? "cert_file" : "key_file",
                           "cert_file and key_file go together: the client's certificate chain "
                           "and its private key (PEM)");
  }
  if (!out->verify && !out->ca_file.empty()) {
    return section.Invalid("verify",
                           "false ignores ca_file: remove one (verify: false is unsafe, for tests "
                           "only)");
  }
  std::shared_ptr<boost::asio::ssl::context> context;
  std::string key;
  if (Status loaded = transport::NewClientTlsContext(*out, &context, &key); !loaded.ok()) {
    section.Invalid(key, loaded.message());
  }
}

// The per-connection keys of a `clients:` entry.
void ReadClientConnection(ConfigReader& section, ClientOptions* out) {
  section.Millis("timeout_ms", 1, kMaxMillis, &out->default_timeout);
  section.Millis("connect_timeout_ms", 1, kMaxMillis, &out->connect_timeout);
  section.String("serializer", &out->serializer);
  if (codec::FindSerializer(out->serializer) == nullptr) {
    section.Invalid("serializer",
                    "unknown serializer '" + out->serializer + "' (expected one of: " +
                        JoinNames(ExtensionRegistry::Instance().Names<codec::Serializer>()) + ")");
  }
  ReadCompression(section.Section("compression"), &out->compression, &out->compress_threshold,
                  &out->compression_level);
  section.Integer("io_threads", 1, kMaxThreads, &out->io_threads);

  ConfigReader reconnect = section.Section("reconnect");
  reconnect.Millis("initial_ms", 1, kMaxMillis, &out->reconnect_initial);
  reconnect.Millis("max_ms", 1, kMaxMillis, &out->reconnect_max);
  if (out->reconnect_max < out->reconnect_initial) {
    reconnect.Invalid("max_ms", "must be >= reconnect.initial_ms (" +
                                    std::to_string(out->reconnect_initial.count()) + ")");
  }
  reconnect.RejectUnknownKeys();

  ConfigReader heartbeat = section.Section("heartbeat");
  heartbeat.Millis("interval_ms", 1, kMaxMillis, &out->heartbeat_interval);
  heartbeat.Millis("timeout_ms", 1, kMaxMillis, &out->heartbeat_timeout);
  if (out->heartbeat_timeout <= out->heartbeat_interval) {
    heartbeat.Invalid("timeout_ms", "must be greater than heartbeat.interval_ms (" +
                                        std::to_string(out->heartbeat_interval.count()) + ")");
  }
  heartbeat.RejectUnknownKeys();

  section.Integer("max_frame_bytes", kMinFrameBytes, kMaxFrameBytes, &out->max_frame_bytes);
  section.Integer("max_outbound_bytes", kMinFrameBytes, kMaxFrameBytes * 4,
                  &out->max_outbound_bytes);
  section.Bool("metrics", &out->metrics);
  config::ReadFilters(section, "client", &out->filters);
  ReadClientTls(section, &out->tls);
}

// One entry of `clients:`.
void ReadClient(ConfigReader section, ClientConfig* out) {
  ClientOptions* client = &out->cluster.client;
  section.String("target", &client->target);
  section.String("registry", &out->registry);
  ReadClientConnection(section, client);
  config::ReadClusterKeys(section, &out->cluster);
  if (client->target.empty() == out->cluster.service.empty()) {
    section.Invalid(client->target.empty() ? "service" : "target",
                    client->target.empty()
                        ? "set either target (host:port, called directly) or service (found "
                          "through the registry)"
                        : "target and service exclude each other: a target is called directly, "
                          "a service is found through the registry");
  } else if (!client->target.empty()) {
    transport::Endpoint endpoint;
    if (Status parsed = transport::ParseEndpoint(client->target, &endpoint); !parsed.ok()) {
      section.Invalid("target", parsed.message());
    }
    if (!out->registry.empty()) {
      section.Invalid("registry", "only with service: a target is called directly");
    }
  } else if (!out->registry.empty()) {
    config::CheckRegistryUrl(section, "registry", out->registry);
  }
  section.RejectUnknownKeys();
}

void ReadClients(ConfigReader& top, std::map<std::string, ClientConfig, std::less<>>* out) {
  if (top.Has("client")) {
    top.Invalid("client",
                "the single client: section is now clients:, a map from a name of your choice to "
                "the same keys; write e.g. \"clients: {echo: {target: 127.0.0.1:7001}}\" and get "
                "it with App::Client<...>(\"echo\") (docs/configuration.md, \"clients\")");
    return;
  }
  ConfigReader clients = top.Section("clients");
  for (const std::string& name : top.KeysOf("clients")) {
    if (name.empty()) {
      clients.Invalid(name, "a client needs a non-empty name");
      continue;
    }
    ReadClient(clients.Section(name), &(*out)[name]);
  }
}

}  // namespace

Status ParseConfig(const std::string& yaml_text, const std::string& source_name, Config* out) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  source_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
  }
  ConfigErrors errors(source_name);
  if (root.IsDefined() && !root.IsNull() && !root.IsMap()) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  source_name +
                      ": expected a mapping of sections (log, plugins, registry, "
                      "provider, server, clients, service)");
  }
  Config config;
  config.source = source_name;
  ConfigReader top(root, "", &errors);
  // Plugins first: the names they register are valid everywhere else in the file.
  config::ReadPlugins(top, &config.plugins);
  ReadLog(top.Section("log"), &config.log);
  config::ReadRegistry(top.Section("registry"), &config.registry);
  config::ReadProvider(top.Section("provider"), &config.provider);
  ReadServer(top.Section("server"), &config.server);
  ReadClients(top, &config.clients);
  if (const YAML::Node service = top.Raw("service"); service.IsDefined() && !service.IsNull()) {
    if (!service.IsMap()) {
      top.Invalid("service", "expected a mapping of the provider's own settings");
    }
    config.service = service;
  }
  top.Bool("allow_sample_secrets", &config.allow_sample_secrets);
  top.RejectUnknownKeys();
  if (!errors.first().ok()) return errors.first();
  if (config.allow_sample_secrets) AllowSampleSecrets(&config);
  config.document = YAML::Clone(root);
  *out = std::move(config);
  return Status::Ok();
}

void AllowSampleSecrets(Config* config) {
  config->allow_sample_secrets = true;
  for (FilterSpec& spec : config->server.filters) spec.allow_sample_secrets = true;
  for (auto& [name, client] : config->clients) {
    for (FilterSpec& spec : client.cluster.client.filters) spec.allow_sample_secrets = true;
  }
}

Status ReadServiceSection(const Config& config,
                          const std::function<void(config::ConfigReader& service)>& read) {
  ConfigErrors errors(config.source);
  errors.set_sample_secrets_allowed(config.allow_sample_secrets);
  ConfigReader service(config.service, "service", &errors);
  read(service);
  service.RejectUnknownKeys();
  return errors.first();
}

Status LoadConfigFile(const std::string& path, Config* out) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return Status(StatusCode::NOT_FOUND,
                  "cannot open config file '" + path + "': " + std::strerror(errno));
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) {
    return Status(StatusCode::INVALID_ARGUMENT, "cannot read config file '" + path + "'");
  }
  return ParseConfig(text.str(), path, out);
}

}  // namespace ferry
