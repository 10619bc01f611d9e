#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::registry {

// Splits "<scheme>://host:port[,host:port...]" into its "host:port" addresses. INVALID_ARGUMENT,
// naming the URL and the offending part, for another scheme, a path or query, an address that
// is not host:port with a port in 1..65535, or (unless `allow_empty`) no address at all.
Status ParseRegistryUrl(std::string_view url, std::string_view scheme, bool allow_empty,
                        std::vector<std::string>* addresses);

// "zookeeper://host:port[,host:port...]" -> "host:port[,host:port...]", the connect string of
// the ZooKeeper C client, by ParseRegistryUrl's rules (no chroot path: znode paths are the
// users' own). Both the zookeeper registry and the idgen worker-id lease read their URL here.
Status ParseZooKeeperUrl(std::string_view url, std::string* connect_string);

// "host:port", "[v6]:port": a non-empty host without '/', ',' or whitespace and a decimal port
// in 1..65535. Used for URL addresses and for provider addresses alike.
bool IsHostPort(std::string_view address);

}  // namespace ferry::registry
