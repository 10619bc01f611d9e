#include "storage/redis_like_store.h"

#include <hiredis.h>

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

RedisLikeStore::RedisLikeStore(storage::RedisConnectionPool* pool, LikeDatabase* database,
                               const BucketLayout* layout)
    : pool_(pool), database_(database), layout_(layout), scripts_(pool, LikeScripts()) {}

Status RedisLikeStore::Connect() { return scripts_.LoadAll(); }

Status RedisLikeStore::SetLike(int64_t content_id, const std::string& user_id, bool liked,
                               SetLikeResult* out) {
  const uint32_t bucket = layout_->BucketOf(content_id, user_id);
  const BucketKeys keys = BucketKeys::For(content_id, bucket);
  for (int attempt = 0; attempt < 3; ++attempt) {
    RedisReplyPtr reply;
    if (Status s = scripts_.Eval(
            kSetLike, {keys.members, keys.count, keys.versions, keys.events, keys.ready},
            {user_id, liked ? "1" : "0", std::to_string(content_id), std::to_string(bucket)},
            &reply);
        !s.ok()) {
      return s;
    }
    const redisReply* r = reply.get();
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 3) return MalformedReply("set_like");
    int64_t changed = 0;
    int64_t count = 0;
    int64_t version = 0;
    if (!ReplyInt(r->element[0], &changed) || !ReplyInt(r->element[1], &count) ||
        !ReplyInt(r->element[2], &version)) {
      return MalformedReply("set_like");
    }
    if (changed >= 0) {
      *out = {.changed = changed == 1, .version = version, .bucket = bucket, .bucket_count = count};
      return Status::Ok();
    }
    if (Status s = LoadBucket(content_id, bucket, false); !s.ok()) return s;
  }
  return Status(StatusCode::UNAVAILABLE, "like bucket " + keys.ready + " keeps disappearing");
}

Status RedisLikeStore::LoadBucket(int64_t content_id, uint32_t bucket, bool force) {
  const BucketKeys keys = BucketKeys::For(content_id, bucket);
  // The stream is known to the writers, with their group, before any script can append to it.
  std::vector<RedisReplyPtr> replies;
  if (Status s =
          pool_->RunPipeline({{"SADD", kStreamRegistry, keys.events},
                              {"XGROUP", "CREATE", keys.events, kWritersGroup, "0", "MKSTREAM"}},
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
  std::vector<LikeRow> rows;
  if (Status s = database_->BucketRows(content_id, bucket, &rows); !s.ok()) return s;
  std::vector<std::string> args = {force ? "1" : "0"};
  args.reserve(1 + 3 * rows.size());
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
  const uint32_t buckets = layout_->BucketsOf(content_id);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<std::vector<std::string>> commands;
    for (uint32_t b = 0; b < buckets; ++b) {
      const BucketKeys keys = BucketKeys::For(content_id, b);
      commands.push_back({"EXISTS", keys.ready});
      commands.push_back({"GET", keys.count});
    }
    std::vector<RedisReplyPtr> replies;
    if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
    if (Status s = CheckReplies("GET", replies); !s.ok()) return s;
    out->assign(buckets, 0);
    bool all_loaded = true;
    for (uint32_t b = 0; b < buckets; ++b) {
      int64_t ready = 0;
      if (!ReplyInt(replies[2 * b].get(), &ready) ||
          !ReplyInt(replies[2 * b + 1].get(), &(*out)[b])) {
        return MalformedReply("GET");
      }
      if (ready == 0) {
        all_loaded = false;
        if (Status s = LoadBucket(content_id, b, false); !s.ok()) return s;
      }
    }
    if (all_loaded) return Status::Ok();
  }
  return Status::Ok();  // loaded on the first pass and read on the second
}

Status RedisLikeStore::HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                                std::vector<bool>* out) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<std::vector<std::string>> commands;
    for (int64_t content : content_ids) {
      const BucketKeys keys = BucketKeys::For(content, layout_->BucketOf(content, user_id));
      commands.push_back({"EXISTS", keys.ready});
      commands.push_back({"SISMEMBER", keys.members, user_id});
    }
    std::vector<RedisReplyPtr> replies;
    if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
    if (Status s = CheckReplies("SISMEMBER", replies); !s.ok()) return s;
    out->assign(content_ids.size(), false);
    bool all_loaded = true;
    for (size_t i = 0; i < content_ids.size(); ++i) {
      int64_t ready = 0;
      int64_t member = 0;
      if (!ReplyInt(replies[2 * i].get(), &ready) || !ReplyInt(replies[2 * i + 1].get(), &member)) {
        return MalformedReply("SISMEMBER");
      }
      (*out)[i] = member == 1;
      if (ready == 0) {
        all_loaded = false;
        const uint32_t bucket = layout_->BucketOf(content_ids[i], user_id);
        if (Status s = LoadBucket(content_ids[i], bucket, false); !s.ok()) return s;
      }
    }
    if (all_loaded) return Status::Ok();
  }
  return Status::Ok();
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
