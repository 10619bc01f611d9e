// Raising a content's bucket count on Redis while its writers run (RedisLikeStore::RaiseBuckets).

#include <hiredis.h>

#include <charconv>
#include <set>
#include <thread>

#include "storage/like_clock.h"
#include "storage/redis_like_scripts.h"
#include "storage/redis_like_store.h"
#include "storage/redis_partition_log.h"

namespace ferry::like {

using storage::ErrorReplyStatus;
using storage::IsTextReply;
using storage::MalformedReply;
using storage::RedisReplyPtr;
using storage::ReplyInt;
using storage::ReplyText;

namespace {

// How long a raise waits for the record to take a frozen bucket's changes before it gives up
// (and unfreezes it): the writers wait meanwhile.
constexpr int64_t kRecordWaitMs = 2000;

// The user of a request field "<len>:<user>:<request id>".
std::string_view FieldUser(std::string_view field) {
  const size_t colon = field.find(':');
  size_t length = 0;
  if (colon == std::string_view::npos) return {};
  std::from_chars(field.data(), field.data() + colon, length);
  if (colon + 1 + length > field.size()) return {};
  return field.substr(colon + 1, length);
}

}  // namespace

Status RedisLikeStore::RaiseBuckets(int64_t content_id, uint32_t buckets) {
  if (buckets < 2 || buckets % 2 != 0 || buckets > 1024) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "buckets: a raise doubles the count, up to 1024; got " + std::to_string(buckets));
  }
  const uint32_t from = buckets / 2;
  if (layout_->BucketsOf(content_id) >= buckets) return Status::Ok();
  // A provider that has not heard of a raise to `from` yet resumes this one from its markers:
  // every bucket of `from` exists once a raise beyond it started.
  for (uint32_t k = 0; k < from; ++k) {
    if (Status s = SplitBucket(content_id, k, from); !s.ok()) return s;
  }
  if (Status s = database_->RecordLayout(content_id, buckets); !s.ok()) return s;
  layout_->Raise(content_id, buckets);
  return Status::Ok();
}

