#include "service/outbox_relay.h"
#include "storage/like_clock.h"

#include <hiredis.h>

#include <chrono>

#include "storage/redis_like_scripts.h"

namespace ferry::like {

using storage::RedisReplyPtr;

OutboxRelay::OutboxRelay(LikeDatabase* database, RedisLikeStore* cache, RedisPartitionLog* log,
                         std::string holder, uint32_t batch, int64_t lease_ms)
    : database_(database), cache_(cache), batch_(batch) {
  if (log != nullptr) {
    leases_ = std::make_unique<PartitionLeases>(log, &cache->pool(), std::move(holder), lease_ms);
  }
}

std::vector<uint32_t> OutboxRelay::Owned() const {
  if (!leases_) {
    std::vector<uint32_t> all(database_->partitions());
    for (uint32_t p = 0; p < all.size(); ++p) all[p] = p;
    return all;
  }
  return std::vector<uint32_t>(leases_->held().begin(), leases_->held().end());
}

Status OutboxRelay::RelayPartition(uint32_t partition, size_t* relayed) {
  *relayed = 0;
  std::vector<LikeEvent> changes;
  if (Status s = database_->ReadOutbox(partition, batch_, &changes); !s.ok()) return s;
  if (changes.empty()) return Status::Ok();
  if (cache_ != nullptr) {
    std::vector<storage::RedisScriptSet::Call> calls;
    for (const LikeEvent& c : changes) {
      const BucketKeys keys = cache_->KeysOf(c.content_id, c.bucket);
      const PartitionKeys p = keys.partition_keys();
      calls.push_back({.index = kApplyChange,
                       .keys = {keys.members, keys.count, keys.versions, keys.ready, p.generation,
                                p.tombstones},
                       .args = {c.user_id, c.liked ? "1" : "0", std::to_string(c.version),
                                TombstoneMember(c.content_id, c.bucket, c.user_id), "newer"}});
    }
    // Applied, older than what the bucket holds, or not loaded (its load reads the record,
    // which has the change): each row is done with.
    std::vector<RedisReplyPtr> replies;
    if (Status s = cache_->EvalInGeneration(calls, &replies); !s.ok()) return s;
  }
  Status done = database_->RelayDone(partition, changes);
  // Another relay moved some of these rows to the feed first (a relay that lost its lease
  // without knowing yet, or a drain next to the running relay): they are done.
  if (done.code() == StatusCode::FAILED_PRECONDITION) return Status::Ok();
  if (!done.ok()) return done;
  *relayed = changes.size();
  return Status::Ok();
}

Status OutboxRelay::Step(size_t* relayed) {
  *relayed = 0;
  if (leases_) {
    const int64_t now = SteadyMs();
    if (now >= next_lease_ms_) {
      next_lease_ms_ = now + std::max<int64_t>(leases_->ttl_ms() / 3, 1);
      std::vector<uint32_t> gained;
      std::vector<uint32_t> lost;
      if (Status s = leases_->Keep(false, &gained, &lost); !s.ok()) return s;
    }
  }
  Status first_failure;
  for (uint32_t p : Owned()) {
    size_t n = 0;
    Status s = RelayPartition(p, &n);
    if (!s.ok() && first_failure.ok()) first_failure = s;
    *relayed += n;
  }
  return first_failure;
}

Status OutboxRelay::Drain() {
  if (leases_) {
    std::vector<uint32_t> gained;
    std::vector<uint32_t> lost;
    if (Status s = leases_->Keep(true, &gained, &lost); !s.ok()) return s;
    next_lease_ms_ = SteadyMs() + std::max<int64_t>(leases_->ttl_ms() / 3, 1);
  }
  Status result;
  while (true) {
    size_t relayed = 0;
    result = Step(&relayed);
    if (!result.ok() || relayed == 0) break;
  }
  Stop();
  return result;
}

void OutboxRelay::Stop() {
  // Leases not given back expire: another relay takes their partitions a lease term later.
  if (leases_) static_cast<void>(leases_->ReleaseAll());
}

}  // namespace ferry::like
