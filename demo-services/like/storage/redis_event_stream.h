#pragma once

#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_connection_pool.h"
#include "storage/like_event.h"

namespace ferry::like {

// The bucket streams as the event writers' consumer group sees them. An entry is delivered to
// one consumer, stays pending until acknowledged (after its database commit), and is then
// deleted, so a stream holds exactly the changes not yet persisted.
class RedisEventStream {
 public:
  explicit RedisEventStream(storage::RedisConnectionPool* pool) : pool_(pool) {}

  // New entries of every registered stream, at most `max_count` per stream.
  Status Read(const std::string& consumer, int max_count, std::vector<LikeEvent>* out);
  // Entries pending for longer than `min_idle_ms` with any consumer (a dead one's, or this
  // one's own that failed), now this consumer's; each with its delivery count.
  Status Claim(const std::string& consumer, int64_t min_idle_ms, int max_count,
               std::vector<LikeEvent>* out);
  // Acknowledges and deletes the entries.
  Status Ack(const std::vector<LikeEvent>& events);

 private:
  Status Streams(std::vector<std::string>* out);

  storage::RedisConnectionPool* const pool_;
};

}  // namespace ferry::like
