#pragma once

#include <memory>
#include <string>
#include <vector>

#include "atomic_token_bucket.h"
#include "bucket_map.h"
#include "ferry/codec/status.h"
#include "ferry/framework/config_reader.h"
#include "ferry/framework/metrics.h"
#include "ferry/plugins/rate_limit_store.h"

namespace ferry::plugins {

// RESOURCE_EXHAUSTED: "ratelimit: rate limit of <who> exceeded (<limit>)".
Status RateLimitExhausted(const std::string& who, const RateLimit& limit);

// The `ratelimit` filter's `store:`: where its shared limits are taken, and what a call gets
// when the store cannot answer (`on_unavailable`): `local` (the default) takes the limit from
// this process's bucket instead, as if unshared, because a limiter outage must not take the
// service down, and N providers then allow N times the rate until the store is back; `allow`
// passes the call; `refuse` answers UNAVAILABLE. Every take that met an unavailable store is
// counted in ferry_ratelimit_store_unavailable_total{on_unavailable}.
class SharedLimiter {
 public:
  // Reads `store`, if present; mistakes go to `config`.
  void Configure(config::ConfigReader& config);
  bool configured() const { return store_ != nullptr; }

  // One shared limit a call takes a token of, and its fallback: a bucket of `local_map` by
  // `key`, or `local_bucket`.
  struct Check {
    const RateLimit* limit = nullptr;
    std::string key;
    std::string who;  // for the refusal, e.g. "user 'u1'"
    BucketMap* local_map = nullptr;
    AtomicTokenBucket* local_bucket = nullptr;
  };
  // OK when every check found a token; otherwise the refusal of the first that did not.
  Status Take(const std::vector<Check>& checks, RateClock::time_point now);

 private:
  enum class OnUnavailable { kLocal, kAllow, kRefuse };

  bool TakeLocally(const Check& check, RateClock::time_point now) const;

  std::shared_ptr<RateLimitStore> store_;
  std::string kind_;
  OnUnavailable on_unavailable_ = OnUnavailable::kLocal;
  metrics::Counter* unavailable_ = nullptr;
};

}  // namespace ferry::plugins
