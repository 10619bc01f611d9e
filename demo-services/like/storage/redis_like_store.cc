#include "storage/redis_like_store.h"

#include <hiredis.h>

#include <chrono>

#include "storage/redis_like_keys.h"
#include "storage/redis_like_scripts.h"

namespace ferry::like {

using storage::ErrorReplyStatus;
using storage::IsErrorReply;
using storage::MalformedReply;
using storage::RedisReplyPtr;
using storage::ReplyText;

namespace {

// An integer reply, or a bulk string holding one (GET); nil is 0.
bool ReplyInt(const redisReply* r, int64_t* value) {
  if (r == nullptr) return false;
  if (r->type == REDIS_REPLY_INTEGER) {
    *value = r->integer;
    return true;
  }
  if (r->type == REDIS_REPLY_NIL) {
    *value = 0;
    return true;
  }
  if (r->type != REDIS_REPLY_STRING) return false;
  try {
    *value = std::stoll(std::string(ReplyText(r)));
  } catch (...) {
    return false;
  }
  return true;
}

Status CheckReplies(std::string_view what, const std::vector<RedisReplyPtr>& replies) {
  for (const RedisReplyPtr& r : replies) {
    if (r == nullptr) return MalformedReply(what);
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus(what, r.get());
  }
  return Status::Ok();
}

}  // namespace

int64_t ElapsedMs(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               since)
      .count();
}

RedisLikeStore::RedisLikeStore(storage::RedisConnectionPool* pool, LikeDatabase* database,
                               BucketLayout* layout, int64_t request_ttl_ms,
                               AppendedStreams* appended)
    : pool_(pool),
      database_(database),
      layout_(layout),
      request_ttl_ms_(request_ttl_ms),
      appended_(appended),
      scripts_(pool, LikeScripts()) {}

Status RedisLikeStore::Connect() { return scripts_.LoadAll(); }

RedisLikeStore::ScriptCall RedisLikeStore::MakeScriptCall(int64_t content_id,
                                                          const std::string& user_id, bool liked,
                                                          const std::string& request_id) const {
  ScriptCall call;
  call.buckets = layout_->BucketsOf(content_id);
  call.bucket = BucketLayout::BucketIn(user_id, call.buckets);
  BucketKeys keys = BucketKeys::For(content_id, call.bucket);
  call.events = keys.events;
  call.keys = {keys.members, keys.count, keys.versions, keys.events, keys.ready};
  if (!request_id.empty() && request_ttl_ms_ > 0) {
    call.keys.push_back(keys.Request(user_id, request_id));
  }
  call.args = {user_id,
               liked ? "1" : "0",
               std::to_string(content_id),
               std::to_string(call.bucket),
               std::to_string(call.buckets),
               std::to_string(request_ttl_ms_)};
  return call;
}

Status RedisLikeStore::ReadAnswer(const redisReply* r, const ScriptCall& call, bool liked,
                                  const std::string& request_id, SetLikeResult* out,
                                  int64_t* code) {
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 3) return MalformedReply("set_like");
  int64_t changed = 0;
  int64_t count = 0;
  int64_t version = 0;
  if (!ReplyInt(r->element[0], &changed) || !ReplyInt(r->element[1], &count) ||
      !ReplyInt(r->element[2], &version)) {
    return MalformedReply("set_like");
  }
  *code = changed;
  if (changed == -4) return RequestIdReused(request_id, liked);
  if (changed < 0) return Status::Ok();
  if (changed == 1) appended_->Add(call.events);
  *out = {.changed = changed % 2 == 1,
          .version = version,
          .bucket = call.bucket,
          .bucket_count = count,
          .replayed = changed >= 2};
  return Status::Ok();
}

Status RedisLikeStore::SetLike(int64_t content_id, const std::string& user_id, bool liked,
                               const std::string& request_id, SetLikeResult* out) {
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    const ScriptCall call = MakeScriptCall(content_id, user_id, liked, request_id);
    RedisReplyPtr reply;
    if (Status s = scripts_.Eval(kSetLike, call.keys, call.args, &reply); !s.ok()) return s;
    int64_t code = 0;
    if (Status s = ReadAnswer(reply.get(), call, liked, request_id, out, &code);
        !s.ok() || code >= 0) {
      return s;
    }
    Status next;
    if (code == -1) {
      next = LoadMissing(content_id, call.bucket, call.buckets, ElapsedMs(start));
    } else {
      std::string marker;
      next = ReadyMarker(content_id, call.bucket, &marker);
      if (next.ok()) next = AwaitLayout(content_id, call.buckets, marker, ElapsedMs(start));
    }
    if (!next.ok()) return next;
  }
}

