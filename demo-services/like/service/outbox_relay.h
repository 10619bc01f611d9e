#pragma once

#include <cstdint>

#include "storage/like_database.h"
#include "storage/redis_like_store.h"

namespace ferry::like {

// Database-first: carries committed changes from the outbox table into the Redis buckets, in
// commit order, each applied only if newer than what its bucket holds, and deletes the rows
// once Redis has them. Several relays (one per provider) may run: a change applied twice is
// recognised by its version.
class OutboxRelay {
 public:
  OutboxRelay(LikeDatabase* database, RedisLikeStore* cache, uint32_t batch)
      : database_(database), cache_(cache), batch_(batch) {}

  // One batch; *relayed gets how many rows it carried. True: a full batch (more may wait).
  Status Step(size_t* relayed);
  // Steps until the outbox is empty (tests; a draining provider).
  Status Drain();

 private:
  LikeDatabase* const database_;
  RedisLikeStore* const cache_;
  const uint32_t batch_;
};

}  // namespace ferry::like
