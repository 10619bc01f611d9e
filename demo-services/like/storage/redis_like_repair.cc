// RedisLikeStore's parts for reconciliation and database-first: reading a bucket with its
// pending changes at one instant, and bringing single pairs or counts in line.

#include <hiredis.h>

#include "storage/redis_like_scripts.h"
#include "storage/redis_like_store.h"

namespace ferry::like {

using storage::ErrorReplyStatus;
using storage::IsTextReply;
using storage::MalformedReply;
using storage::RedisReplyPtr;
using storage::ReplyInt;
using storage::ReplyText;

namespace {

// Changes after a checkpoint a snapshot reads at most: a backlog longer than this is not
// judged (it says so) rather than read in one script.
constexpr int64_t kMaxPendingRead = 100000;

}  // namespace

Status RedisLikeStore::Snapshot(int64_t content_id, uint32_t bucket, const std::string& after_id,
                                BucketSnapshot* out) {
  const BucketKeys keys = KeysOf(content_id, bucket);
  const PartitionKeys partition = keys.partition_keys();
  for (int attempt = 0;; ++attempt) {
    RedisReplyPtr reply;
    if (Status s = scripts_.Eval(kSnapshot,
                                 {keys.members, keys.count, keys.versions, keys.ready,
                                  partition.generation, partition.stream},
                                 {std::to_string(content_id), std::to_string(bucket), after_id,
                                  std::to_string(kMaxPendingRead)},
                                 &reply);
        !s.ok()) {
      return s;
    }
    const redisReply* r = reply.get();
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 1) return MalformedReply("snapshot");
    if (r->elements == 1) {  // -6: the generation key is gone
      if (attempt > 0) return Status(StatusCode::UNAVAILABLE, "Redis lost its generation keys");
      if (Status s = CheckGeneration(); !s.ok()) return s;
      continue;
    }
    if (r->elements != 7 || !IsTextReply(r->element[0]) || !IsTextReply(r->element[1]) ||
        r->element[3]->type != REDIS_REPLY_ARRAY || r->element[4]->type != REDIS_REPLY_ARRAY ||
        r->element[5]->type != REDIS_REPLY_ARRAY) {
      return MalformedReply("snapshot");
    }
    *out = {};
    out->layout = std::string(ReplyText(r->element[0]));
    out->loaded = !out->layout.empty();
    int64_t read = 0;
    if (!ReplyInt(r->element[1], &out->generation) || !ReplyInt(r->element[2], &out->count) ||
        !ReplyInt(r->element[6], &read)) {
      return MalformedReply("snapshot");
    }
    out->truncated = read >= kMaxPendingRead;
    for (size_t i = 0; i < r->element[3]->elements; ++i) {
      out->members[std::string(ReplyText(r->element[3]->element[i]))] = true;
    }
    const redisReply* versions = r->element[4];
    for (size_t i = 0; i + 1 < versions->elements; i += 2) {
      int64_t v = 0;
      if (!ReplyInt(versions->element[i + 1], &v)) return MalformedReply("snapshot");
      const std::string user(ReplyText(versions->element[i]));
      if (!user.empty()) out->versions[user] = v;  // "" is the floor
    }
    const redisReply* pending = r->element[5];
    for (size_t i = 0; i + 2 < pending->elements; i += 3) {
      LikeEvent e{.content_id = content_id,
                  .user_id = std::string(ReplyText(pending->element[i])),
                  .liked = ReplyText(pending->element[i + 1]) == "1",
                  .bucket = bucket};
      if (!ReplyInt(pending->element[i + 2], &e.version)) return MalformedReply("snapshot");
      out->pending.push_back(std::move(e));
    }
    return Status::Ok();
  }
}

Status RedisLikeStore::ApplyRecord(int64_t content_id, uint32_t bucket, const LikeEvent& record,
                                   ApplyMode mode) {
  const char* judged = mode == ApplyMode::kForce ? "force"
                       : mode == ApplyMode::kTie ? "tie"
                                                 : "newer";
  const BucketKeys keys = KeysOf(content_id, bucket);
  const PartitionKeys partition = keys.partition_keys();
  for (int attempt = 0;; ++attempt) {
    RedisReplyPtr reply;
    if (Status s =
            scripts_.Eval(kApplyChange,
                          {keys.members, keys.count, keys.versions, keys.ready,
                           partition.generation, partition.tombstones},
                          {record.user_id, record.liked ? "1" : "0", std::to_string(record.version),
                           TombstoneMember(content_id, bucket, record.user_id), judged},
                          &reply);
        !s.ok()) {
      return s;
    }
    int64_t code = 0;
    if (!ReplyInt(reply.get(), &code)) return MalformedReply("apply_change");
    if (code != -6) return Status::Ok();  // applied, not newer, or not loaded: the record has it
    if (attempt > 0) return Status(StatusCode::UNAVAILABLE, "Redis lost its generation keys");
    if (Status s = CheckGeneration(); !s.ok()) return s;
  }
}

Status RedisLikeStore::Reappend(int64_t content_id, uint32_t bucket, const std::string& user_id,
                                int64_t version) {
  const BucketKeys keys = KeysOf(content_id, bucket);
  const PartitionKeys partition = keys.partition_keys();
  RedisReplyPtr reply;
  return scripts_.Eval(
      kReappend, {keys.versions, keys.members, partition.stream, keys.ready, partition.generation},
      {user_id, std::to_string(version), std::to_string(content_id), std::to_string(bucket)},
      &reply);
}

Status RedisLikeStore::FixCount(int64_t content_id, uint32_t bucket, int64_t* before) {
  const BucketKeys keys = KeysOf(content_id, bucket);
  RedisReplyPtr reply;
  if (Status s = scripts_.Eval(
          kFixCount, {keys.members, keys.count, keys.ready, keys.partition_keys().generation}, {},
          &reply);
      !s.ok()) {
    return s;
  }
  *before = -1;
  if (reply->type == REDIS_REPLY_ARRAY && reply->elements == 2) {
    ReplyInt(reply->element[0], before);
  }
  return Status::Ok();
}

Status RedisLikeStore::Unload(int64_t content_id, uint32_t bucket, const std::string& after_id,
                              bool* deleted) {
  const BucketKeys keys = KeysOf(content_id, bucket);
  const PartitionKeys partition = keys.partition_keys();
  RedisReplyPtr reply;
  if (Status s = scripts_.Eval(kUnload,
                               {keys.members, keys.count, keys.versions, keys.ready,
                                partition.generation, partition.stream},
                               {std::to_string(content_id), after_id}, &reply);
      !s.ok()) {
    return s;
  }
  int64_t code = 0;
  if (!ReplyInt(reply.get(), &code)) return MalformedReply("unload");
  *deleted = code == 1;
  return Status::Ok();
}

}  // namespace ferry::like
