#include "service/dead_letters.h"

#include <hiredis.h>

#include "storage/like_clock.h"
#include "storage/redis_like_keys.h"

namespace ferry::like {

Status Redrive(LikeCore& core, uint32_t limit, bool never_redriven,
               RedriveDeadLettersResponse* out) {
  out->Clear();
  if (core.redis == nullptr || core.outbox_relayed) {
    // Only redis-first's event writers keep dead letters.
    int64_t remaining = 0;
    if (Status s = core.database->CountDeadLetters(&remaining); !s.ok()) return s;
    out->set_remaining(remaining);
    return Status::Ok();
  }
  std::vector<DeadLetter> letters;
  if (Status s = core.database->ListDeadLetters(limit, never_redriven, &letters); !s.ok()) {
    return s;
  }
  const int64_t horizon_us = (UnixMs() - core.horizon_ms) * 1000;
  for (const DeadLetter& d : letters) {
    const LikeEvent& e = d.event;
    if (e.content_id <= 0 || e.user_id.empty() || e.version <= 0) {
      out->set_skipped(out->skipped() + 1);
      out->add_skipped_reasons(e.stream + " " + e.entry_id + ": not a change (" + d.reason + ")");
      continue;
    }
    if (e.version < horizon_us) {
      out->set_skipped(out->skipped() + 1);
      out->add_skipped_reasons(e.stream + " " + e.entry_id +
                               ": older than the tombstone horizon; reconcile content " +
                               std::to_string(e.content_id) + " instead");
      continue;
    }
    const uint32_t partition = PartitionOf(e.content_id, e.bucket, core.redis->partitions());
    storage::RedisReplyPtr reply;
    if (Status s = core.redis->pool().Run(
            {"XADD", PartitionKeys::For(partition).stream, "*", "c", std::to_string(e.content_id),
             "u", e.user_id, "l", e.liked ? "1" : "0", "v", std::to_string(e.version), "b",
             std::to_string(e.bucket), "r", std::to_string(e.redrives + 1)},
            &reply);
        !s.ok()) {
      return s;
    }
    if (reply->type == REDIS_REPLY_ERROR) return storage::ErrorReplyStatus("XADD", reply.get());
    if (Status s = core.database->DeleteDeadLetter(e); !s.ok()) return s;
    out->set_redriven(out->redriven() + 1);
  }
  int64_t remaining = 0;
  if (Status s = core.database->CountDeadLetters(&remaining); !s.ok()) return s;
  out->set_remaining(remaining);
  return Status::Ok();
}

}  // namespace ferry::like
