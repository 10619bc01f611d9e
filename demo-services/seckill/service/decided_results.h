#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "seckill.pb.h"
#include "service/fifo_map.h"

namespace ferry::seckill {

// GetResult's answers that can no longer change (CREATED with its order number, FAILED with
// its reason; never PENDING), per request key, so that a buyer polling a decided request costs
// no database query. Bounded: the oldest entries go first, and a request found nowhere here is
// looked up in the database as before.
class DecidedResults {
 public:
  explicit DecidedResults(size_t capacity) {
    for (auto& shard : shards_) shard.entries.set_capacity(capacity / kShards + 1);
  }

  std::optional<GetResultResponse> Find(const std::string& key) {
    Shard& shard = ShardOf(key);
    std::lock_guard lock(shard.mutex);
    const GetResultResponse* found = shard.entries.Find(key);
    if (found == nullptr) return std::nullopt;
    return *found;
  }

  // Ignores anything but CREATED and FAILED.
  void Remember(const std::string& key, const GetResultResponse& result) {
    if (result.state() != CREATED && result.state() != FAILED) return;
    Shard& shard = ShardOf(key);
    std::lock_guard lock(shard.mutex);
    shard.entries.Insert(key, result);
  }

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    std::mutex mutex;
    FifoMap<GetResultResponse> entries;
  };
  Shard& ShardOf(const std::string& key) {
    return shards_[std::hash<std::string>{}(key) % kShards];
  }

  std::array<Shard, kShards> shards_;
};

}  // namespace ferry::seckill
