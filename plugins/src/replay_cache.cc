#include "replay_cache.h"

#include <algorithm>

namespace ferry::plugins {
namespace {

constexpr size_t kMaxShards = 64;
constexpr size_t kInitialSlots = 16;

}  // namespace

ReplayCache::ReplayCache(size_t max_entries, std::chrono::milliseconds max_skew)
    : max_entries_(std::max<size_t>(max_entries, 1)),
      skew_ms_(max_skew.count()),
      width_ms_(std::max<int64_t>(1, max_skew.count() / 4)),
      shards_(std::make_unique<Shard[]>(std::min(kMaxShards, max_entries_))),
      shard_count_(std::min(kMaxShards, max_entries_)) {
  // The bound is the configured total exactly, however it divides.
  for (size_t i = 0; i < shard_count_; ++i) {
    shards_[i].capacity = max_entries_ / shard_count_ + (i < max_entries_ % shard_count_ ? 1 : 0);
  }
}

ReplayCache::Outcome ReplayCache::Record(uint64_t fingerprint, int64_t token_unix_ms,
                                         int64_t now_unix_ms) {
  const uint64_t key = fingerprint != 0 ? fingerprint : 1;
  Shard& shard = shards_[(key >> 32) % shard_count_];
  const int64_t index = std::max<int64_t>(0, token_unix_ms + skew_ms_) / width_ms_;
  std::lock_guard lock(shard.mu);
  Generation& generation = shard.generations[static_cast<size_t>(index) % kGenerations];
  if (generation.index != index) {
    // A later generation in this slot means the clock went back by more than the window: its
    // entries may still be replayable, so nothing is dropped and nothing recorded.
    if (generation.index > index) return Outcome::kFull;
    // An earlier one is at least kGenerations widths older, which is more than the window: all
    // its tokens have expired.
    Drop(shard, generation);
    generation.index = index;
  }
  if (Contains(generation, key)) return Outcome::kReplayed;
  if (shard.live >= shard.capacity) {
    DropExpired(shard, now_unix_ms);
    if (shard.live >= shard.capacity) return Outcome::kFull;
  }
  Insert(generation, key);
  ++shard.live;
  return Outcome::kFresh;
}

void ReplayCache::Drop(Shard& shard, Generation& generation) const {
  shard.live -= generation.count;
  generation.count = 0;
  generation.index = -1;
  // Freed rather than cleared, so that memory follows the entries held, not the most ever held.
  std::vector<uint64_t>().swap(generation.slots);
}

void ReplayCache::DropExpired(Shard& shard, int64_t now_unix_ms) const {
  for (Generation& generation : shard.generations) {
    // Every entry of the generation expires before (index + 1) * width.
    if (generation.index >= 0 && (generation.index + 1) * width_ms_ <= now_unix_ms) {
      Drop(shard, generation);
    }
  }
}

bool ReplayCache::Contains(const Generation& generation, uint64_t key) {
  if (generation.slots.empty()) return false;
  const size_t mask = generation.slots.size() - 1;
  for (size_t i = key & mask;; i = (i + 1) & mask) {
    if (generation.slots[i] == key) return true;
    if (generation.slots[i] == 0) return false;
  }
}

void ReplayCache::Insert(Generation& generation, uint64_t key) {
  if (2 * (generation.count + 1) > generation.slots.size()) {
    std::vector<uint64_t> old;
    old.swap(generation.slots);
    generation.slots.assign(std::max(kInitialSlots, 2 * old.size()), 0);
    const size_t mask = generation.slots.size() - 1;
    for (uint64_t held : old) {
      if (held == 0) continue;
      size_t i = held & mask;
      while (generation.slots[i] != 0) i = (i + 1) & mask;
      generation.slots[i] = held;
    }
  }
  const size_t mask = generation.slots.size() - 1;
  size_t i = key & mask;
  while (generation.slots[i] != 0) i = (i + 1) & mask;
  generation.slots[i] = key;
  ++generation.count;
}

}  // namespace ferry::plugins
