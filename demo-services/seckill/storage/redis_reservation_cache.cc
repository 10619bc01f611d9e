#include "storage/redis_reservation_cache.h"

#include <hiredis.h>

#include <algorithm>
#include <string_view>
#include <tuple>
#include <utility>

#include "storage/redis_cache_replies.h"
#include "storage/redis_keys.h"
#include "storage/redis_scripts.h"

namespace ferry::seckill {

using redis_cache::ParseAcceptedAnswer;
using redis_cache::ParseInt64;
using redis_cache::ParseRecordedAnswer;
using redis_cache::StreamIdOf;
using storage::ErrorReplyStatus;
using storage::IsErrorReply;
using storage::IsTextReply;
using storage::MalformedReply;
using storage::RedisOptions;
using storage::RedisReplyPtr;
using storage::ReplyText;

namespace {

constexpr int kScanPage = 1000;

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

// "<epoch>@<gen>", "stale:<epoch>" or "loading:<epoch>:<since_ms>|<origin>" (redis_scripts.h),
// judged against the generation key's `current` gen.
void ParseMarker(std::string_view marker, std::string_view current, CacheSnapshot* out) {
  if (marker.starts_with("loading:")) {
    out->loading = true;
    const size_t bar = marker.find('|');
    const std::string_view head =
        marker.substr(8, bar == std::string_view::npos ? marker.npos : bar - 8);
    const size_t colon = head.find(':');
    if (!ParseInt64(head.substr(0, colon), &out->epoch) ||
        !ParseInt64(head.substr(colon + 1), &out->loading_since_ms)) {
      out->epoch = 0;
    }
    if (bar != std::string_view::npos) {
      CacheSnapshot origin;
      ParseMarker(marker.substr(bar + 1), current, &origin);
      out->data_epoch = origin.loading ? 0 : origin.data_epoch;
    }
    return;
  }
  if (marker.starts_with("stale:")) {
    out->stale = true;
    if (!ParseInt64(marker.substr(6), &out->epoch)) out->epoch = 0;
    out->data_epoch = out->epoch;
    return;
  }
  const size_t at = marker.find('@');
  if (at == std::string_view::npos || !ParseInt64(marker.substr(0, at), &out->epoch)) return;
  // Loaded into the server state whose generation the key still holds, or into one gone.
  out->stale = marker.substr(at + 1) != current;
  out->data_epoch = out->epoch;
}

}  // namespace

RedisReservationCache::RedisReservationCache(RedisOptions options)
    : pool_(std::move(options)),
      scripts_(&pool_, {kReserveScript, kPreheatScript, kReleaseScript, kMarkStaleScript,
                        kDeadLetterScript, kTrimScript, kLeaseScript, kFenceScript}),
      generation_({}) {
  generation_.Watch(&pool_);
  generation_.OnChange([this](const storage::RedisServerIdentity&, int64_t) {
    std::function<void()> listener;
    {
      std::lock_guard lock(listener_mu_);
      listener = server_change_;
    }
    if (listener) listener();
  });
}

Status RedisReservationCache::Watch(int64_t activity_id, int64_t sku_id) {
  const std::string key = RedisActivityKeys::For(activity_id, sku_id).generation;
  {
    std::shared_lock lock(watched_mu_);
    if (watched_.contains(key)) return Status::Ok();
  }
  std::lock_guard lock(watched_mu_);
  if (watched_.contains(key)) return Status::Ok();
  generation_.AddKey(key);
  // Made for this server before any script reads it; every connection opened later checks it
  // before its first command.
  if (Status s = generation_.Check(pool_); !s.ok()) {
    generation_.RemoveKey(key);
    return s;
  }
  watched_.insert(key);
  return Status::Ok();
}

std::string RedisReservationCache::ServerIdentity() const {
  const storage::RedisServerIdentity identity = generation_.identity();
  return identity.run_id.empty() ? "" : identity.ToString();
}

Status RedisReservationCache::CheckServer() { return generation_.Check(pool_); }

void RedisReservationCache::OnServerChange(std::function<void()> listener) {
  std::lock_guard lock(listener_mu_);
  server_change_ = std::move(listener);
}

Status RedisReservationCache::Command(const std::vector<std::string>& args, RedisReplyPtr* reply) {
  if (Status status = pool_.Run(args, reply); !status.ok()) return status;
  if ((*reply)->type == REDIS_REPLY_ERROR) return ErrorReplyStatus(args.front(), reply->get());
  return Status::Ok();
}

Status RedisReservationCache::LoadScripts() { return scripts_.LoadAll(); }

Status RedisReservationCache::Fence(int64_t activity_id, int64_t sku_id,
                                    const std::string& expected_marker, int64_t epoch,
                                    int64_t now_ms, bool* fenced) {
  if (epoch <= 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "epoch must be positive, got " + std::to_string(epoch));
  }
  if (Status s = Watch(activity_id, sku_id); !s.ok()) return s;
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  RedisReplyPtr reply;
  if (Status status =
          scripts_.Eval(kFence, {keys.loaded},
                        {expected_marker, std::to_string(epoch), std::to_string(now_ms)}, &reply);
      !status.ok()) {
    return status;
  }
  if (reply->type != REDIS_REPLY_INTEGER) return MalformedReply("the fence script");
  *fenced = reply->integer == 1;
  return Status::Ok();
}

