#include "local_rate_limit_store.h"

#include "builtin_filters.h"
#include "ferry/codec/extension_registry.h"

namespace ferry::plugins {

void LocalRateLimitStore::Configure(config::ConfigReader& config) {
  int64_t max_keys = static_cast<int64_t>(max_keys_);
  config.Integer("max_keys", 1, int64_t{1} << 30, &max_keys);
  max_keys_ = static_cast<size_t>(max_keys);
}

void LocalRateLimitStore::TryTake(std::span<const SharedTake> takes,
                                  std::span<TakeVerdict> verdicts) {
  const RateClock::time_point now = RateClock::now();
  for (size_t i = 0; i < takes.size(); ++i) {
    Limit& limit = LimitOf(takes[i]);
    verdicts[i] = limit.buckets.TryTake(takes[i].key, limit.limit, now) ? TakeVerdict::kTaken
                                                                        : TakeVerdict::kRefused;
  }
}

LocalRateLimitStore::Limit& LocalRateLimitStore::LimitOf(const SharedTake& take) {
  std::lock_guard lock(mu_);
  auto it = limits_.find(take.limit);
  if (it == limits_.end()) {
    RateLimit limit;
    limit.rate = take.rate;
    limit.burst = take.burst;
    it = limits_.emplace(std::string(take.limit), std::make_unique<Limit>(limit, max_keys_)).first;
  }
  return *it->second;
}

void RegisterLocalRateLimitStore(ExtensionRegistry& registry) {
  registry.Register<RateLimitStore>("local",
                                    [] { return std::make_shared<LocalRateLimitStore>(); });
}

}  // namespace ferry::plugins
