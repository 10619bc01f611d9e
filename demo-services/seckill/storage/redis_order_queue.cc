#include <hiredis.h>

#include "storage/redis_cache_replies.h"
#include "storage/redis_keys.h"
#include "storage/redis_reservation_cache.h"
#include "storage/redis_scripts.h"

// RedisReservationCache's order queue: the activity's stream read through the order writers'
// consumer group, its dead letters, its trimming and the re-drive lease.
namespace ferry::seckill {

using redis_cache::AppendEvents;
using storage::ErrorReplyStatus;
using storage::IsErrorReply;
using storage::IsTextReply;
using storage::MalformedReply;
using storage::RedisReplyPtr;
using storage::ReplyText;

namespace {

Status CheckEventArgs(const std::string& consumer, int max_count) {
  if (consumer.empty()) return Status(StatusCode::INVALID_ARGUMENT, "empty consumer name");
  if (max_count < 1) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "max_count must be at least 1, got " + std::to_string(max_count));
  }
  return Status::Ok();
}

}  // namespace

Status RedisReservationCache::RecreateGroup(const std::string& stream, bool* stream_exists) {
  RedisReplyPtr reply;
  if (Status status = pool_.Run({"XGROUP", "CREATE", stream, kOrderWritersGroup, "0"}, &reply);
      !status.ok()) {
    return status;
  }
  *stream_exists = true;
  if (reply->type != REDIS_REPLY_ERROR || IsErrorReply(reply.get(), "BUSYGROUP")) {
    return Status::Ok();
  }
  // Without MKSTREAM a missing stream is refused ("... requires the key to exist ...").
  RedisReplyPtr exists;
  if (Status status = Command({"EXISTS", stream}, &exists); !status.ok()) return status;
  if (exists->type == REDIS_REPLY_INTEGER && exists->integer == 0) {
    *stream_exists = false;
    return Status::Ok();
  }
  return ErrorReplyStatus("XGROUP CREATE", reply.get());
}

Status RedisReservationCache::ReadEvents(int64_t activity_id, int64_t sku_id,
                                         const std::string& consumer, int max_count,
                                         std::vector<ReservationEvent>* out) {
  if (Status status = CheckEventArgs(consumer, max_count); !status.ok()) return status;
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  const std::vector<std::string> command = {"XREADGROUP", "GROUP",     kOrderWritersGroup,
                                            consumer,     "COUNT",     std::to_string(max_count),
                                            "STREAMS",    keys.orders, ">"};
  out->clear();
  for (int attempt = 0;; ++attempt) {
    RedisReplyPtr reply;
    if (Status status = pool_.Run(command, &reply); !status.ok()) return status;
    const redisReply* r = reply.get();
    if (attempt == 0 && IsErrorReply(r, "NOGROUP")) {
      bool stream_exists = false;
      if (Status status = RecreateGroup(keys.orders, &stream_exists); !status.ok()) {
        return status;
      }
      if (!stream_exists) return Status::Ok();
      continue;
    }
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XREADGROUP", r);
    if (r->type == REDIS_REPLY_NIL) return Status::Ok();
    // [[stream, [entry, ...]]]
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 ||
        r->element[0]->type != REDIS_REPLY_ARRAY || r->element[0]->elements != 2 ||
        r->element[0]->element[1]->type != REDIS_REPLY_ARRAY) {
      return MalformedReply("XREADGROUP");
    }
    AppendEvents(r->element[0]->element[1], out);
    return Status::Ok();
  }
}