Status RedisReservationCache::Stage(const std::string& key,
                                    const std::vector<std::string>& members) {
  RedisReplyPtr reply;
  if (Status s = Command({"DEL", key}, &reply); !s.ok()) return s;
  // In chunks, so that no single command (or script) of a large sale blocks Redis for long.
  constexpr size_t kChunk = 1000;
  for (size_t first = 0; first < members.size(); first += kChunk) {
    std::vector<std::string> command{"SADD", key};
    const size_t last = std::min(members.size(), first + kChunk);
    command.insert(command.end(), members.begin() + static_cast<std::ptrdiff_t>(first),
                   members.begin() + static_cast<std::ptrdiff_t>(last));
    if (Status s = Command(command, &reply); !s.ok()) return s;
  }
  return Status::Ok();
}

Status RedisReservationCache::Preheat(const CacheLoad& load, bool* raced) {
  if (load.stock < 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "stock must not be negative, got " + std::to_string(load.stock));
  }
  if (load.epoch <= 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "epoch must be positive, got " + std::to_string(load.epoch));
  }
  if (Status s = Watch(load.activity_id, load.sku_id); !s.ok()) return s;
  const RedisActivityKeys keys = RedisActivityKeys::For(load.activity_id, load.sku_id);
  // Staged while the fence keeps sales closed; a reload that fenced after this one restages
  // them, and this one's script then finds the marker moved on and writes nothing.
  if (Status s = Stage(keys.buyers_next, load.buyers); !s.ok()) return s;
  if (Status s = Stage(keys.released_next, load.released_keys); !s.ok()) return s;
  RedisReplyPtr reply;
  Status status = scripts_.Eval(
      kPreheat,
      {keys.stock, keys.loaded, keys.buyers, keys.requests, keys.accepted, keys.released,
       keys.orders, keys.generation, keys.buyers_next, keys.released_next},
      {std::to_string(load.epoch), load.keep_requests ? "keep" : "wipe", std::to_string(load.stock),
       kOrderWritersGroup},
      &reply);
  if (status.code() == StatusCode::INTERNAL &&
      status.message().find("NOGEN") != std::string::npos) {
    // The generation key went (a flush) after Watch made it: the next attempt makes it again.
    (void)generation_.Check(pool_);
    return Status(StatusCode::UNAVAILABLE, status.message());
  }
  if (!status.ok()) return status;
  if (reply->type != REDIS_REPLY_INTEGER) return MalformedReply("the preheat script");
  if (raced != nullptr) *raced = reply->integer == 1;
  return Status::Ok();
}

