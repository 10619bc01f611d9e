#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "storage/like_database.h"
#include "storage/partition_leases.h"
#include "storage/redis_like_store.h"
#include "storage/redis_partition_log.h"

namespace ferry::like {

// Database-first and embedded: moves committed changes from the outbox to the change feed, per
// partition in commit order, after bringing each into its Redis bucket (database-first) if
// newer than what the bucket holds. On database-first a partition is relayed by the one
// provider holding its lease (PartitionLeases), so adding providers spreads the work rather
// than repeating it; embedded has one process and relays every partition itself.
class OutboxRelay {
 public:
  // `cache` and `log` are null on embedded (no Redis).
  OutboxRelay(LikeDatabase* database, RedisLikeStore* cache, RedisPartitionLog* log,
              std::string holder, uint32_t batch, int64_t lease_ms);

  // Keeps the leases when due and relays one batch of each owned partition; *relayed gets how
  // many rows it carried. True: some partition had a full batch (more may wait).
  Status Step(size_t* relayed);
  // Takes every free partition and relays until the outbox is empty (tests; a draining
  // provider), then gives the leases back.
  Status Drain();
  void Stop();

 private:
  Status RelayPartition(uint32_t partition, size_t* relayed);
  std::vector<uint32_t> Owned() const;

  LikeDatabase* const database_;
  RedisLikeStore* const cache_;
  const uint32_t batch_;
  std::unique_ptr<PartitionLeases> leases_;  // null on embedded
  int64_t next_lease_ms_ = 0;
};

}  // namespace ferry::like
