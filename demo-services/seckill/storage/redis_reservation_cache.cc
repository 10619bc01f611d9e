#include "storage/redis_reservation_cache.h"

#include <hiredis.h>

#include <algorithm>
#include <charconv>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "storage/redis_keys.h"
#include "storage/redis_scripts.h"

namespace ferry::seckill {

using storage::ErrorReplyStatus;
using storage::IsErrorReply;
using storage::IsTextReply;
using storage::MalformedReply;
using storage::RedisOptions;
using storage::RedisReplyPtr;
using storage::ReplyText;

namespace {

constexpr int kScanPage = 1000;

bool ParseInt64(std::string_view text, int64_t* value) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end;
}

// A stream entry [id, [field, value, ...]] written by the reserve script or Requeue. False when
// it is not even that (no id); otherwise *event has its id and, when it is not a readable
// event, `malformed` says why (with the user and request id when it names them).
bool ParseEvent(const redisReply* entry, ReservationEvent* event) {
  if (entry == nullptr || entry->type != REDIS_REPLY_ARRAY || entry->elements != 2 ||
      !IsTextReply(entry->element[0])) {
    return false;
  }
  ReservationEvent parsed;
  parsed.event_id = std::string(ReplyText(entry->element[0]));
  const redisReply* fields = entry->element[1];
  if (fields == nullptr || fields->type != REDIS_REPLY_ARRAY || fields->elements % 2 != 0) {
    parsed.malformed = "the entry has no field list";
    *event = std::move(parsed);
    return true;
  }
  unsigned seen = 0;
  for (size_t i = 0; i < fields->elements; i += 2) {
    if (!IsTextReply(fields->element[i]) || !IsTextReply(fields->element[i + 1])) {
      parsed.malformed = "a field is not text";
      break;
    }
    const std::string_view name = ReplyText(fields->element[i]);
    const std::string_view value = ReplyText(fields->element[i + 1]);
    bool ok = true;
    if (name == "activity") {
      ok = ParseInt64(value, &parsed.activity_id);
      seen |= 1u;
    } else if (name == "sku") {
      ok = ParseInt64(value, &parsed.sku_id);
      seen |= 2u;
    } else if (name == "user") {
      parsed.user_id = std::string(value);
      seen |= 4u;
    } else if (name == "request") {
      parsed.request_id = std::string(value);
      seen |= 8u;
    } else if (name == "order_no") {
      ok = ParseInt64(value, &parsed.order_no);
      seen |= 16u;
    } else if (name == "reserved_ms") {
      ok = ParseInt64(value, &parsed.reserved_ms);
      seen |= 32u;
    } else if (name == "epoch") {  // absent from events re-queued by the reconciler
      ok = ParseInt64(value, &parsed.cache_epoch);
    } else if (name == "seq") {
      ok = ParseInt64(value, &parsed.cache_seq);
    }
    if (!ok && parsed.malformed.empty()) {
      parsed.malformed = "field " + std::string(name) + " is not an integer";
    }
  }
  if (parsed.malformed.empty() && seen != 63u) {
    parsed.malformed = "the entry lacks fields of an order event";
  }
  *event = std::move(parsed);
  return true;
}

// Appends every entry, readable or not (`malformed` set).
void AppendEvents(const redisReply* entries, std::vector<ReservationEvent>* out) {
  for (size_t i = 0; i < entries->elements; ++i) {
    ReservationEvent event;
    if (ParseEvent(entries->element[i], &event)) out->push_back(std::move(event));
  }
}

// "A:<order_no>:<reserved_ms>:<user>" (the user may contain ':').
bool ParseAcceptedAnswer(std::string_view value, ReservationEvent* event) {
  if (value.substr(0, 2) != "A:") return false;
  value.remove_prefix(2);
  const size_t order_end = value.find(':');
  if (order_end == std::string_view::npos) return false;
  const size_t time_end = value.find(':', order_end + 1);
  if (time_end == std::string_view::npos) return false;
  if (!ParseInt64(value.substr(0, order_end), &event->order_no) ||
      !ParseInt64(value.substr(order_end + 1, time_end - order_end - 1), &event->reserved_ms)) {
    return false;
  }
  event->user_id = std::string(value.substr(time_end + 1));
  return true;
}

// A recorded answer: "A:<order_no>:...", "S" or "J".
bool ParseRecordedAnswer(std::string_view value, ReserveResult* result) {
  if (value == "S" || value == "J") {
    *result = ReserveResult{
        .answer = value == "S" ? ReserveAnswer::kSoldOut : ReserveAnswer::kAlreadyJoined,
        .replayed = true,
        .order_no = 0};
    return true;
  }
  ReservationEvent event;
  if (!ParseAcceptedAnswer(value, &event)) return false;
  *result = ReserveResult{
      .answer = ReserveAnswer::kAccepted, .replayed = true, .order_no = event.order_no};
  return true;
}

Status CheckEventArgs(const std::string& consumer, int max_count) {
  if (consumer.empty()) return Status(StatusCode::INVALID_ARGUMENT, "empty consumer name");
  if (max_count < 1) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "max_count must be at least 1, got " + std::to_string(max_count));
  }
  return Status::Ok();
}

