#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "bucket_map.h"
#include "ferry/plugins/rate_limit_store.h"

namespace ferry::plugins {

// The store of kind "local": the same token buckets an unshared limit has, in this process, so
// that a config can name a store before it has one to share (and tests can take the filter's
// shared path without Redis). Never unavailable.
class LocalRateLimitStore final : public RateLimitStore {
 public:
  void Configure(config::ConfigReader& config) override;
  void TryTake(std::span<const SharedTake> takes, std::span<TakeVerdict> verdicts) override;

 private:
  struct Limit {
    Limit(RateLimit l, size_t max_keys) : limit(std::move(l)), buckets(max_keys) {}
    const RateLimit limit;  // before the buckets, which point to it
    BucketMap buckets;
  };
  Limit& LimitOf(const SharedTake& take);

  size_t max_keys_ = 100000;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Limit>, std::less<>> limits_;  // guarded by mu_
};

}  // namespace ferry::plugins
