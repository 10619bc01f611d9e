#include "method_buckets.h"

#include <array>
#include <atomic>

#include "method_key.h"

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

MethodBuckets::Bucket& MethodBuckets::Lookup(std::string_view service, std::string_view method,
                                             uint64_t method_id, RateClock::time_point now) {
  if (method_id != 0 && method_id < kIndexedIds) {
    Bucket& bucket = Find(service, method, now);
    by_method_id_[method_id].store(&bucket, std::memory_order_release);
    return bucket;
  }
  // Per thread, direct-mapped by the method's id, or else by the address of its name. Method
  // ids are never reused; entries found by address are checked against the name itself, so an
  // address reused for another name only costs a miss. Only this instance's entries are
  // followed, since buckets live as long as their instance.
  struct MemoEntry {
    uint64_t owner = 0;
    uint64_t method_id = 0;
    Bucket* bucket = nullptr;
  };
  constexpr size_t kMemoSlots = 64;
  thread_local std::array<MemoEntry, kMemoSlots> memo;
  const uint64_t key = method_id != 0 ? method_id : reinterpret_cast<uintptr_t>(method.data());
  MemoEntry& entry = memo[((key >> 3) ^ (key >> 11) ^ key ^ id_) % kMemoSlots];
  if (entry.owner == id_ && entry.method_id == method_id &&
      (method_id != 0 || IsMethodKey(entry.bucket->key, service, method))) {
    return *entry.bucket;
  }
  Bucket& bucket = Find(service, method, now);
  entry = MemoEntry{id_, method_id, &bucket};
  return bucket;
}

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