// A stream entry id "<ms>-<seq>" as a comparable pair; {0, 0} when it does not parse.
std::pair<uint64_t, uint64_t> StreamIdOf(std::string_view id) {
  const size_t dash = id.find('-');
  int64_t ms = 0;
  int64_t seq = 0;
  if (dash == std::string_view::npos || !ParseInt64(id.substr(0, dash), &ms) ||
      !ParseInt64(id.substr(dash + 1), &seq) || ms < 0 || seq < 0) {
    return {0, 0};
  }
  return {static_cast<uint64_t>(ms), static_cast<uint64_t>(seq)};
}

// Where the order writers' group stands, from XINFO GROUPS and the stream's last entry
// (XREVRANGE + - COUNT 1).
struct GroupPosition {
  bool behind = false;         // entries after the group's last delivered one exist
  std::string last_delivered;  // its id
  int64_t lag = -1;            // Redis's count of them; -1 when it cannot tell (nil)
};

GroupPosition PositionOf(const redisReply* groups, const redisReply* last_entry) {
  GroupPosition position;
  // No stream yet (an error in the transaction), or an empty one: nothing to deliver.
  if (groups->type != REDIS_REPLY_ARRAY || last_entry->type != REDIS_REPLY_ARRAY ||
      last_entry->elements == 0 || last_entry->element[0]->type != REDIS_REPLY_ARRAY ||
      last_entry->element[0]->elements == 0 || !IsTextReply(last_entry->element[0]->element[0])) {
    return position;
  }
  const std::string_view last_id = ReplyText(last_entry->element[0]->element[0]);
  for (size_t g = 0; g < groups->elements; ++g) {
    const redisReply* group = groups->element[g];
    if (group->type != REDIS_REPLY_ARRAY) continue;
    bool ours = false;
    for (size_t i = 0; i + 1 < group->elements; i += 2) {
      const std::string_view field = ReplyText(group->element[i]);
      const redisReply* value = group->element[i + 1];
      if (field == "name") ours = ReplyText(value) == kOrderWritersGroup;
      if (field == "last-delivered-id") position.last_delivered = std::string(ReplyText(value));
      if (field == "lag" && value->type == REDIS_REPLY_INTEGER) position.lag = value->integer;
    }
    if (!ours) continue;
    position.behind = StreamIdOf(position.last_delivered) < StreamIdOf(last_id);
    return position;
  }
  return GroupPosition{};  // no group yet: created, at the start, by the first read
}

// How many entries to count one by one when Redis cannot tell the lag.
constexpr int kMaxCountedUndelivered = 1000;

}  // namespace

RedisReservationCache::RedisReservationCache(RedisOptions options)
    : pool_(std::move(options)),
      scripts_(&pool_, {kReserveScript, kPreheatScript, kReleaseScript, kMarkStaleScript,
                        kDeadLetterScript, kTrimScript, kLeaseScript}) {}

Status RedisReservationCache::Command(const std::vector<std::string>& args, RedisReplyPtr* reply) {
  if (Status status = pool_.Run(args, reply); !status.ok()) return status;
  if ((*reply)->type == REDIS_REPLY_ERROR) return ErrorReplyStatus(args.front(), reply->get());
  return Status::Ok();
}

