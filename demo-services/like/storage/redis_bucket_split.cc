// Raising a content's bucket count on Redis while its writers run (RedisLikeStore::RaiseBuckets).

#include <hiredis.h>

#include <charconv>
#include <set>
#include <thread>

#include "storage/redis_like_keys.h"
#include "storage/redis_like_scripts.h"
#include "storage/redis_like_store.h"

namespace ferry::like {

using storage::ErrorReplyStatus;
using storage::MalformedReply;
using storage::RedisReplyPtr;
using storage::ReplyText;

namespace {

// How long a call waits for a raise in progress before it finishes the raise itself (its
// raiser may have died), and before it gives up.
constexpr int64_t kResumeAfterMs = 1000;
constexpr int64_t kGiveUpAfterMs = 5000;

bool ParseCount(std::string_view text, uint32_t* value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && *value > 0;
}

}  // namespace

Status RedisLikeStore::AwaitLayout(int64_t content_id, uint32_t buckets, const std::string& marker,
                                   int64_t waited_ms) {
  const std::string content = "content " + std::to_string(content_id);
  if (waited_ms > kGiveUpAfterMs) {
    return Status(StatusCode::UNAVAILABLE, content + ": its buckets are being raised (marker '" +
                                               marker + "') for more than 5 s");
  }
  if (marker.empty()) return Status::Ok();  // gone meanwhile: the next try loads it
  uint32_t recorded = 0;
  if (Status s = database_->Layout(content_id, &recorded); !s.ok()) return s;
  if (recorded > buckets) {
    layout_->Raise(content_id, recorded);
    return Status::Ok();
  }
  const bool moving = marker.starts_with("m:");
  uint32_t target = 0;
  if (!ParseCount(moving ? std::string_view(marker).substr(2) : std::string_view(marker),
                  &target)) {
    return Status(StatusCode::INTERNAL, content + ": unreadable bucket marker '" + marker + "'");
  }
  if (target < buckets) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  content + ": its Redis buckets are laid out for " + std::to_string(target) +
                      " buckets, this provider's configuration for " + std::to_string(buckets) +
                      ": run Reconcile with repair while the content is quiet");
  }
  if (target == buckets) return Status::Ok();  // a load raced with this call's read
  // A raise in progress (moving), or finished in Redis and not yet recorded.
  if (waited_ms >= kResumeAfterMs) return RaiseBuckets(content_id, target);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return Status::Ok();
}

Status RedisLikeStore::RaiseBuckets(int64_t content_id, uint32_t buckets) {
  const uint32_t from = buckets / 2;
  if (buckets < 2 || buckets % 2 != 0 || buckets > 1024) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "buckets: a raise doubles the count, up to 1024; got " + std::to_string(buckets));
  }
  if (layout_->BucketsOf(content_id) >= buckets) return Status::Ok();
  for (uint32_t k = 0; k < from; ++k) {
    if (Status s = SplitBucket(content_id, k, from); !s.ok()) return s;
  }
  if (Status s = database_->RecordLayout(content_id, buckets); !s.ok()) return s;
  layout_->Raise(content_id, buckets);
  return Status::Ok();
}

Status RedisLikeStore::SplitBucket(int64_t content_id, uint32_t k, uint32_t from) {
  const uint32_t to = 2 * from;
  const BucketKeys source = BucketKeys::For(content_id, k);
  const BucketKeys target = BucketKeys::For(content_id, k + from);
  RedisReplyPtr reply;
  for (int attempt = 0;; ++attempt) {
    if (Status s = scripts_.Eval(kFreeze, {source.ready},
                                 {std::to_string(from), std::to_string(to)}, &reply);
        !s.ok()) {
      return s;
    }
    if (reply->type != REDIS_REPLY_INTEGER) return MalformedReply("freeze");
    if (reply->integer == 1) break;
    std::string marker;
    if (Status s = ReadyMarker(content_id, k, &marker); !s.ok()) return s;
    if (marker == std::to_string(to)) return Status::Ok();  // done already
    // Not in Redis: loaded first (under the old layout), so that no writer can load it that
    // way after this raise has passed it.
    if (marker.empty() && attempt == 0) {
      if (Status s = LoadBucketOf(content_id, k, from, false); !s.ok()) return s;
      continue;
    }
    return Status(StatusCode::FAILED_PRECONDITION,
                  "bucket " + source.ready + " is marked '" + marker + "', not " +
                      std::to_string(from) + ": cannot raise it to " + std::to_string(to));
  }
  if (Status s = RegisterStream(target.events); !s.ok()) return s;
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline({{"SMEMBERS", source.members}, {"HGETALL", source.versions}},
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
  for (size_t i = 0; i + 1 < replies[1]->elements; i += 2) {
    versions[std::string(ReplyText(replies[1]->element[i]))] =
        std::string(ReplyText(replies[1]->element[i + 1]));
  }
  for (const std::string& m : members) versions.try_emplace(m, "0");
  std::vector<std::string> load = {"0", std::to_string(to)};
  std::vector<std::string> moved = {std::to_string(to)};
  for (const auto& [user, version] : versions) {
    if (BucketLayout::BucketIn(user, to) != k + from) continue;
    load.push_back(user);
    load.push_back(members.count(user) != 0 ? "1" : "0");
    load.push_back(version);
    moved.push_back(user);
  }
  // Only if the target is not loaded yet: a second raiser that read after the first finished
  // (and so misses the moved users) never overwrites it.
  if (Status s = scripts_.Eval(
          kLoadBucket, {target.members, target.count, target.versions, target.ready}, load, &reply);
      !s.ok()) {
    return s;
  }
  return scripts_.Eval(kFinishSplit, {source.members, source.count, source.versions, source.ready},
                       moved, &reply);
}

}  // namespace ferry::like
