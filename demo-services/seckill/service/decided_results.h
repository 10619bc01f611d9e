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

// GetResult's answers that can no longer change (CREATED with its order number, FAILED with
// its reason; never PENDING), per request key, so that a buyer polling a decided request costs
// no database query. Bounded: the oldest entries go first, and a request found nowhere here is
// looked up in the database as before.
class DecidedResults {
 public:
  explicit DecidedResults(size_t capacity) : per_shard_(capacity / kShards + 1) {}

  std::optional<GetResultResponse> Find(const std::string& key) {
    Shard& shard = ShardOf(key);
    std::lock_guard lock(shard.mutex);
    auto it = shard.entries.find(key);
    if (it == shard.entries.end()) return std::nullopt;
    return it->second;
  }

  // Ignores anything but CREATED and FAILED.
  void Remember(const std::string& key, const GetResultResponse& result) {
    if (result.state() != CREATED && result.state() != FAILED) return;
    Shard& shard = ShardOf(key);
    std::lock_guard lock(shard.mutex);
    if (!shard.entries.emplace(key, result).second) return;
    shard.order.push_back(key);
    if (shard.order.size() > per_shard_) {
      shard.entries.erase(shard.order.front());
      shard.order.pop_front();
    }
  }

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, GetResultResponse> entries;
    std::deque<std::string> order;  // insertion order, for eviction
  };
  Shard& ShardOf(const std::string& key) {
    return shards_[std::hash<std::string>{}(key) % kShards];
  }

  const size_t per_shard_;
  std::array<Shard, kShards> shards_;
};

}  // namespace ferry::seckill