Status RedisReservationCache::LoadScripts() { return scripts_.LoadAll(); }

Status RedisReservationCache::Preheat(const CacheLoad& load, bool* raced) {
  if (load.stock < 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "stock must not be negative, got " + std::to_string(load.stock));
  }
  if (load.epoch <= 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "epoch must be positive, got " + std::to_string(load.epoch));
  }
  const RedisActivityKeys keys = RedisActivityKeys::For(load.activity_id, load.sku_id);
  std::vector<std::string> args;
  args.reserve(6 + load.buyers.size() + load.released_keys.size());
  args.push_back(std::to_string(load.epoch));
  args.push_back(load.expected_marker);
  args.push_back(load.keep_requests ? "keep" : "wipe");
  args.push_back(std::to_string(load.stock));
  args.push_back(kOrderWritersGroup);
  args.push_back(std::to_string(load.buyers.size()));
  args.insert(args.end(), load.buyers.begin(), load.buyers.end());
  args.insert(args.end(), load.released_keys.begin(), load.released_keys.end());
  RedisReplyPtr reply;
  if (Status status = scripts_.Eval(kPreheat,
                                    {keys.stock, keys.loaded, keys.buyers, keys.requests,
                                     keys.accepted, keys.released, keys.orders},
                                    args, &reply);
      !status.ok()) {
    return status;
  }
  if (reply->type != REDIS_REPLY_INTEGER) return MalformedReply("the preheat script");
  if (raced != nullptr) *raced = reply->integer == 1;
  return Status::Ok();
}

Status RedisReservationCache::Reserve(const ReserveRequest& request, ReserveResult* result) {
  if (request.user_id.empty() || request.request_id.empty()) {
    return Status(StatusCode::INVALID_ARGUMENT, "a reservation needs a user id and a request id");
  }
  const RedisActivityKeys keys = RedisActivityKeys::For(request.activity_id, request.sku_id);
  RedisReplyPtr reply;
  if (Status status = scripts_.Eval(
          kReserve,
          {keys.stock, keys.loaded, keys.buyers, keys.requests, keys.accepted, keys.orders},
          {std::to_string(request.activity_id), std::to_string(request.sku_id), request.user_id,
           request.request_id, std::to_string(request.order_no), std::to_string(request.now_ms),
           std::to_string(request.cache_epoch)},
          &reply);
      !status.ok()) {
    return status;
  }
  const redisReply* r = reply.get();
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 || !IsTextReply(r->element[0]) ||
      r->element[1]->type != REDIS_REPLY_INTEGER || !IsTextReply(r->element[2])) {
    return MalformedReply("the reserve script");
  }
  const std::string_view answer = ReplyText(r->element[0]);
  ReserveResult parsed;
  parsed.replayed = r->element[1]->integer == 1;
  if (answer == "A") {
    parsed.answer = ReserveAnswer::kAccepted;
    if (!ParseInt64(ReplyText(r->element[2]), &parsed.order_no)) {
      return MalformedReply("the reserve script (order number)");
    }
  } else if (answer == "S") {
    parsed.answer = ReserveAnswer::kSoldOut;
  } else if (answer == "J") {
    parsed.answer = ReserveAnswer::kAlreadyJoined;
  } else if (answer == "M") {
    parsed.answer = ReserveAnswer::kCacheMissing;
  } else if (answer == "E") {
    parsed.answer = ReserveAnswer::kOtherEpoch;
  } else {
    return MalformedReply("the reserve script (answer)");
  }
  *result = parsed;
  return Status::Ok();
}

Status RedisReservationCache::Release(int64_t activity_id, int64_t sku_id,
                                      const std::string& release_key, int64_t epoch,
                                      ReleaseOutcome* outcome) {
  if (release_key.empty()) return Status(StatusCode::INVALID_ARGUMENT, "empty release key");
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  RedisReplyPtr reply;
  if (Status status = scripts_.Eval(kRelease, {keys.loaded, keys.stock, keys.released},
                                    {release_key, std::to_string(epoch)}, &reply);
      !status.ok()) {
    return status;
  }
  if (reply->type != REDIS_REPLY_INTEGER) return MalformedReply("the release script");
  *outcome = reply->integer == 1   ? ReleaseOutcome::kReleased
             : reply->integer == 0 ? ReleaseOutcome::kAlreadyReleased
                                   : ReleaseOutcome::kNotCurrent;
  return Status::Ok();
}

