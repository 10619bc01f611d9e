#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace ferry::storage {

// A bounded in-process map for caches on hot paths: the keys are spread over 16 shards, each
// with a lock of its own, so concurrent readers of different keys seldom meet, and a full shard
// drops its least recently used entry rather than everything (emptying a cache when it fills
// sends every key at once to whatever it fronts). Values are copied out under the lock: hold
// large ones by shared_ptr.
template <class Key, class Value, class Hash = std::hash<Key>>
class ShardedLru {
 public:
  static constexpr size_t kShards = 16;
  static_assert(sizeof(size_t) == 8, "ShardOf takes a 64-bit hash's top 4 bits");

  // At least one entry per shard, so `max_entries` below 16 holds up to 16.
  explicit ShardedLru(size_t max_entries)
      : max_per_shard_(max_entries / kShards > 0 ? max_entries / kShards : 1) {}

  // The entry's value, now the shard's most recently used; nullopt when there is none.
  std::optional<Value> Get(const Key& key) {
    Shard& shard = ShardOf(key);
    std::lock_guard lock(shard.mu);
    auto it = shard.index.find(key);
    if (it == shard.index.end()) return std::nullopt;
    shard.used.splice(shard.used.begin(), shard.used, it->second);
    return it->second->second;
  }

  // Calls `update(std::optional<Value>& slot)` under the shard's lock with the entry (empty when
  // there is none) and keeps what it leaves there: a value is stored as the most recently used,
  // an empty slot erases the entry. For read-modify-write rules such as "never replace a newer
  // version".
  template <class Updater>
  void Update(const Key& key, Updater&& update) {
    Shard& shard = ShardOf(key);
    std::lock_guard lock(shard.mu);
    auto it = shard.index.find(key);
    std::optional<Value> slot;
    if (it != shard.index.end()) slot.emplace(std::move(it->second->second));
    std::forward<Updater>(update)(slot);
    if (!slot) {
      if (it != shard.index.end()) {
        shard.used.erase(it->second);
        shard.index.erase(it);
      }
      return;
    }
    if (it != shard.index.end()) {
      it->second->second = std::move(*slot);
      shard.used.splice(shard.used.begin(), shard.used, it->second);
      return;
    }
    if (shard.index.size() >= max_per_shard_) {
      shard.index.erase(shard.used.back().first);
      shard.used.pop_back();
    }
    shard.used.emplace_front(key, std::move(*slot));
    shard.index.emplace(key, shard.used.begin());
  }

  void Put(const Key& key, Value value) {
    Update(key, [&](std::optional<Value>& slot) { slot = std::move(value); });
  }

  void Erase(const Key& key) {
    Update(key, [](std::optional<Value>& slot) { slot.reset(); });
  }

  void Clear() {
    for (Shard& shard : shards_) {
      std::lock_guard lock(shard.mu);
      shard.index.clear();
      shard.used.clear();
    }
  }

  size_t size() {
    size_t n = 0;
    for (Shard& shard : shards_) {
      std::lock_guard lock(shard.mu);
      n += shard.index.size();
    }
    return n;
  }

 private:
  using Entries = std::list<std::pair<Key, Value>>;  // most recently used first
  struct Shard {
    std::mutex mu;
    Entries used;                                                     // guarded by mu
    std::unordered_map<Key, typename Entries::iterator, Hash> index;  // guarded by mu
  };

  // The hash's high bits, mixed: the shard's map uses its low ones.
  Shard& ShardOf(const Key& key) {
    return shards_[(uint64_t{Hash()(key)} * 0x9e3779b97f4a7c15ull) >> 60];
  }

  const size_t max_per_shard_;
  std::array<Shard, kShards> shards_;
};

}  // namespace ferry::storage
