#include "ferry/codec/extension_registry.h"
#include "redis_rate_limit_store.h"
#include "redis_revocation_list.h"

namespace ferry::redis_filters {
namespace {

// Registered as if from a plugin, so that YAML names them: `store: {kind: redis}` of
// `ratelimit`, `revocations: {kind: redis}` of `user_token`.
void RegisterRedisFilters(ExtensionRegistry& registry) {
  registry.Register<plugins::RateLimitStore>(
      "redis", [] { return std::make_shared<RedisRateLimitStore>(); });
  registry.Register<plugins::TokenRevocations>(
      "redis", [] { return std::make_shared<RedisRevocationList>(); });
}

}  // namespace

FERRY_REGISTER_BUILTIN_EXTENSIONS(RegisterRedisFilters)

}  // namespace ferry::redis_filters