Status RedisReservationCache::ClaimStale(int64_t activity_id, int64_t sku_id,
                                         const std::string& consumer, int64_t min_idle_ms,
                                         int max_count, std::vector<ReservationEvent>* out) {
  if (Status status = CheckEventArgs(consumer, max_count); !status.ok()) return status;
  if (min_idle_ms < 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "min_idle_ms must not be negative, got " + std::to_string(min_idle_ms));
  }
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  out->clear();
  // XAUTOCLAIM looks at a bounded part of the pending list per call; follow its cursor until
  // max_count events are claimed or the whole list was scanned.
  std::string start = "0-0";
  size_t claimed = 0;
  do {
    RedisReplyPtr reply;
    if (Status status = pool_.Run(
            {"XAUTOCLAIM", keys.orders, kOrderWritersGroup, consumer, std::to_string(min_idle_ms),
             start, "COUNT", std::to_string(static_cast<size_t>(max_count) - claimed)},
            &reply);
        !status.ok()) {
      return status;
    }
    const redisReply* r = reply.get();
    if (IsErrorReply(r, "NOGROUP")) return Status::Ok();  // no group: nothing is pending
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XAUTOCLAIM", r);
    // Redis 7: [next start, [entry, ...], [deleted id, ...]]
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 2 || !IsTextReply(r->element[0]) ||
        r->element[1]->type != REDIS_REPLY_ARRAY) {
      return MalformedReply("XAUTOCLAIM");
    }
    start = std::string(ReplyText(r->element[0]));
    claimed += r->element[1]->elements;
    AppendEvents(r->element[1], out);
  } while (start != "0-0" && claimed < static_cast<size_t>(max_count));
  return ReadDeliveries(keys.orders, out);
}

Status RedisReservationCache::ReadDeliveries(const std::string& stream,
                                             std::vector<ReservationEvent>* events) {
  if (events->empty()) return Status::Ok();
  std::vector<std::vector<std::string>> commands;
  commands.reserve(events->size());
  for (const ReservationEvent& event : *events) {
    commands.push_back(
        {"XPENDING", stream, kOrderWritersGroup, event.event_id, event.event_id, "1"});
  }
  std::vector<RedisReplyPtr> replies;
  if (Status status = pool_.RunPipeline(commands, &replies); !status.ok()) return status;
  for (size_t i = 0; i < events->size() && i < replies.size(); ++i) {
    const redisReply* r = replies[i].get();
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XPENDING", r);
    // [[id, consumer, idle ms, deliveries]], or [] when it was acknowledged meanwhile.
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 1 &&
        r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements == 4 &&
        r->element[0]->element[3]->type == REDIS_REPLY_INTEGER) {
      (*events)[i].deliveries = r->element[0]->element[3]->integer;
    }
  }
  return Status::Ok();
}

Status RedisReservationCache::Ack(int64_t activity_id, int64_t sku_id,
                                  const std::vector<std::string>& event_ids) {
  if (event_ids.empty()) return Status::Ok();
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  std::vector<std::string> command = {"XACK", keys.orders, kOrderWritersGroup};
  command.insert(command.end(), event_ids.begin(), event_ids.end());
  RedisReplyPtr reply;
  if (Status status = pool_.Run(command, &reply); !status.ok()) return status;
  if (IsErrorReply(reply.get(), "NOGROUP")) return Status::Ok();  // nothing was pending
  if (reply->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XACK", reply.get());
  return Status::Ok();
}

Status RedisReservationCache::DeadLetter(int64_t activity_id, int64_t sku_id,
                                         const std::string& event_id, const std::string& reason,
                                         const std::string& detail, int64_t max_letters,
                                         bool* moved) {
  if (event_id.empty() || reason.empty()) {
    return Status(StatusCode::INVALID_ARGUMENT, "a dead letter needs an event id and a reason");
  }
  if (max_letters < 1) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "max_letters must be at least 1, got " + std::to_string(max_letters));
  }
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  RedisReplyPtr reply;
  if (Status status = scripts_.Eval(
          kDeadLetter, {keys.orders, keys.dead_letters},
          {kOrderWritersGroup, event_id, reason, detail, std::to_string(max_letters)}, &reply);
      !status.ok()) {
    return status;
  }
  if (reply->type != REDIS_REPLY_INTEGER) return MalformedReply("the dead_letter script");
  if (moved != nullptr) *moved = reply->integer == 1;
  return Status::Ok();
}

