#include "channel_flags.h"

#include <chrono>

#include "ferry/framework/client_options.h"
#include "ferry/framework/cluster_channel.h"
#include "ferry/framework/cluster_options.h"
#include "ferry/framework/config.h"
#include "ferry/framework/configured_channel.h"
#include "ferry/framework/load_balancer.h"
#include "ferry/framework/registry.h"

namespace ferry::bench {
namespace {

constexpr uint32_t kDefaultTimeoutMs = 5000;

std::string_view ServiceOf(const ChannelFlags& channel, std::string_view default_service) {
  return channel.service.empty() ? default_service : std::string_view(channel.service);
}

std::string OrDefault(const std::string& value, const char* fallback) {
  return value.empty() ? fallback : value;
}

// The `clients:` entry --client names, or the file's only one.
Status FindClient(const Config& config, const std::string& name, const ClientConfig** out) {
  if (name.empty() && config.clients.size() == 1) {
    *out = &config.clients.begin()->second;
    return Status::Ok();
  }
  if (const auto it = config.clients.find(name); !name.empty() && it != config.clients.end()) {
    *out = &it->second;
    return Status::Ok();
  }
  std::string known;
  for (const auto& [client, settings] : config.clients)
    known += (known.empty() ? "" : ", ") + client;
  return Status(StatusCode::INVALID_ARGUMENT,
                config.source + ": " +
                    (name.empty() ? "--client: the file has " +
                                        std::to_string(config.clients.size()) + " clients; name one"
                                  : "--client: no client '" + name + "' under clients:") +
                    " (clients: " + (known.empty() ? "none" : known) + ")");
}

// --config: `load.conns` copies of the client the file describes.
Status OpenConfiguredChannels(const ChannelFlags& channel, const LoadOptions& load,
                              std::vector<std::shared_ptr<Channel>>* out) {
  Config config;
  if (Status status = LoadConfigFile(channel.config, &config); !status.ok()) return status;
  const ClientConfig* client = nullptr;
  if (Status status = FindClient(config, channel.client, &client); !status.ok()) return status;
  // One registry session serves every channel, as it would every client of one provider.
  std::shared_ptr<Registry> registry;
  if (client->cluster.client.target.empty() && client->registry.empty() &&
      !config.registry.url.empty()) {
    if (Status status = OpenRegistry(config.registry, &registry); !status.ok()) return status;
  }
  for (uint32_t i = 0; i < load.conns; ++i) {
    std::shared_ptr<Channel> opened;
    if (Status status = NewConfiguredChannel(*client, registry, config.registry, &opened);
        !status.ok()) {
      return status;
    }
    out->push_back(std::move(opened));
  }
  return Status::Ok();
}

}  // namespace

void AddChannelFlags(FlagParser& flags, ChannelFlags* c, const LoadOptions* load) {
  flags.AddString("--registry", "URL", &c->registry,
                  "find the providers here instead of --target (static://..., zookeeper://...)");
  flags.AddString("--service", "NAME", &c->service,
                  "with --registry: full service name (default: the command's service)");
  flags.AddString("--lb", "BALANCER", &c->balancer,
                  "with --registry: round_robin | random | least_active | consistent_hash | "
                  "latency_aware (default round_robin)");
  flags.AddString("--hash-field", "FIELD", &c->hash_field,
                  "with --lb consistent_hash: the request field whose value is the hash key, so "
                  "that calls for one key (e.g. user_id) reach one provider");
  flags.AddString("--serializer", "NAME", &c->serializer, "protobuf | json (default protobuf)");
  flags.AddString("--compression", "NAME", &c->compression, "none | zstd (default none)");
  flags.AddInteger<uint32_t>("--timeout-ms", "MS", &c->timeout_ms, 1, 3'600'000,
                             "per-call timeout (default 5000)");
  flags.AddString("--config", "FILE", &c->config,
                  "instead of --target or --registry: call as the client of this YAML config "
                  "does (its clients: entry, filters and plugins included)");
  flags.AddString("--client", "NAME", &c->client,
                  "with --config: which entry of its clients: (default: the only one)");
  flags.AddCheck([c, load](std::string* error) {
    const int modes = !load->target.empty() + !c->registry.empty() + !c->config.empty();
    if (modes != 1) {
      *error = "--target, --registry or --config: exactly one is required";
      return false;
    }
    if (c->registry.empty() && !(c->service.empty() && c->balancer.empty())) {
      *error =
          c->service.empty() ? "--lb: only with --registry" : "--service: only with --registry";
      return false;
    }
    if (!c->hash_field.empty() && c->balancer != "consistent_hash") {
      *error = "--hash-field: only with --lb consistent_hash";
      return false;
    }
    if (c->config.empty() && !c->client.empty()) {
      *error = "--client: only with --config";
      return false;
    }
    if (!c->config.empty() &&
        (!c->serializer.empty() || !c->compression.empty() || c->timeout_ms != 0)) {
      *error = "--serializer, --compression, --timeout-ms: with --config they come from its client";
      return false;
    }
    return true;
  });
}

Status OpenChannels(const ChannelFlags& channel, std::string_view default_service,
                    const LoadOptions& load, std::vector<std::shared_ptr<Channel>>* out) {
  out->clear();
  if (!channel.config.empty()) return OpenConfiguredChannels(channel, load, out);
  ClientOptions client{
      .target = load.target,
      .default_timeout = std::chrono::milliseconds(channel.timeout_ms != 0 ? channel.timeout_ms
                                                                           : kDefaultTimeoutMs),
      .serializer = OrDefault(channel.serializer, "protobuf"),
      .compression = OrDefault(channel.compression, "none"),
      .io_threads = load.threads,
  };
  client.filters = channel.filters;
  if (channel.registry.empty()) {
    for (uint32_t i = 0; i < load.conns; ++i) {
      std::shared_ptr<Channel> opened;
      if (Status status = NewChannel(client, &opened); !status.ok()) return status;
      out->push_back(std::move(opened));
    }
    return Status::Ok();
  }
  // One registry session serves every cluster channel: each subscribes to the same service.
  std::shared_ptr<Registry> registry;
  if (Status status = OpenRegistry(RegistryOptions{.url = channel.registry}, &registry);
      !status.ok()) {
    return status;
  }
  ClusterOptions cluster;
  cluster.service = std::string(ServiceOf(channel, default_service));
  cluster.client = client;
  if (!channel.balancer.empty()) cluster.loadbalance.name = channel.balancer;
  cluster.loadbalance.hash_field = channel.hash_field;
  for (uint32_t i = 0; i < load.conns; ++i) {
    std::shared_ptr<Channel> opened;
    if (Status status = NewClusterChannel(cluster, registry, &opened); !status.ok()) return status;
    out->push_back(std::move(opened));
  }
  return Status::Ok();
}

Status OpenOperatorChannel(const ChannelFlags& channel, std::string_view default_service,
                           const LoadOptions& load, const std::string& key_id,
                           const std::string& secret, std::shared_ptr<Channel>* out) {
  out->reset();
  if (key_id.empty()) return Status::Ok();
  ChannelFlags signed_channel = channel;
  signed_channel.filters = {FilterSpec::FromYaml(
      "auth", "{keys: [{id: '" + key_id + "', secret: '" + secret + "'}], caller: ferry-bench}")};
  LoadOptions one = load;
  one.conns = 1;
  std::vector<std::shared_ptr<Channel>> opened;
  if (Status s = OpenChannels(signed_channel, default_service, one, &opened); !s.ok()) return s;
  *out = std::move(opened.front());
  return Status::Ok();
}

std::string DescribeChannels(const ChannelFlags& channel, std::string_view default_service) {
  if (!channel.config.empty()) {
    return "config=" + channel.config + (channel.client.empty() ? "" : " client=" + channel.client);
  }
  std::string line =
      "serializer=" + OrDefault(channel.serializer, "protobuf") +
      " compression=" + OrDefault(channel.compression, "none") + " timeout_ms=" +
      std::to_string(channel.timeout_ms != 0 ? channel.timeout_ms : kDefaultTimeoutMs);
  if (!channel.registry.empty()) {
    line += " registry=" + channel.registry +
            " service=" + std::string(ServiceOf(channel, default_service)) +
            " lb=" + (channel.balancer.empty() ? LoadBalancerOptions{}.name : channel.balancer);
    if (!channel.hash_field.empty()) line += " hash_field=" + channel.hash_field;
  }
  return line;
}

}  // namespace ferry::bench
