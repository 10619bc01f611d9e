#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/like_event.h"

namespace ferry::like {

// One entry of a partition's stream: the change it carries, or (parsed false) an entry that is
// not one the scripts write.
struct StreamEntry {
  std::string id;
  bool parsed = false;
  LikeEvent event;
};

// The partitions' streams and their owners on Redis: each partition's stream is read by the one
// process that holds its lease, from the record's checkpoint, so no consumer group, delivery
// count or registry of streams is needed and a read costs the same however many buckets exist.
class RedisPartitionLog {
 public:
  // `pool` and `scripts` (LikeScripts()) must outlive the log.
  RedisPartitionLog(storage::RedisConnectionPool* pool, storage::RedisScriptSet* scripts,
                    uint32_t partitions)
      : pool_(pool), scripts_(scripts), partitions_(partitions) {}

  uint32_t partitions() const { return partitions_; }

  // Takes the free ones of `wanted` for `holder` for `ttl_ms` (SET NX PX); *taken gets them.
  Status Acquire(const std::string& holder, int64_t ttl_ms, const std::vector<uint32_t>& wanted,
                 std::vector<uint32_t>* taken);
  // Renews `held`; *lost gets those another holder has (or that expired).
  Status Renew(const std::string& holder, int64_t ttl_ms, const std::set<uint32_t>& held,
               std::vector<uint32_t>* lost);
  Status Release(const std::string& holder, const std::set<uint32_t>& held);

  // Each partition's generation (0 when its key is missing: a flush).
  Status Generations(const std::set<uint32_t>& partitions, std::map<uint32_t, int64_t>* out);
  // At most `count` entries of each partition after its id, in one read.
  Status Read(const std::map<uint32_t, std::string>& after, int count,
              std::map<uint32_t, std::vector<StreamEntry>>* out);
  // Drops the partition's entries before `min_id` (XTRIM MINID).
  Status Trim(uint32_t partition, const std::string& min_id);
  // The id of each partition's last entry ("0-0" when empty).
  Status LastIds(const std::vector<uint32_t>& partitions, std::map<uint32_t, std::string>* out);
  // Drops at most `limit` of the partition's tombstones older than `before_version`, which the
  // record holds; *dropped gets how many.
  Status TrimTombstones(uint32_t partition, int64_t before_version, uint32_t limit,
                        int64_t* dropped);

 private:
  storage::RedisConnectionPool* const pool_;
  storage::RedisScriptSet* const scripts_;
  const uint32_t partitions_;
};

// "<ms>-<seq>" stream ids in stream order.
bool StreamIdBefore(std::string_view a, std::string_view b);

}  // namespace ferry::like
