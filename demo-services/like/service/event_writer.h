#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ferry/storage/redis_generation.h"
#include "storage/like_database.h"
#include "storage/partition_leases.h"
#include "storage/redis_partition_log.h"

namespace ferry::like {

struct EventWriterOptions {
  std::string holder;  // unique per writer and process
  int batch = 256;     // entries read per partition and step
  int64_t lease_ms = 3000;
  // An entry whose apply failed this often for a reason retrying cannot fix (alone, not with
  // its batch) is dead-lettered. Unavailable databases, timeouts, deadlocks never count.
  int64_t max_failures = 3;
  // Entries the record holds stay in the stream this long (reconciliation reads the changes
  // after a checkpoint, which must still be there when it looks).
  int64_t trim_lag_ms = 10000;
  // Redis drops a tombstone (an unliked pair's version) the record holds once it is this old.
  int64_t tombstone_keep_ms = 3600000;
  // A change older than this for a pair without a row is not applied: the record drops
  // tombstones this old (tombstones.database_keep_ms).
  int64_t horizon_ms = 7LL * 24 * 3600 * 1000;
};

// The owner of some partitions (PartitionLeases): reads each owned partition's stream from the
// record's checkpoint and applies what it finds in one database transaction per step, which
// also moves the checkpoints, appends the applied changes to the feed and keeps dead letters,
// so every entry reaches the record exactly once whoever wrote it and whatever crashed.
// A retryable failure (the database down, a deadlock, a timeout) is retried, never counted
// toward dead-lettering: the partition waits, and so do its changes, in Redis.
class EventWriter {
 public:
  EventWriter(RedisPartitionLog* log, storage::RedisConnectionPool* pool, LikeDatabase* database,
              storage::RedisGeneration* generation, EventWriterOptions options);

  // Keeps the leases when due, reads every owned partition once and applies it. True when a
  // partition gave a full batch: more is waiting.
  bool Step();
  // Takes every free partition and applies until none has anything new (tests; a draining
  // provider), then gives the leases back.
  Status Drain();
  // Gives the leases back.
  void Stop();

  const std::set<uint32_t>& held() const { return leases_.held(); }

 private:
  struct Owned {
    PartitionCheckpoint checkpoint;           // as the record has it
    int64_t generation = 0;                   // of the partition's Redis keys now
    std::map<std::string, int64_t> failures;  // entry -> permanent failures
    int64_t next_trim_ms = 0;
    bool caught_up = false;  // the last read found nothing after the checkpoint
  };

  Status KeepLeases(bool take_all);
  Status Adopt(uint32_t partition);
  Status RefreshGenerations();
  // Reads and applies once; *full: some partition gave a full batch, *read: entries read.
  Status ReadAndApply(bool* full, size_t* read);
  // After a batch failed for a reason retrying cannot fix: each entry alone, in order.
  void ApplyOneByOne(uint32_t partition, const std::vector<StreamEntry>& entries);
  Status ApplyOne(uint32_t partition, const StreamEntry& entry, const std::string& dead_reason);
  // The reading position: the checkpoint if it is of the keys' generation, else the start.
  std::string ReadFrom(const Owned& owned) const;
  void Maintain(uint32_t partition, Owned& owned, int64_t now_ms);
  int64_t Horizon() const;

  RedisPartitionLog* const log_;
  LikeDatabase* const database_;
  storage::RedisGeneration* const generation_;
  const EventWriterOptions options_;
  PartitionLeases leases_;
  std::map<uint32_t, Owned> owned_;
  int64_t next_lease_ms_ = 0;
  int64_t next_generation_ms_ = 0;
  uint64_t seen_changes_ = 0;
  uint32_t next_maintained_ = 0;  // the partition whose upkeep is next
};

// A status a later attempt may not meet: the database or Redis unreachable, a deadlock, a
// timeout, a unique key a concurrent writer won.
bool Retryable(const Status& status);

}  // namespace ferry::like
