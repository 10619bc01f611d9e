#pragma once

#include <array>
#include <cstdint>
#include <memory>

namespace ferry::loadbalance {

// Each thread's most recently used snapshots, so that a pick finds the current snapshot with
// one shared read (a version number) instead of a lock or a reference-count increment on a
// cache line every calling thread writes. See SnapshotCell.
class SnapshotCache {
 public:
  struct Slot {
    uint64_t cell_id = 0;  // 0: empty; cell ids start at 1
    uint64_t version = 0;
    std::shared_ptr<const void> snapshot;
    // The balancer's own word of per-thread state for this snapshot, e.g. where its rotation
    // stands; an arbitrary value each time the slot is filled.
    uint64_t cursor = 0;
  };

  // A process-wide unique id, never reused, so that a slot left by a destroyed cell is never
  // mistaken for a new cell's.
  static uint64_t NewCellId();

  // The calling thread's slot for a cell. Cells may share a slot; they then take turns in it.
  static Slot& SlotFor(uint64_t cell_id);

  // A cursor for a slot being filled: different from thread to thread and from fill to fill,
  // so that threads, and cells taking turns in one slot, do not all start at the same place.
  static uint64_t FreshCursor();

 private:
  static constexpr size_t kSlots = 16;
};

}  // namespace ferry::loadbalance