Status RedisReservationCache::MarkStale(int64_t activity_id, int64_t sku_id, int64_t epoch,
                                        bool* marked) {
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  RedisReplyPtr reply;
  if (Status status = scripts_.Eval(kMarkStale, {keys.loaded}, {std::to_string(epoch)}, &reply);
      !status.ok()) {
    return status;
  }
  if (reply->type != REDIS_REPLY_INTEGER) return MalformedReply("the mark_stale script");
  *marked = reply->integer == 1;
  return Status::Ok();
}

Status RedisReservationCache::Snapshot(int64_t activity_id, int64_t sku_id, CacheSnapshot* out) {
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  std::vector<RedisReplyPtr> replies;
  if (Status status = pool_.RunPipeline({{"MULTI"},
                                         {"GET", keys.loaded},
                                         {"GET", keys.stock},
                                         {"GET", keys.accepted},
                                         {"XPENDING", keys.orders, kOrderWritersGroup},
                                         {"XINFO", "GROUPS", keys.orders},
                                         {"XREVRANGE", keys.orders, "+", "-", "COUNT", "1"},
                                         {"EXEC"}},
                                        &replies);
      !status.ok()) {
    return status;
  }
  for (size_t i = 0; i + 1 < replies.size(); ++i) {
    if (replies[i]->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("MULTI", replies[i].get());
  }
  const redisReply* exec = replies.back().get();
  if (exec->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("EXEC", exec);
  if (exec->type != REDIS_REPLY_ARRAY || exec->elements != 6) return MalformedReply("EXEC");
  const redisReply* loaded = exec->element[0];
  const redisReply* stock = exec->element[1];
  const redisReply* accepted = exec->element[2];
  const redisReply* pending = exec->element[3];
  if (loaded->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET loaded", loaded);
  if (loaded->type != REDIS_REPLY_NIL && !IsTextReply(loaded)) return MalformedReply("GET loaded");
  if (stock->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET stock", stock);
  if (accepted->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET accepted", accepted);

  CacheSnapshot snapshot;
  if (loaded->type != REDIS_REPLY_NIL) {
    snapshot.marker = std::string(ReplyText(loaded));
    std::string_view epoch = snapshot.marker;
    snapshot.stale = epoch.substr(0, 6) == "stale:";
    if (snapshot.stale) epoch.remove_prefix(6);
    if (!ParseInt64(epoch, &snapshot.epoch)) snapshot.epoch = 0;
  }
  snapshot.present = !snapshot.marker.empty() && stock->type != REDIS_REPLY_NIL;
  if (stock->type != REDIS_REPLY_NIL &&
      !(IsTextReply(stock) && ParseInt64(ReplyText(stock), &snapshot.stock))) {
    return Status(StatusCode::INTERNAL, keys.stock + " does not hold an integer");
  }
  if (accepted->type != REDIS_REPLY_NIL &&
      !(IsTextReply(accepted) && ParseInt64(ReplyText(accepted), &snapshot.reservations))) {
    return Status(StatusCode::INTERNAL, keys.accepted + " does not hold an integer");
  }
  if (pending->type == REDIS_REPLY_ARRAY && pending->elements >= 1 &&
      pending->element[0]->type == REDIS_REPLY_INTEGER) {
    snapshot.queue_pending = pending->element[0]->integer;
  } else if (!IsErrorReply(pending, "NOGROUP")) {  // no group: nothing can be pending
    if (pending->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("XPENDING", pending);
    return MalformedReply("XPENDING");
  }
  // Redis 7.0's lag is a heuristic that an append-only file replayed after a restart can leave
  // stale (a count from the last rewrite: entries shown undelivered that were delivered long
  // ago; redis/redis#10569) or unknown (nil). Whether anything is undelivered at all is exact:
  // the group's last delivered id against the stream's last id; only the count is Redis's
  // estimate, or counted here (up to kMaxCountedUndelivered) when it has none.
  const GroupPosition position = PositionOf(exec->element[4], exec->element[5]);
  if (position.behind && position.lag > 0) {
    snapshot.queue_undelivered = position.lag;
  } else if (position.behind) {
    RedisReplyPtr after;
    if (Status status = Command({"XRANGE", keys.orders, "(" + position.last_delivered, "+", "COUNT",
                                 std::to_string(kMaxCountedUndelivered)},
                                &after);
        !status.ok()) {
      return status;
    }
    if (after->type != REDIS_REPLY_ARRAY) return MalformedReply("XRANGE");
    snapshot.queue_undelivered = std::max<int64_t>(1, static_cast<int64_t>(after->elements));
  }
  *out = snapshot;
  return Status::Ok();
}

Status RedisReservationCache::FindRequest(const RequestScope& scope, bool* found,
                                          ReserveResult* result) {
  const std::string& request_id = scope.request_id;
  if (request_id.empty() || scope.user_id.empty()) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "a request lookup needs a user id and a request id");
  }
  const RedisActivityKeys keys = RedisActivityKeys::For(scope.activity_id, scope.sku_id);
  RedisReplyPtr reply;
  if (Status status =
          Command({"HGET", keys.requests, RequestField(scope.user_id, request_id)}, &reply);
      !status.ok()) {
    return status;
  }
  if (reply->type == REDIS_REPLY_NIL) {
    *found = false;
    return Status::Ok();
  }
  ReserveResult parsed;
  if (!IsTextReply(reply.get()) || !ParseRecordedAnswer(ReplyText(reply.get()), &parsed)) {
    return Status(StatusCode::INTERNAL,
                  "request " + request_id + " in " + keys.requests + " has an unreadable answer");
  }
  *found = true;
  *result = parsed;
  return Status::Ok();
}

Status RedisReservationCache::ListReservations(int64_t activity_id, int64_t sku_id,
                                               std::vector<ReservationEvent>* out) {
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  std::vector<ReservationEvent> events;
  std::unordered_set<std::string> seen;  // fields: HSCAN may return one twice
  std::string cursor = "0";
  do {
    RedisReplyPtr reply;
    if (Status status =
            Command({"HSCAN", keys.requests, cursor, "COUNT", std::to_string(kScanPage)}, &reply);
        !status.ok()) {
      return status;
    }
    const redisReply* r = reply.get();
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || !IsTextReply(r->element[0]) ||
        r->element[1]->type != REDIS_REPLY_ARRAY || r->element[1]->elements % 2 != 0) {
      return MalformedReply("HSCAN");
    }
    cursor = std::string(ReplyText(r->element[0]));
    const redisReply* pairs = r->element[1];
    for (size_t i = 0; i < pairs->elements; i += 2) {
      const redisReply* field = pairs->element[i];
      const redisReply* value = pairs->element[i + 1];
      if (!IsTextReply(field) || !IsTextReply(value)) return MalformedReply("HSCAN");
      if (ReplyText(value).substr(0, 2) != "A:") continue;
      ReservationEvent event;
      event.activity_id = activity_id;
      event.sku_id = sku_id;
      std::string field_user;
      if (!ParseRequestField(ReplyText(field), &field_user, &event.request_id) ||
          !ParseAcceptedAnswer(ReplyText(value), &event) || event.user_id != field_user) {
        event.request_id = std::string(ReplyText(field));
        return Status(StatusCode::INTERNAL, "request " + event.request_id + " in " + keys.requests +
                                                " has an unreadable answer");
      }
      if (seen.emplace(ReplyText(field)).second) events.push_back(std::move(event));
    }
  } while (cursor != "0");
  std::sort(events.begin(), events.end(), [](const ReservationEvent& a, const ReservationEvent& b) {
    return a.order_no != b.order_no ? a.order_no < b.order_no : a.request_id < b.request_id;
  });
  *out = std::move(events);
  return Status::Ok();
}

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

Status ConnectRedisReservationCache(const RedisOptions& options,
                                    std::unique_ptr<ReservationCache>* out) {
  auto cache = std::make_unique<RedisReservationCache>(options);
  if (Status status = cache->LoadScripts(); !status.ok()) return status;
  *out = std::move(cache);
  return Status::Ok();
}

}  // namespace ferry::seckill