Status RedisReservationCache::TrimAcknowledged(int64_t activity_id, int64_t sku_id,
                                               int64_t* removed) {
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  RedisReplyPtr reply;
  if (Status status = scripts_.Eval(kTrim, {keys.orders}, {}, &reply); !status.ok()) {
    return status;
  }
  if (reply->type != REDIS_REPLY_INTEGER) return MalformedReply("the trim script");
  if (removed != nullptr) *removed = reply->integer;
  return Status::Ok();
}

Status RedisReservationCache::HoldRedriveLease(int64_t activity_id, int64_t sku_id,
                                               const std::string& holder, int64_t ttl_ms,
                                               bool* held) {
  if (holder.empty()) return Status(StatusCode::INVALID_ARGUMENT, "empty lease holder");
  if (ttl_ms < 1) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "ttl_ms must be at least 1, got " + std::to_string(ttl_ms));
  }
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  RedisReplyPtr reply;
  if (Status status =
          scripts_.Eval(kLease, {keys.redrive_lease}, {holder, std::to_string(ttl_ms)}, &reply);
      !status.ok()) {
    return status;
  }
  if (reply->type != REDIS_REPLY_INTEGER) return MalformedReply("the lease script");
  *held = reply->integer == 1;
  return Status::Ok();
}

Status RedisReservationCache::Requeue(const ReservationEvent& event) {
  if (event.user_id.empty() || event.request_id.empty()) {
    return Status(StatusCode::INVALID_ARGUMENT, "an event needs a user id and a request id");
  }
  const RedisActivityKeys keys = RedisActivityKeys::For(event.activity_id, event.sku_id);
  RedisReplyPtr reply;
  return Command(
      {"XADD", keys.orders, "*", "activity", std::to_string(event.activity_id), "sku",
       std::to_string(event.sku_id), "user", event.user_id, "request", event.request_id, "order_no",
       std::to_string(event.order_no), "reserved_ms", std::to_string(event.reserved_ms), "epoch",
       std::to_string(event.cache_epoch), "seq", std::to_string(event.cache_seq)},
      &reply);
}

Status RedisReservationCache::ListIdle(int64_t activity_id, int64_t sku_id, int64_t min_idle_ms,
                                       int max_count, std::vector<ReservationEvent>* out) {
  out->clear();
  if (max_count < 1) return Status(StatusCode::INVALID_ARGUMENT, "max_count must be at least 1");
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  RedisReplyPtr reply;
  if (Status status = pool_.Run({"XPENDING", keys.orders, kOrderWritersGroup, "IDLE",
                                 std::to_string(min_idle_ms), "-", "+", std::to_string(max_count)},
                                &reply);
      !status.ok()) {
    return status;
  }
  if (IsErrorReply(reply.get(), "NOGROUP")) return Status::Ok();  // nothing was delivered
  if (reply->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XPENDING", reply.get());
  if (reply->type != REDIS_REPLY_ARRAY) return MalformedReply("XPENDING");
  // [[id, consumer, idle ms, deliveries], ...]
  std::vector<std::vector<std::string>> ranges;
  std::vector<int64_t> deliveries;
  for (size_t i = 0; i < reply->elements; ++i) {
    const redisReply* entry = reply->element[i];
    if (entry->type != REDIS_REPLY_ARRAY || entry->elements != 4 ||
        !IsTextReply(entry->element[0]) || entry->element[3]->type != REDIS_REPLY_INTEGER) {
      return MalformedReply("XPENDING");
    }
    const std::string id(ReplyText(entry->element[0]));
    ranges.push_back({"XRANGE", keys.orders, id, id});
    deliveries.push_back(entry->element[3]->integer);
  }
  if (ranges.empty()) return Status::Ok();
  std::vector<RedisReplyPtr> entries;
  if (Status status = pool_.RunPipeline(ranges, &entries); !status.ok()) return status;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i]->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XRANGE", entries[i].get());
    if (entries[i]->type != REDIS_REPLY_ARRAY) return MalformedReply("XRANGE");
    const size_t before = out->size();
    AppendEvents(entries[i].get(), out);
    for (size_t j = before; j < out->size(); ++j) (*out)[j].deliveries = deliveries[i];
  }
  return Status::Ok();
}

}  // namespace ferry::seckill
