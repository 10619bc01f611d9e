#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::registry {

// Splits "<scheme>://host:port[,host:port...]" into its "host:port" addresses. INVALID_ARGUMENT,
// naming the URL (its user information redacted) and the offending part, for another scheme,
// user information ("user:password@": only zookeeper:// takes it), a path or query, an address
// that is not host:port with a port in 1..65535, or (unless `allow_empty`) no address at all.
Status ParseRegistryUrl(std::string_view url, std::string_view scheme, bool allow_empty,
                        std::vector<std::string>* addresses);

// What a zookeeper:// URL says.
struct ZooKeeperUrl {
  // "host:port[,host:port...]", the connect string of the ZooKeeper C client.
  std::string connect_string;
  // "user:password" of "zookeeper://user:password@host:port,...": credentials of ZooKeeper's
  // digest scheme (ZooKeeperSessionOptions::digest). Empty without.
  std::string digest;
};

// "zookeeper://[user:password@]host:port[,host:port...]", by ParseRegistryUrl's rules (no
// chroot path: znode paths are the users' own). The user is not empty and holds no ':'; the
// password is not empty; neither holds whitespace or control characters. Both the zookeeper
// registry and the idgen worker-id lease read their URL here.
Status ParseZooKeeperUrl(std::string_view url, ZooKeeperUrl* out);

// "host:port", "[v6]:port": a non-empty host without '/', ',' or whitespace and a decimal port
// in 1..65535. Used for URL addresses and for provider addresses alike.
bool IsHostPort(std::string_view address);

}  // namespace ferry::registry
