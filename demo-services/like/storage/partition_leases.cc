#include "storage/partition_leases.h"
#include "storage/like_clock.h"

#include <hiredis.h>

#include <chrono>

#include "storage/redis_like_keys.h"

namespace ferry::like {

using storage::ErrorReplyStatus;
using storage::RedisReplyPtr;
using storage::ReplyInt;

namespace {

// Written when a holder renews, outside any partition's slot: one small sorted set a few
// commands a second, whatever the traffic.
constexpr char kHolders[] = "like:holders";

}  // namespace

Status PartitionLeases::LiveHolders(int64_t* live) {
  const int64_t now = UnixMs();
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline({{"ZADD", kHolders, std::to_string(now + ttl_ms_), holder_},
                                     {"ZREMRANGEBYSCORE", kHolders, "-inf", std::to_string(now)},
                                     {"ZCARD", kHolders}},
                                    &replies);
      !s.ok()) {
    return s;
  }
  for (const RedisReplyPtr& r : replies) {
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("ZADD", r.get());
  }
  if (!ReplyInt(replies[2].get(), live) || *live < 1) *live = 1;
  return Status::Ok();
}

Status PartitionLeases::Keep(bool take_all, std::vector<uint32_t>* gained,
                             std::vector<uint32_t>* lost) {
  gained->clear();
  lost->clear();
  if (Status s = log_->Renew(holder_, ttl_ms_, held_, lost); !s.ok()) return s;
  for (uint32_t p : *lost) held_.erase(p);
  const uint32_t partitions = log_->partitions();
  int64_t live = 1;
  if (Status s = LiveHolders(&live); !s.ok()) return s;
  const size_t share =
      take_all ? partitions
               : (partitions + static_cast<uint32_t>(live) - 1) / static_cast<uint32_t>(live);
  if (held_.size() > share) {
    // The excess back, highest first, for the holders that came up to take.
    std::set<uint32_t> excess;
    while (held_.size() > share) {
      excess.insert(*held_.rbegin());
      held_.erase(std::prev(held_.end()));
    }
    lost->insert(lost->end(), excess.begin(), excess.end());
    return log_->Release(holder_, excess);
  }
  if (held_.size() >= share) return Status::Ok();
  // Which of the others are free, then as many of those as the share leaves room for,
  // starting somewhere else each time so that holders starting together spread out.
  std::vector<uint32_t> others;
  std::vector<std::vector<std::string>> exists;
  for (uint32_t i = 0; i < partitions; ++i) {
    const uint32_t p = (next_ + i) % partitions;
    if (held_.count(p) != 0) continue;
    others.push_back(p);
    exists.push_back({"EXISTS", PartitionKeys::For(p).owner});
  }
  next_ = (next_ + 7) % partitions;
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(exists, &replies); !s.ok()) return s;
  std::vector<uint32_t> wanted;
  for (size_t i = 0; i < others.size() && held_.size() + wanted.size() < share; ++i) {
    if (replies[i]->type == REDIS_REPLY_INTEGER && replies[i]->integer == 0) {
      wanted.push_back(others[i]);
    }
  }
  if (Status s = log_->Acquire(holder_, ttl_ms_, wanted, gained); !s.ok()) return s;
  held_.insert(gained->begin(), gained->end());
  return Status::Ok();
}

Status PartitionLeases::ReleaseAll() {
  Status s = log_->Release(holder_, held_);
  held_.clear();
  RedisReplyPtr reply;
  // Best effort: a holder that stays listed drops out once its score, its lease's end, passes.
  static_cast<void>(pool_->Run({"ZREM", kHolders, holder_}, &reply));
  return s;
}

}  // namespace ferry::like
