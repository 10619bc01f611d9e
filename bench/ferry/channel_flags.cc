#include "channel_flags.h"

#include <chrono>

#include "ferry/framework/client_options.h"
#include "ferry/framework/cluster_channel.h"
#include "ferry/framework/cluster_options.h"
#include "ferry/framework/config.h"
#include "ferry/framework/load_balancer.h"
#include "ferry/framework/registry.h"

namespace ferry::bench {
namespace {

std::string_view ServiceOf(const ChannelFlags& channel, std::string_view default_service) {
  return channel.service.empty() ? default_service : std::string_view(channel.service);
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
  flags.AddString("--serializer", "NAME", &c->serializer, "protobuf | json (default protobuf)");
  flags.AddString("--compression", "NAME", &c->compression, "none | zstd (default none)");
  flags.AddInteger<uint32_t>("--timeout-ms", "MS", &c->timeout_ms, 1, 3'600'000,
                             "per-call timeout (default 5000)");
  flags.AddString("--filters-from", "FILE", &c->filters_from,
                  "run the client filters (and load the plugins) of this YAML config");
  flags.AddCheck([c, load](std::string* error) {
    if (load->target.empty() == c->registry.empty()) {
      *error = "--target or --registry: exactly one is required";
      return false;
    }
    if (c->registry.empty() && !(c->service.empty() && c->balancer.empty())) {
      *error =
          c->service.empty() ? "--lb: only with --registry" : "--service: only with --registry";
      return false;
    }
    return true;
  });
}

Status OpenChannels(const ChannelFlags& channel, std::string_view default_service,
                    const LoadOptions& load, std::vector<std::shared_ptr<Channel>>* out) {
  ClientOptions client{
      .target = load.target,
      .default_timeout = std::chrono::milliseconds(channel.timeout_ms),
      .serializer = channel.serializer,
      .compression = channel.compression,
      .io_threads = load.threads,
  };
  if (!channel.filters_from.empty()) {
    Config config;
    if (Status status = LoadConfigFile(channel.filters_from, &config); !status.ok()) {
      return status;
    }
    client.filters = config.client.filters;
  }
  out->clear();
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
  for (uint32_t i = 0; i < load.conns; ++i) {
    std::shared_ptr<Channel> opened;
    if (Status status = NewClusterChannel(cluster, registry, &opened); !status.ok()) return status;
    out->push_back(std::move(opened));
  }
  return Status::Ok();
}

std::string DescribeChannels(const ChannelFlags& channel, std::string_view default_service) {
  std::string line = "serializer=" + channel.serializer + " compression=" + channel.compression +
                     " timeout_ms=" + std::to_string(channel.timeout_ms);
  if (!channel.filters_from.empty()) line += " filters_from=" + channel.filters_from;
  if (!channel.registry.empty()) {
    line += " registry=" + channel.registry +
            " service=" + std::string(ServiceOf(channel, default_service)) +
            " lb=" + (channel.balancer.empty() ? LoadBalancerOptions{}.name : channel.balancer);
  }
  return line;
}

}  // namespace ferry::bench
