#pragma once

#include <string>
#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::idgen {

// "zookeeper://host:port[,host:port...]" -> "host:port[,host:port...]", the connect string of
// the C client. The same rules as the registry's URLs (docs/registry.md): hosts are names,
// IPv4 or bracketed IPv6 addresses, ports 1..65535, no path (chroot), query or fragment.
// INVALID_ARGUMENT naming the URL and the offending part otherwise (ferry::registry_url).
Status ParseZooKeeperUrl(std::string_view url, std::string* hosts);

// A namespace becomes one znode name: not empty, not "." or "..", no '/', whitespace or
// control characters. INVALID_ARGUMENT otherwise.
Status CheckNamespace(std::string_view name);

}  // namespace ferry::idgen
