#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "snapshot_cache.h"

namespace ferry::loadbalance {

// Holds the current immutable snapshot of a balancer. Store() is rare (provider list changes);
// Load() runs on every call from many threads, and in the common case only reads the version
// number and finds the snapshot in the thread's SnapshotCache: no lock, no shared write.
//
// libstdc++ 12's std::atomic<std::shared_ptr> would serialize readers on a spin lock and bump a
// shared reference count on every load.
//
// Cost of the scheme: a thread keeps the last snapshot it used until it next loads from this
// cell (or another cell takes the slot, or the thread exits), so a replaced or destroyed
// balancer's providers can outlive it in idle threads.
template <class T>
class SnapshotCell {
 public:
  void Store(std::shared_ptr<const T> snapshot) {
    std::lock_guard lock(mu_);
    current_ = std::move(snapshot);
    version_.store(version_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

  // The current snapshot, nullptr before the first Store(). Valid until this thread's next
  // Load() from any cell, as is `*cursor`, this thread's SnapshotCache::Slot::cursor for it.
  const T* Load(uint64_t** cursor = nullptr) const {
    SnapshotCache::Slot& slot = SnapshotCache::SlotFor(id_);
    if (cursor != nullptr) *cursor = &slot.cursor;
    if (slot.cell_id == id_ && slot.version == version_.load(std::memory_order_acquire)) {
      return static_cast<const T*>(slot.snapshot.get());
    }
    std::shared_ptr<const void> evicted = std::move(slot.snapshot);  // freed outside the lock
    std::lock_guard lock(mu_);
    slot.cell_id = id_;
    slot.version = version_.load(std::memory_order_relaxed);
    slot.snapshot = current_;
    slot.cursor = SnapshotCache::FreshCursor();
    return current_.get();
  }

 private:
  const uint64_t id_ = SnapshotCache::NewCellId();
  mutable std::mutex mu_;  // guards current_ and makes version_ agree with it
  std::shared_ptr<const T> current_;
  std::atomic<uint64_t> version_{0};
};

}  // namespace ferry::loadbalance
