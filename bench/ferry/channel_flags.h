#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/bench/flag_parser.h"
#include "ferry/bench/load_options.h"
#include "ferry/codec/status.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/filter.h"

namespace ferry::bench {

// How a ferry-bench command reaches its service; shared by every command. One of
//   --target HOST:PORT  each of the --conns channels is one TCP connection to that server,
//   --registry URL      each of the --conns channels is a cluster channel over every provider of
//                       --service, with one connection per provider and --lb picking per call,
//   --config FILE       each of the --conns channels is the client `--client` of that YAML
//                       file (`clients:`), with exactly the settings a provider would use.
struct ChannelFlags {
  std::string registry;     // --registry
  std::string service;      // --service; empty: the command's own service
  std::string balancer;     // --lb; empty: ClusterOptions' default
  std::string hash_field;   // --hash-field: consistent_hash's request field; empty: none
  std::string serializer;   // --serializer; empty: protobuf
  std::string compression;  // --compression; empty: none
  uint32_t timeout_ms = 0;  // --timeout-ms: per call; 0: 5000
  std::string config;       // --config
  std::string client;       // --client: a name under the file's `clients:`; empty: its only one
  // Client filters the command adds (an operator's `auth`); not with --config, whose client
  // has its own.
  std::vector<FilterSpec> filters;
};

// Registers the flags above on a parser that has AddLoadFlags(..., TargetFlag::kOptional), and
// the rule that exactly one of --target, --registry and --config is given.
void AddChannelFlags(FlagParser& flags, ChannelFlags* channel, const LoadOptions* load);

// Opens `load.conns` channels with `load.threads` IO threads each. `default_service` is the
// command's service, used in registry mode unless --service names another.
Status OpenChannels(const ChannelFlags& channel, std::string_view default_service,
                    const LoadOptions& load, std::vector<std::shared_ptr<Channel>>* out);

// One channel for an operator's calls, signed with the `auth` key `key_id`/`secret`; *out stays
// null when `key_id` is empty (the provider then takes its operator calls unsigned).
Status OpenOperatorChannel(const ChannelFlags& channel, std::string_view default_service,
                           const LoadOptions& load, const std::string& key_id,
                           const std::string& secret, std::shared_ptr<Channel>* out);

// What the channels are, for the line printed before the run:
// "serializer=protobuf compression=none timeout_ms=5000 [registry=... service=... lb=...]".
std::string DescribeChannels(const ChannelFlags& channel, std::string_view default_service);

}  // namespace ferry::bench
