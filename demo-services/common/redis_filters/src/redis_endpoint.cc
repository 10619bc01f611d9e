#include "redis_endpoint.h"

#include <charconv>

namespace ferry::redis_filters {

void ReadRedisEndpoint(config::ConfigReader& config, RedisEndpoint* out) {
  out->options.pool_size = 4;
  out->options.timeout_ms = 100;
  std::string address;
  config.String("address", &address);
  const size_t colon = address.rfind(':');
  int port = 0;
  const char* port_end = address.data() + address.size();
  if (colon == std::string::npos || colon == 0 ||
      std::from_chars(address.data() + colon + 1, port_end, port).ptr != port_end || port <= 0 ||
      port > 65535) {
    config.Invalid("address", "expected host:port of the Redis server, got '" + address + "'");
  } else {
    out->options.host = address.substr(0, colon);
    out->options.port = port;
  }
  config.String("namespace", &out->key_namespace);
  if (out->key_namespace.empty()) {
    config.Invalid("namespace",
                   "must be set (e.g. the service's name): every key starts with it, and "
                   "providers share what has the same namespace");
  }
  config.Integer("connections", 1, 256, &out->options.pool_size);
  config.Integer("timeout_ms", 1, 60000, &out->options.timeout_ms);
}

}  // namespace ferry::redis_filters