Status RedisReservationCache::Reserve(const ReserveRequest& request, ReserveResult* result) {
  if (request.user_id.empty() || request.request_id.empty()) {
    return Status(StatusCode::INVALID_ARGUMENT, "a reservation needs a user id and a request id");
  }
  if (Status s = Watch(request.activity_id, request.sku_id); !s.ok()) return s;
  const RedisActivityKeys keys = RedisActivityKeys::For(request.activity_id, request.sku_id);
  RedisReplyPtr reply;
  if (Status status =
          scripts_.Eval(kReserve,
                        {keys.stock, keys.loaded, keys.buyers, keys.requests, keys.accepted,
                         keys.orders, keys.generation},
                        {std::to_string(request.activity_id), std::to_string(request.sku_id),
                         request.user_id, request.request_id, std::to_string(request.order_no),
                         std::to_string(request.now_ms), std::to_string(request.cache_epoch)},
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
  } else if (answer == "L") {
    parsed.answer = ReserveAnswer::kLoading;
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
  if (Status s = Watch(activity_id, sku_id); !s.ok()) return s;
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  RedisReplyPtr reply;
  if (Status status =
          scripts_.Eval(kRelease, {keys.loaded, keys.stock, keys.released, keys.generation},
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

Status RedisReservationCache::ReadState(int64_t activity_id, int64_t sku_id,
                                        std::vector<std::vector<std::string>> more,
                                        CacheSnapshot* out, std::vector<RedisReplyPtr>* replies,
                                        const redisReply** exec) {
  if (Status s = Watch(activity_id, sku_id); !s.ok()) return s;
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  const size_t count = 3 + more.size();
  std::vector<std::vector<std::string>> commands = {
      {"MULTI"}, {"GET", keys.loaded}, {"HGET", keys.generation, "gen"}, {"GET", keys.stock}};
  for (std::vector<std::string>& command : more) commands.push_back(std::move(command));
  commands.push_back({"EXEC"});
  if (Status status = pool_.RunPipeline(commands, replies); !status.ok()) return status;
  for (size_t i = 0; i + 1 < replies->size(); ++i) {
    if ((*replies)[i]->type == REDIS_REPLY_ERROR) {
      return ErrorReplyStatus("MULTI", (*replies)[i].get());
    }
  }
  *exec = replies->back().get();
  if ((*exec)->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("EXEC", *exec);
  if ((*exec)->type != REDIS_REPLY_ARRAY || (*exec)->elements != count) {
    return MalformedReply("EXEC");
  }
  const redisReply* loaded = (*exec)->element[0];
  const redisReply* generation = (*exec)->element[1];
  const redisReply* stock = (*exec)->element[2];
  if (loaded->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET loaded", loaded);
  if (loaded->type != REDIS_REPLY_NIL && !IsTextReply(loaded)) return MalformedReply("GET loaded");
  if (stock->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET stock", stock);
  CacheSnapshot snapshot;
  if (loaded->type != REDIS_REPLY_NIL) {
    snapshot.marker = std::string(ReplyText(loaded));
    const std::string_view current = IsTextReply(generation) ? ReplyText(generation) : "";
    ParseMarker(snapshot.marker, current, &snapshot);
  }
  snapshot.present = !snapshot.marker.empty() && stock->type != REDIS_REPLY_NIL;
  if (stock->type != REDIS_REPLY_NIL &&
      !(IsTextReply(stock) && ParseInt64(ReplyText(stock), &snapshot.stock))) {
    return Status(StatusCode::INTERNAL, keys.stock + " does not hold an integer");
  }
  *out = std::move(snapshot);
  return Status::Ok();
}

Status RedisReservationCache::ReadStock(int64_t activity_id, int64_t sku_id, CacheSnapshot* out) {
  std::vector<RedisReplyPtr> replies;
  const redisReply* exec = nullptr;
  return ReadState(activity_id, sku_id, {}, out, &replies, &exec);
}

Status RedisReservationCache::Snapshot(int64_t activity_id, int64_t sku_id, CacheSnapshot* out) {
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  std::vector<RedisReplyPtr> replies;
  const redisReply* exec = nullptr;
  CacheSnapshot snapshot;
  if (Status s = ReadState(activity_id, sku_id,
                           {{"GET", keys.accepted},
                            {"XPENDING", keys.orders, kOrderWritersGroup},
                            {"XINFO", "GROUPS", keys.orders},
                            {"XREVRANGE", keys.orders, "+", "-", "COUNT", "1"}},
                           &snapshot, &replies, &exec);
      !s.ok()) {
    return s;
  }
  const redisReply* accepted = exec->element[3];
  const redisReply* pending = exec->element[4];
  if (accepted->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET accepted", accepted);
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
  const GroupPosition position = PositionOf(exec->element[5], exec->element[6]);
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

Status RedisReservationCache::ScanReservations(int64_t activity_id, int64_t sku_id,
                                               std::string* cursor, int count,
                                               std::vector<ReservationEvent>* out) {
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  RedisReplyPtr reply;
  if (Status status = Command(
          {"HSCAN", keys.requests, cursor->empty() ? "0" : *cursor, "COUNT", std::to_string(count)},
          &reply);
      !status.ok()) {
    return status;
  }
  const redisReply* r = reply.get();
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || !IsTextReply(r->element[0]) ||
      r->element[1]->type != REDIS_REPLY_ARRAY || r->element[1]->elements % 2 != 0) {
    return MalformedReply("HSCAN");
  }
  *cursor = std::string(ReplyText(r->element[0]));
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
      return Status(StatusCode::INTERNAL, "request " + std::string(ReplyText(field)) + " in " +
                                              keys.requests + " has an unreadable answer");
    }
    out->push_back(std::move(event));
  }
  return Status::Ok();
}

Status RedisReservationCache::ListReservations(int64_t activity_id, int64_t sku_id,
                                               std::vector<ReservationEvent>* out) {
  std::vector<ReservationEvent> events;
  std::string cursor = "0";
  do {
    if (Status s = ScanReservations(activity_id, sku_id, &cursor, kScanPage, &events); !s.ok()) {
      return s;
    }
  } while (cursor != "0");
  // HSCAN may return a field twice.
  std::sort(events.begin(), events.end(), [](const ReservationEvent& a, const ReservationEvent& b) {
    return std::tie(a.order_no, a.user_id, a.request_id) <
           std::tie(b.order_no, b.user_id, b.request_id);
  });
  events.erase(std::unique(events.begin(), events.end(),
                           [](const ReservationEvent& a, const ReservationEvent& b) {
                             return a.user_id == b.user_id && a.request_id == b.request_id;
                           }),
               events.end());
  *out = std::move(events);
  return Status::Ok();
}

Status ConnectRedisReservationCache(const RedisOptions& options,
                                    std::unique_ptr<ReservationCache>* out) {
  auto cache = std::make_unique<RedisReservationCache>(options);
  if (Status status = cache->LoadScripts(); !status.ok()) return status;
  *out = std::move(cache);
  return Status::Ok();
}

}  // namespace ferry::seckill
