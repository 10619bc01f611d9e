#include "service/event_writer.h"

#include "storage/like_clock.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>

#include "ferry/framework/logging.h"
#include "ferry/storage/transient_failure.h"

#include <spdlog/spdlog.h>

namespace ferry::like {

namespace {

// The milliseconds part of a stream id.
int64_t IdMs(std::string_view id) {
  int64_t ms = 0;
  std::from_chars(id.data(), id.data() + id.size(), ms);
  return ms;
}

// The first id after `id` ("<ms>-<seq + 1>").
std::string NextId(std::string_view id) {
  const size_t dash = id.find('-');
  uint64_t seq = 0;
  if (dash != std::string_view::npos) {
    std::from_chars(id.data() + dash + 1, id.data() + id.size(), seq);
  }
  return std::string(id.substr(0, dash)) + "-" + std::to_string(seq + 1);
}

// How often the generations of owned partitions are read again without a change seen.
constexpr int64_t kGenerationRefreshMs = 1000;
// Tombstones one partition drops per step at most.
constexpr uint32_t kTombstonesPerStep = 500;
// Partitions whose stream and tombstones one step trims at most.
constexpr int kMaintainedPerStep = 4;

}  // namespace

bool Retryable(const Status& status) {
  return storage::IsTransientFailure(status) || status.code() == StatusCode::ALREADY_EXISTS;
}

EventWriter::EventWriter(RedisPartitionLog* log, storage::RedisConnectionPool* pool,
                         LikeDatabase* database, storage::RedisGeneration* generation,
                         EventWriterOptions options)
    : log_(log),
      database_(database),
      generation_(generation),
      options_(std::move(options)),
      leases_(log, pool, options_.holder, options_.lease_ms) {}

int64_t EventWriter::Horizon() const { return (UnixMs() - options_.horizon_ms) * 1000; }

std::string EventWriter::ReadFrom(const Owned& owned) const {
  return owned.checkpoint.generation == owned.generation ? owned.checkpoint.last_id : "0-0";
}

Status EventWriter::Adopt(uint32_t partition) {
  Owned owned;
  if (Status s = database_->Checkpoint(partition, &owned.checkpoint); !s.ok()) return s;
  std::map<uint32_t, int64_t> generations;
  if (Status s = log_->Generations({partition}, &generations); !s.ok()) return s;
  owned.generation = generations[partition];
  owned_[partition] = std::move(owned);
  return Status::Ok();
}

Status EventWriter::KeepLeases(bool take_all) {
  std::vector<uint32_t> gained;
  std::vector<uint32_t> lost;
  if (Status s = leases_.Keep(take_all, &gained, &lost); !s.ok()) return s;
  for (uint32_t p : lost) owned_.erase(p);
  for (uint32_t p : gained) {
    if (Status s = Adopt(p); !s.ok()) {
      leases_.Drop(p);  // taken again once the record answers; the lease expires meanwhile
      return s;
    }
  }
  return Status::Ok();
}

Status EventWriter::RefreshGenerations() {
  std::set<uint32_t> partitions;
  for (const auto& [p, owned] : owned_) partitions.insert(p);
  std::map<uint32_t, int64_t> generations;
  if (Status s = log_->Generations(partitions, &generations); !s.ok()) return s;
  for (auto& [p, owned] : owned_) {
    if (generations[p] == 0) {
      // The keys were flushed: a check makes new ones, read next time.
      continue;
    }
    owned.generation = generations[p];
  }
  return Status::Ok();
}

Status EventWriter::ReadAndApply(bool* full, size_t* read) {
  *full = false;
  *read = 0;
  std::map<uint32_t, std::string> after;
  for (const auto& [p, owned] : owned_) {
    if (owned.generation != 0) after[p] = ReadFrom(owned);
  }
  std::map<uint32_t, std::vector<StreamEntry>> entries;
  if (Status s = log_->Read(after, options_.batch, &entries); !s.ok()) return s;
  for (const auto& [p, from] : after) owned_[p].caught_up = entries[p].empty();
  std::vector<PartitionBatch> batches;
  for (auto& [p, list] : entries) {
    if (list.empty()) continue;
    *read += list.size();
    *full = *full || list.size() >= static_cast<size_t>(options_.batch);
    const Owned& owned = owned_[p];
    PartitionBatch batch{.partition = p,
                         .from = owned.checkpoint,
                         .generation = owned.generation,
                         .last_id = list.back().id};
    for (StreamEntry& e : list) {
      if (e.parsed) {
        batch.events.push_back(e.event);
      } else {
        // Not an entry the scripts write: kept for a person to look at, out of the way.
        batch.dead.push_back({.event = {.stream = e.event.stream, .entry_id = e.id},
                              .reason = "malformed stream entry"});
      }
    }
    batches.push_back(std::move(batch));
  }
  if (batches.empty()) return Status::Ok();
  std::map<uint32_t, PartitionCheckpoint> moved;
  const Status s = database_->ApplyPartitions(batches, Horizon(), &moved);
  if (s.ok()) {
    for (const auto& [p, checkpoint] : moved) owned_[p].checkpoint = checkpoint;
    return Status::Ok();
  }
  if (s.code() == StatusCode::FAILED_PRECONDITION) {
    // Fenced: another writer moved a partition on. Its record says where; re-read them all.
    for (const PartitionBatch& b : batches) {
      if (Status a = Adopt(b.partition); !a.ok()) return a;
    }
    return s;
  }
  if (Retryable(s)) return s;
  // Something in the batch the database refuses: each entry alone, so that only it waits.
  for (auto& [p, list] : entries) ApplyOneByOne(p, list);
  return s;
}

Status EventWriter::ApplyOne(uint32_t partition, const StreamEntry& entry,
                             const std::string& dead_reason) {
  Owned& owned = owned_[partition];
  PartitionBatch batch{.partition = partition,
                       .from = owned.checkpoint,
                       .generation = owned.generation,
                       .last_id = entry.id};
  if (!dead_reason.empty() || !entry.parsed) {
    LikeEvent event = entry.event;
    event.entry_id = entry.id;
    batch.dead.push_back(
        {.event = event, .reason = entry.parsed ? dead_reason : "malformed stream entry"});
  } else {
    batch.events.push_back(entry.event);
  }
  std::map<uint32_t, PartitionCheckpoint> moved;
  if (Status s = database_->ApplyPartitions({batch}, Horizon(), &moved); !s.ok()) return s;
  owned.checkpoint = moved[partition];
  return Status::Ok();
}

void EventWriter::ApplyOneByOne(uint32_t partition, const std::vector<StreamEntry>& entries) {
  for (const StreamEntry& entry : entries) {
    if (owned_.count(partition) == 0) return;
    const Status s = ApplyOne(partition, entry, "");
    if (s.ok()) continue;
    if (Retryable(s) || s.code() == StatusCode::FAILED_PRECONDITION) return;
    int64_t& failures = owned_[partition].failures[entry.id];
    ++failures;
    Logger().warn("like events: entry {} of partition {} failed ({} of {}): {}", entry.id,
                  partition, failures, options_.max_failures, s.ToString());
    if (failures < options_.max_failures) return;  // tried again on a later step
    if (ApplyOne(partition, entry, "failed " + std::to_string(failures) + " times: " + s.ToString())
            .ok()) {
      Logger().error("like events: entry {} of partition {} dead-lettered: {}", entry.id, partition,
                     s.ToString());
      owned_[partition].failures.erase(entry.id);
      continue;
    }
    return;
  }
}

void EventWriter::Maintain(uint32_t partition, Owned& owned, int64_t now_ms) {
  if (now_ms < owned.next_trim_ms || owned.checkpoint.generation != owned.generation) return;
  owned.next_trim_ms = now_ms + 1000;
  // The record holds everything up to its checkpoint; entries younger than the lag stay for
  // reconciliation's reads.
  std::string min_id = NextId(owned.checkpoint.last_id);
  const std::string by_age = std::to_string(UnixMs() - options_.trim_lag_ms) + "-0";
  if (StreamIdBefore(by_age, min_id)) min_id = by_age;
  if (Status s = log_->Trim(partition, min_id); !s.ok()) {
    Logger().warn("like events: trimming partition {}: {}", partition, s.ToString());
  }
  // Every tombstone of the partition is in the record once nothing follows the checkpoint;
  // otherwise those of changes before the checkpoint's millisecond are.
  const int64_t persisted_us = owned.caught_up ? INT64_MAX : IdMs(owned.checkpoint.last_id) * 1000;
  const int64_t old_us = (UnixMs() - options_.tombstone_keep_ms) * 1000;
  int64_t dropped = 0;
  if (Status s = log_->TrimTombstones(partition, std::min(persisted_us, old_us), kTombstonesPerStep,
                                      &dropped);
      !s.ok()) {
    Logger().warn("like events: tombstones of partition {}: {}", partition, s.ToString());
  }
}

bool EventWriter::Step() {
  const int64_t now = SteadyMs();
  if (now >= next_lease_ms_) {
    next_lease_ms_ = now + std::max<int64_t>(options_.lease_ms / 3, 1);
    if (Status s = KeepLeases(false); !s.ok()) {
      Logger().warn("like events: leases: {}", s.ToString());
    }
  }
  if (generation_->changes() != seen_changes_ || now >= next_generation_ms_) {
    seen_changes_ = generation_->changes();
    next_generation_ms_ = now + kGenerationRefreshMs;
    if (Status s = RefreshGenerations(); !s.ok()) {
      Logger().warn("like events: generations: {}", s.ToString());
      return false;
    }
  }
  bool full = false;
  size_t read = 0;
  if (Status s = ReadAndApply(&full, &read); !s.ok()) {
    Logger().warn("like events: {}", s.ToString());
    return false;
  }
  // A few partitions' upkeep per step, in turn, so that no step's cost grows with the
  // partitions a writer holds.
  auto it = owned_.lower_bound(next_maintained_);
  for (int n = 0; n < kMaintainedPerStep && !owned_.empty(); ++n) {
    if (it == owned_.end()) it = owned_.begin();
    Maintain(it->first, it->second, now);
    next_maintained_ = it->first + 1;
    ++it;
  }
  return full;
}

Status EventWriter::Drain() {
  if (Status s = KeepLeases(true); !s.ok()) return s;
  if (Status s = RefreshGenerations(); !s.ok()) return s;
  Status result;
  while (true) {
    bool full = false;
    size_t read = 0;
    result = ReadAndApply(&full, &read);
    if (!result.ok() || read == 0) break;
  }
  Stop();
  return result;
}

void EventWriter::Stop() {
  if (Status s = leases_.ReleaseAll(); !s.ok()) {
    Logger().warn("like events: releasing leases: {}", s.ToString());
  }
  owned_.clear();
}

}  // namespace ferry::like
