#include "snapshot_cache.h"

#include <atomic>

#include "ferry/framework/hash_key.h"

namespace ferry::loadbalance {

uint64_t SnapshotCache::NewCellId() {
  static std::atomic<uint64_t> next_id{1};
  return next_id.fetch_add(1, std::memory_order_relaxed);
}

SnapshotCache::Slot& SnapshotCache::SlotFor(uint64_t cell_id) {
  thread_local std::array<Slot, kSlots> slots;
  return slots[cell_id % kSlots];
}

uint64_t SnapshotCache::FreshCursor() {
  thread_local uint64_t fills = 0;
  return Mix64(reinterpret_cast<uintptr_t>(&fills) + ++fills);
}

}  // namespace ferry::loadbalance