bool RedisLikeStore::SetLikeAsync(int64_t content_id, const std::string& user_id, bool liked,
                                  const std::string& request_id, SetLikeDone done) {
  auto call = std::make_shared<ScriptCall>(MakeScriptCall(content_id, user_id, liked, request_id));
  return scripts_.EvalAsync(kSetLike, call->keys, call->args,
                            [this, call, liked, request_id, done = std::move(done)](
                                AsyncOutcome outcome, const Status& status, RedisReplyPtr reply) {
                              if (outcome != AsyncOutcome::kAnswered)
                                return done(outcome, status, {});
                              SetLikeResult result;
                              int64_t code = 0;
                              Status s =
                                  ReadAnswer(reply.get(), *call, liked, request_id, &result, &code);
                              if (!s.ok()) return done(AsyncOutcome::kFailed, s, {});
                              if (code < 0) return done(AsyncOutcome::kNotRun, Status::Ok(), {});
                              done(AsyncOutcome::kAnswered, Status::Ok(), result);
                            });
}

Status RedisLikeStore::ReadyMarker(int64_t content_id, uint32_t bucket, std::string* marker) {
  RedisReplyPtr reply;
  if (Status s = pool_->Run({"GET", BucketKeys::For(content_id, bucket).ready}, &reply); !s.ok()) {
    return s;
  }
  if (reply->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET", reply.get());
  *marker = reply->type == REDIS_REPLY_STRING ? std::string(ReplyText(reply.get())) : "";
  return Status::Ok();
}

Status RedisLikeStore::RegisterStream(const std::string& stream) {
  // The stream is known to the writers, with their group, before any script can append to it.
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline({{"SADD", kStreamRegistry, stream},
                                     {"XGROUP", "CREATE", stream, kWritersGroup, "0", "MKSTREAM"}},
                                    &replies);
      !s.ok()) {
    return s;
  }
  if (replies.size() != 2 || replies[0]->type == REDIS_REPLY_ERROR) {
    return replies.empty() ? MalformedReply("SADD") : ErrorReplyStatus("SADD", replies[0].get());
  }
  if (replies[1]->type == REDIS_REPLY_ERROR && !IsErrorReply(replies[1].get(), "BUSYGROUP")) {
    return ErrorReplyStatus("XGROUP CREATE", replies[1].get());
  }
  return Status::Ok();
}

Status RedisLikeStore::LoadMissing(int64_t content_id, uint32_t bucket, uint32_t buckets,
                                   int64_t waited_ms) {
  // Bucket 0 exists in every layout: when Redis holds it for another count, loading this one
  // from the database would put its users in two buckets.
  if (bucket != 0) {
    std::string marker;
    if (Status s = ReadyMarker(content_id, 0, &marker); !s.ok()) return s;
    if (!marker.empty() && marker != std::to_string(buckets)) {
      return AwaitLayout(content_id, buckets, marker, waited_ms);
    }
  }
  return LoadBucketOf(content_id, bucket, buckets, false);
}

Status RedisLikeStore::LoadBucket(int64_t content_id, uint32_t bucket, bool force) {
  return LoadBucketOf(content_id, bucket, layout_->BucketsOf(content_id), force);
}

Status RedisLikeStore::LoadBucketOf(int64_t content_id, uint32_t bucket, uint32_t buckets,
                                    bool force) {
  const BucketKeys keys = BucketKeys::For(content_id, bucket);
  if (Status s = RegisterStream(keys.events); !s.ok()) return s;
  std::vector<LikeRow> rows;
  if (Status s = database_->BucketRows(content_id, bucket, buckets, &rows); !s.ok()) return s;
  std::vector<std::string> args = {force ? "1" : "0", std::to_string(buckets)};
  args.reserve(2 + 3 * rows.size());
  for (const LikeRow& row : rows) {
    args.push_back(row.user_id);
    args.push_back(row.liked ? "1" : "0");
    args.push_back(std::to_string(row.version));
  }
  RedisReplyPtr reply;
  return scripts_.Eval(kLoadBucket, {keys.members, keys.count, keys.versions, keys.ready}, args,
                       &reply);
}

Status RedisLikeStore::ApplyChange(const LikeEvent& change) {
  const BucketKeys keys = BucketKeys::For(change.content_id, change.bucket);
  RedisReplyPtr reply;
  if (Status s = scripts_.Eval(
          kApplyChange, {keys.members, keys.count, keys.versions, keys.ready},
          {change.user_id, change.liked ? "1" : "0", std::to_string(change.version)}, &reply);
      !s.ok()) {
    return s;
  }
  const redisReply* r = reply.get();
  int64_t applied = 0;
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || !ReplyInt(r->element[0], &applied)) {
    return MalformedReply("apply_change");
  }
  if (applied >= 0) return Status::Ok();
  return LoadBucket(change.content_id, change.bucket, false);
}

