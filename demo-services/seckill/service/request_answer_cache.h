#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "seckill.pb.h"

namespace ferry::seckill {

// What this provider answered for recent request ids, so that a retry gets the same answer even
// when it would be decided elsewhere (the sold-out flag) or differently (stock came back).
// Bounded: the oldest entries go first; the reservation cache and the database remain the
// durable record of accepted requests.
class RequestAnswerCache {
 public:
  struct Entry {
    PurchaseAnswer answer = PURCHASE_ANSWER_UNSPECIFIED;
    int64_t activity_id = 0;
    int64_t sku_id = 0;
  };

  explicit RequestAnswerCache(size_t capacity) : per_shard_(capacity / kShards + 1) {}

  std::optional<Entry> Find(const std::string& request_id) {
    Shard& shard = ShardOf(request_id);
    std::lock_guard lock(shard.mutex);
    auto it = shard.entries.find(request_id);
    if (it == shard.entries.end()) return std::nullopt;
    return it->second;
  }

  void Remember(const std::string& request_id, const Entry& entry) {
    Shard& shard = ShardOf(request_id);
    std::lock_guard lock(shard.mutex);
    if (!shard.entries.emplace(request_id, entry).second) return;
    shard.order.push_back(request_id);
    if (shard.order.size() > per_shard_) {
      shard.entries.erase(shard.order.front());
      shard.order.pop_front();
    }
  }

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, Entry> entries;
    std::deque<std::string> order;  // insertion order, for eviction
  };
  Shard& ShardOf(const std::string& key) {
    return shards_[std::hash<std::string>{}(key) % kShards];
  }

  const size_t per_shard_;
  std::array<Shard, kShards> shards_;
};

}  // namespace ferry::seckill
