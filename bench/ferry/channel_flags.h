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

namespace ferry::bench {

// How a ferry-bench command reaches its service; shared by every command. Either
//   --target HOST:PORT  each of the --conns channels is one TCP connection to that server, or
//   --registry URL      each of the --conns channels is a cluster channel over every provider of
//                       --service, with one connection per provider and --lb picking per call.
struct ChannelFlags {
  std::string registry;                 // --registry
  std::string service;                  // --service; empty: the command's own service
  std::string balancer;                 // --lb; empty: ClusterOptions' default
  std::string serializer = "protobuf";  // --serializer
  std::string compression = "none";     // --compression
  uint32_t timeout_ms = 5000;           // --timeout-ms: per call
  std::string filters_from;             // --filters-from: a YAML config whose client filters run
};

// Registers the flags above on a parser that has AddLoadFlags(..., TargetFlag::kOptional), and
// the rule that exactly one of --target and --registry is given.
void AddChannelFlags(FlagParser& flags, ChannelFlags* channel, const LoadOptions* load);

// Opens `load.conns` channels with `load.threads` IO threads each. `default_service` is the
// command's service, used in registry mode unless --service names another.
Status OpenChannels(const ChannelFlags& channel, std::string_view default_service,
                    const LoadOptions& load, std::vector<std::shared_ptr<Channel>>* out);

// What the channels are, for the line printed before the run:
// "serializer=protobuf compression=none timeout_ms=5000 [registry=... service=... lb=...]".
std::string DescribeChannels(const ChannelFlags& channel, std::string_view default_service);

}  // namespace ferry::bench