Status RedisLikeStore::BucketCounts(int64_t content_id, std::vector<int64_t>* out) {
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    const uint32_t buckets = layout_->BucketsOf(content_id);
    const std::string expected = std::to_string(buckets);
    std::vector<std::vector<std::string>> commands;
    for (uint32_t b = 0; b < buckets; ++b) {
      const BucketKeys keys = BucketKeys::For(content_id, b);
      commands.push_back({"GET", keys.ready});
      commands.push_back({"GET", keys.count});
    }
    std::vector<RedisReplyPtr> replies;
    if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
    if (Status s = CheckReplies("GET", replies); !s.ok()) return s;
    out->assign(buckets, 0);
    Status retry = Status::Ok();
    bool again = false;
    for (uint32_t b = 0; b < buckets && retry.ok(); ++b) {
      const redisReply* ready = replies[2 * b].get();
      if (!ReplyInt(replies[2 * b + 1].get(), &(*out)[b])) return MalformedReply("GET");
      if (ready->type != REDIS_REPLY_STRING) {
        again = true;
        retry = LoadMissing(content_id, b, buckets, ElapsedMs(start));
      } else if (ReplyText(ready) != expected) {
        again = true;
        retry = AwaitLayout(content_id, buckets, std::string(ReplyText(ready)), ElapsedMs(start));
      }
    }
    if (!retry.ok()) return retry;
    if (!again) return Status::Ok();
  }
}

Status RedisLikeStore::HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                                std::vector<bool>* out) {
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    std::vector<uint32_t> layouts;
    std::vector<std::vector<std::string>> commands;
    for (int64_t content : content_ids) {
      layouts.push_back(layout_->BucketsOf(content));
      const BucketKeys keys =
          BucketKeys::For(content, BucketLayout::BucketIn(user_id, layouts.back()));
      commands.push_back({"GET", keys.ready});
      commands.push_back({"SISMEMBER", keys.members, user_id});
    }
    std::vector<RedisReplyPtr> replies;
    if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
    if (Status s = CheckReplies("SISMEMBER", replies); !s.ok()) return s;
    out->assign(content_ids.size(), false);
    Status retry = Status::Ok();
    bool again = false;
    for (size_t i = 0; i < content_ids.size() && retry.ok(); ++i) {
      const redisReply* ready = replies[2 * i].get();
      int64_t member = 0;
      if (!ReplyInt(replies[2 * i + 1].get(), &member)) return MalformedReply("SISMEMBER");
      (*out)[i] = member == 1;
      if (ready->type != REDIS_REPLY_STRING) {
        again = true;
        retry = LoadMissing(content_ids[i], BucketLayout::BucketIn(user_id, layouts[i]), layouts[i],
                            ElapsedMs(start));
      } else if (ReplyText(ready) != std::to_string(layouts[i])) {
        again = true;
        retry = AwaitLayout(content_ids[i], layouts[i], std::string(ReplyText(ready)),
                            ElapsedMs(start));
      }
    }
    if (!retry.ok()) return retry;
    if (!again) return Status::Ok();
  }
}

Status RedisLikeStore::ReadCacheCounts(int64_t content_id, CacheCounts* out) {
  const uint32_t buckets = layout_->BucketsOf(content_id);
  std::vector<std::vector<std::string>> commands;
  for (uint32_t b = 0; b < buckets; ++b) {
    const BucketKeys keys = BucketKeys::For(content_id, b);
    commands.push_back({"GET", keys.count});
    commands.push_back({"SCARD", keys.members});
    commands.push_back({"XLEN", keys.events});
  }
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
  if (Status s = CheckReplies("SCARD", replies); !s.ok()) return s;
  *out = {};
  for (uint32_t b = 0; b < buckets; ++b) {
    int64_t count = 0;
    int64_t members = 0;
    int64_t pending = 0;
    if (!ReplyInt(replies[3 * b].get(), &count) || !ReplyInt(replies[3 * b + 1].get(), &members) ||
        !ReplyInt(replies[3 * b + 2].get(), &pending)) {
      return MalformedReply("SCARD");
    }
    out->count += count;
    out->members += members;
    out->pending += pending;
  }
  return Status::Ok();
}

}  // namespace ferry::like