Status RedisLikeStore::AwaitRecord(uint32_t partition, const std::string& last_id) {
  if (last_id == "0-0") return Status::Ok();  // nothing was appended: nothing to wait for
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    PartitionCheckpoint checkpoint;
    if (Status s = database_->Checkpoint(partition, &checkpoint); !s.ok()) return s;
    RedisReplyPtr reply;
    if (Status s = pool_->Run({"HGET", PartitionKeys::For(partition).generation, "gen"}, &reply);
        !s.ok()) {
      return s;
    }
    int64_t current = 0;
    ReplyInt(reply.get(), &current);
    if (checkpoint.generation == current && !StreamIdBefore(checkpoint.last_id, last_id)) {
      return Status::Ok();
    }
    if (ElapsedMs(start) > kRecordWaitMs) {
      return Status(StatusCode::UNAVAILABLE, "partition " + std::to_string(partition) +
                                                 ": the database has not taken its "
                                                 "changes up to " +
                                                 last_id + " within 2 s (at " + checkpoint.last_id +
                                                 "): the raise waits for the record");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Status RedisLikeStore::SplitBucket(int64_t content_id, uint32_t k, uint32_t n) {
  const uint32_t to = 2 * n;
  const BucketKeys source = KeysOf(content_id, k);
  const BucketKeys target = KeysOf(content_id, k + n);
  const PartitionKeys source_partition = source.partition_keys();
  const PartitionKeys target_partition = target.partition_keys();
  std::string last_id;
  for (int attempt = 0;; ++attempt) {
    RedisReplyPtr reply;
    if (Status s = scripts_.Eval(
            kFreeze, {source.ready, source_partition.generation, source_partition.stream},
            {std::to_string(n), std::to_string(to)}, &reply);
        !s.ok()) {
      return s;
    }
    int64_t code = 0;
    if (reply->type == REDIS_REPLY_INTEGER) {
      code = reply->integer;
    } else if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 1 ||
               !ReplyInt(reply->element[0], &code)) {
      return MalformedReply("freeze");
    }
    if (code == 2) return Status::Ok();  // split already
    if (code == 1) {
      if (reply->elements < 2 || !IsTextReply(reply->element[1])) return MalformedReply("freeze");
      last_id = std::string(ReplyText(reply->element[1]));
      break;
    }
    if (attempt > 2) break;
    if (code == -6) {
      if (Status s = CheckGeneration(); !s.ok()) return s;
      continue;
    }
    if (code == -1) {
      if (Status s = LoadContent(content_id); !s.ok()) return s;
      continue;
    }
    const std::string layout = reply->elements > 1 && IsTextReply(reply->element[1])
                                   ? std::string(ReplyText(reply->element[1]))
                                   : "";
    return Status(StatusCode::FAILED_PRECONDITION,
                  "bucket " + source.ready + " is laid out as '" + layout + "', not " +
                      std::to_string(n) + ": cannot raise it to " + std::to_string(to));
  }
  if (last_id.empty()) {
    return Status(StatusCode::UNAVAILABLE, "bucket " + source.ready + " could not be frozen");
  }
  // The bucket's changes reach the record before its users move: a moved user's next change
  // goes to another partition, and the feed keeps each pair's changes in order.
  if (Status s = AwaitRecord(source.partition, last_id); !s.ok()) {
    RedisReplyPtr ignored;
    if (Status unfrozen = scripts_.Eval(kUnfreeze, {source.ready, source_partition.generation},
                                        {std::to_string(n), std::to_string(to)}, &ignored);
        !unfrozen.ok()) {
      return Status(s.code(),
                    s.message() + "; unfreezing the bucket failed too: " + unfrozen.message());
    }
    return s;
  }
  const int64_t window = options_.request_ttl_ms > 0 ? UnixMs() / options_.request_ttl_ms : 0;
  const std::string source_now = source.RequestWindow(window);
  const std::string source_before = source.RequestWindow(window - 1);
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline({{"SMEMBERS", source.members},
                                     {"HGETALL", source.versions},
                                     {"HGETALL", source_now},
                                     {"HGETALL", source_before}},
                                    &replies);
      !s.ok()) {
    return s;
  }
  for (const RedisReplyPtr& r : replies) {
    if (r->type != REDIS_REPLY_ARRAY) return ErrorReplyStatus("SMEMBERS", r.get());
  }
  std::set<std::string> members;
  for (size_t i = 0; i < replies[0]->elements; ++i) {
    members.emplace(ReplyText(replies[0]->element[i]));
  }
  std::map<std::string, std::string> versions;
  std::string floor = "0";
  for (size_t i = 0; i + 1 < replies[1]->elements; i += 2) {
    std::string user(ReplyText(replies[1]->element[i]));
    std::string version(ReplyText(replies[1]->element[i + 1]));
    if (user.empty()) {
      floor = std::move(version);
    } else {
      versions[std::move(user)] = std::move(version);
    }
  }
  for (const std::string& m : members) versions.try_emplace(m, "0");
  std::vector<std::string> load = {std::to_string(to), floor,
                                   TombstoneMember(content_id, k + n, ""),
                                   std::to_string(2 * options_.request_ttl_ms + 10000), ""};
  std::vector<std::string> moved = {std::to_string(to), ""};
  size_t moved_users = 0;
  for (const auto& [user, version] : versions) {
    if (BucketLayout::BucketIn(user, to) != k + n) continue;
    load.push_back(user);
    load.push_back(members.count(user) != 0 ? "1" : "0");
    load.push_back(version);
    moved.push_back(user);
    ++moved_users;
  }
  load[4] = std::to_string(moved_users);
  moved[1] = std::to_string(moved_users);
  for (int w = 0; w < 2; ++w) {
    const redisReply* fields = replies[2 + w].get();
    for (size_t i = 0; i + 1 < fields->elements; i += 2) {
      const std::string_view field = ReplyText(fields->element[i]);
      if (BucketLayout::BucketIn(FieldUser(field), to) != k + n) continue;
      load.push_back(w == 0 ? "now" : "before");
      load.push_back(std::string(field));
      load.push_back(std::string(ReplyText(fields->element[i + 1])));
      moved.push_back(std::string(field));
    }
  }
  // Only if the target is not loaded yet: a second raiser that read after the first finished
  // (and so misses the moved users) never overwrites it.
  RedisReplyPtr reply;
  if (Status s = scripts_.Eval(kSplitLoad,
                               {target.members, target.count, target.versions, target.ready,
                                target_partition.generation, target_partition.tombstones,
                                target.RequestWindow(window), target.RequestWindow(window - 1)},
                               load, &reply);
      !s.ok()) {
    return s;
  }
  if (reply->type != REDIS_REPLY_INTEGER || reply->integer < 0) {
    // The target's generation key is gone (a flush): the source stays frozen, and whoever
    // meets it resumes the raise.
    if (Status s = CheckGeneration(); !s.ok()) return s;
    return Status(StatusCode::UNAVAILABLE, "bucket " + target.ready + " could not be loaded");
  }
  return scripts_.Eval(kFinishSplit,
                       {source.members, source.count, source.versions, source.ready,
                        source_partition.generation, source_now, source_before},
                       moved, &reply);
}

}  // namespace ferry::like
