#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_connection_pool.h"
#include "storage/redis_partition_log.h"

namespace ferry::like {

// The partitions one holder (an event writer, or a database-first relay) owns, each by a lease
// in its own slot that the holder renews and that expires when the holder dies. Holders share
// the partitions fairly: each says it is alive in `like:holders` (a sorted set by expiry,
// written once per renewal, never on a change's path), takes free partitions up to its share
// (the partitions divided by the live holders) and gives back what it holds beyond it.
class PartitionLeases {
 public:
  // `log` and `pool` must outlive the leases.
  PartitionLeases(RedisPartitionLog* log, storage::RedisConnectionPool* pool, std::string holder,
                  int64_t ttl_ms)
      : log_(log), pool_(pool), holder_(std::move(holder)), ttl_ms_(ttl_ms) {}

  // Renews what is held, drops what was lost, takes free partitions up to the share (every
  // free one with `take_all`) and gives back the excess. *gained and *lost: what changed.
  Status Keep(bool take_all, std::vector<uint32_t>* gained, std::vector<uint32_t>* lost);
  // Forgets a partition its record says another holder moved on (without releasing it).
  void Drop(uint32_t partition) { held_.erase(partition); }
  // Gives every lease back (a stopping process), so others need not wait for them to expire.
  Status ReleaseAll();

  const std::set<uint32_t>& held() const { return held_; }
  const std::string& holder() const { return holder_; }
  int64_t ttl_ms() const { return ttl_ms_; }

 private:
  // The holders alive now, this one included.
  Status LiveHolders(int64_t* live);

  RedisPartitionLog* const log_;
  storage::RedisConnectionPool* const pool_;
  const std::string holder_;
  const int64_t ttl_ms_;
  std::set<uint32_t> held_;
  uint32_t next_ = 0;  // where the search for free partitions starts, round robin
};

}  // namespace ferry::like
