#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>

#include "seckill.pb.h"
#include "service/fifo_map.h"

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

  explicit RequestAnswerCache(size_t capacity) {
    for (auto& shard : shards_) shard.entries.set_capacity(capacity / kShards + 1);
  }

  std::optional<Entry> Find(const std::string& request_id) {
    Shard& shard = ShardOf(request_id);
    std::lock_guard lock(shard.mutex);
    const Entry* found = shard.entries.Find(request_id);
    if (found == nullptr) return std::nullopt;
    return *found;
  }

  // For a request id without an answer: marks it as being decided by the caller, who must then
  // call Remember (or Abandon when it has no answer), and returns nullopt. While another call is
  // deciding the same id it waits for that call and returns its answer (or, after an Abandon,
  // takes the decision over). So a retry that arrives while the first attempt is still being
  // decided gets that attempt's answer, never one of its own (e.g. SOLD_OUT from the sold-out
  // flag for a request whose first attempt got the unit). Only within this provider: a retry
  // sent to another provider meanwhile meets that provider's own flag.
  std::optional<Entry> BeginDecision(const std::string& request_id) {
    Shard& shard = ShardOf(request_id);
    std::unique_lock lock(shard.mutex);
    while (true) {
      if (const Entry* found = shard.entries.Find(request_id)) return *found;
      if (shard.deciding.insert(request_id).second) return std::nullopt;
      shard.decided.wait(lock);
    }
  }

  // Ends a BeginDecision that produced no answer (an error): a waiting retry decides instead.
  void Abandon(const std::string& request_id) {
    Shard& shard = ShardOf(request_id);
    std::lock_guard lock(shard.mutex);
    if (shard.deciding.erase(request_id) != 0) shard.decided.notify_all();
  }

  // Records the answer (the first one recorded stays) and ends a BeginDecision of the id.
  void Remember(const std::string& request_id, const Entry& entry) {
    Shard& shard = ShardOf(request_id);
    std::lock_guard lock(shard.mutex);
    if (shard.deciding.erase(request_id) != 0) shard.decided.notify_all();
    shard.entries.Insert(request_id, entry);
  }

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    std::mutex mutex;
    FifoMap<Entry> entries;
    std::unordered_set<std::string> deciding;  // between BeginDecision and Remember/Abandon
    std::condition_variable decided;           // a decision ended
  };
  Shard& ShardOf(const std::string& key) {
    return shards_[std::hash<std::string>{}(key) % kShards];
  }

  std::array<Shard, kShards> shards_;
};

}  // namespace ferry::seckill
