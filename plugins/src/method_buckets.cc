#include "method_buckets.h"

#include <atomic>

namespace ferry::plugins {
namespace {

// What an unlimited method's bucket is built with; never consulted.
const RateLimit kNoLimit{};

uint64_t NextBucketsId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

MethodBuckets::Bucket::Bucket(std::string k, const RateLimit* l, RateClock::time_point now)
    : key(std::move(k)), limit(l), tokens(l != nullptr ? *l : kNoLimit, now) {}

MethodBuckets::MethodBuckets(LimitOf limit_of)
    : id_(NextBucketsId()), limit_of_(std::move(limit_of)) {}

MethodBuckets::Bucket& MethodBuckets::Find(std::string_view service, std::string_view method,
                                           RateClock::time_point now) {
  std::string key;
  key.reserve(service.size() + 1 + method.size());
  key.append(service).append("/").append(method);
  std::lock_guard lock(mu_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    const RateLimit* limit = limit_of_(key);
    auto bucket = std::make_unique<Bucket>(key, limit, now);
    it = buckets_.emplace(std::move(key), std::move(bucket)).first;
  }
  return *it->second;
}

}  // namespace ferry::plugins
