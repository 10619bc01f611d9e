#include "storage/redis_like_store.h"
#include "storage/like_clock.h"

#include <hiredis.h>

#include <charconv>
#include <chrono>
#include <thread>

#include "storage/redis_like_scripts.h"

namespace ferry::like {

using storage::ErrorReplyStatus;
using storage::IsTextReply;
using storage::MalformedReply;
using storage::RedisReplyPtr;
using storage::ReplyInt;
using storage::ReplyText;

namespace {

// How long a write waits for a frozen bucket before it finishes the raise itself (its raiser
// may have died), and how long a call tries at all.
constexpr int64_t kResumeAfterMs = 1000;
constexpr int64_t kGiveUpAfterMs = 5000;
// Request windows live twice their length, and a little more for clocks that disagree.
constexpr int64_t kRequestClockSlackMs = 10000;

Status BacklogFull(int64_t content_id, uint32_t partition, int64_t limit) {
  return Status(StatusCode::RESOURCE_EXHAUSTED,
                "content " + std::to_string(content_id) + ": partition " +
                    std::to_string(partition) + " holds " + std::to_string(limit) +
                    " changes the database has not taken yet (event_writer.max_backlog); the "
                    "record lags, retry later");
}

}  // namespace

bool ParseMarkerLayout(std::string_view text, MarkerLayout* out) {
  out->moving = text.starts_with("m:");
  if (out->moving) text.remove_prefix(2);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out->buckets);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size() && out->buckets > 0;
}

int64_t ElapsedMs(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               since)
      .count();
}

RedisLikeStore::RedisLikeStore(storage::RedisConnectionPool* pool, LikeDatabase* database,
                               BucketLayout* layout, storage::RedisGeneration* generation,
                               RedisLikeOptions options)
    : pool_(pool),
      database_(database),
      layout_(layout),
      generation_(generation),
      options_(options),
      scripts_(pool, LikeScripts()),
      empty_(std::chrono::milliseconds(options.empty_cache_ms), options.empty_cache_entries) {}

Status RedisLikeStore::Connect() { return scripts_.LoadAll(); }

Status RedisLikeStore::CheckGeneration() { return generation_->Check(*pool_); }

RedisLikeStore::ScriptCall RedisLikeStore::MakeScriptCall(int64_t content_id,
                                                          const std::string& user_id, bool liked,
                                                          const std::string& request_id,
                                                          uint32_t layout) const {
  ScriptCall call{.content_id = content_id,
                  .layout = layout,
                  .bucket = BucketLayout::BucketIn(user_id, layout)};
  const BucketKeys keys = KeysOf(content_id, call.bucket);
  call.partition = keys.partition;
  const PartitionKeys partition = keys.partition_keys();
  call.keys = {keys.members,         keys.count,       keys.versions,       keys.ready,
               partition.generation, partition.stream, partition.tombstones};
  const bool remember = !request_id.empty() && options_.request_ttl_ms > 0;
  if (remember) {
    const int64_t window = UnixMs() / options_.request_ttl_ms;
    call.keys.push_back(keys.RequestWindow(window));
    call.keys.push_back(keys.RequestWindow(window - 1));
  }
  call.args = {user_id,
               liked ? "1" : "0",
               std::to_string(content_id),
               std::to_string(call.bucket),
               std::to_string(layout),
               remember ? RequestField(user_id, request_id) : std::string(),
               std::to_string(2 * options_.request_ttl_ms + kRequestClockSlackMs),
               std::to_string(options_.max_backlog),
               TombstoneMember(content_id, call.bucket, user_id)};
  return call;
}

Status RedisLikeStore::ReadAnswer(const redisReply* r, const ScriptCall& call, bool liked,
                                  const std::string& request_id, SetLikeResult* out, int64_t* code,
                                  std::string* marker) {
  if (r->type != REDIS_REPLY_ARRAY || r->elements < 3) return MalformedReply("set_like");
  int64_t count = 0;
  int64_t version = 0;
  if (!ReplyInt(r->element[0], code) || !ReplyInt(r->element[1], &count) ||
      !ReplyInt(r->element[2], &version)) {
    return MalformedReply("set_like");
  }
  if (*code == -4) return RequestIdReused(request_id, liked);
  if (*code == -5) return BacklogFull(call.content_id, call.partition, options_.max_backlog);
  if (*code == -3) {
    if (r->elements < 4 || !IsTextReply(r->element[3])) return MalformedReply("set_like");
    *marker = std::string(ReplyText(r->element[3]));
  }
  if (*code < 0) return Status::Ok();
  *out = {.changed = *code % 2 == 1,
          .version = version,
          .layout = call.layout,
          .bucket = call.bucket,
          .bucket_count = count,
          .replayed = *code >= 2};
  return Status::Ok();
}

Status RedisLikeStore::SetLike(int64_t content_id, const std::string& user_id, bool liked,
                               const std::string& request_id, SetLikeResult* out) {
  const auto start = std::chrono::steady_clock::now();
  // A bucket a raise has moved on is written in its new layout, for this call only: the
  // provider adopts the layout once the raise is recorded.
  uint32_t layout = layout_->BucketsOf(content_id);
  while (true) {
    if (ElapsedMs(start) > kGiveUpAfterMs) {
      return Status(StatusCode::UNAVAILABLE,
                    "content " + std::to_string(content_id) +
                        ": its bucket stayed frozen by a raise or unloadable for 5 s");
    }
    const ScriptCall call = MakeScriptCall(content_id, user_id, liked, request_id, layout);
    RedisReplyPtr reply;
    if (Status s = scripts_.Eval(kSetLike, call.keys, call.args, &reply); !s.ok()) return s;
    int64_t code = 0;
    std::string marker;
    if (Status s = ReadAnswer(reply.get(), call, liked, request_id, out, &code, &marker);
        !s.ok() || code >= 0) {
      return s;
    }
    if (code == -6) {
      if (Status s = CheckGeneration(); !s.ok()) return s;
      continue;
    }
    if (code == -1) {
      layout = layout_->BucketsOf(content_id);
      if (Status s = LoadContent(content_id); !s.ok()) return s;
      layout = layout_->BucketsOf(content_id);
      continue;
    }
    MarkerLayout found;
    if (!ParseMarkerLayout(marker, &found)) {
      return Status(StatusCode::INTERNAL, "content " + std::to_string(content_id) +
                                              ": unreadable bucket marker '" + marker + "'");
    }
    if (found.moving) {
      // Frozen by a raise to found.buckets: its writers wait for the split of this one bucket.
      if (ElapsedMs(start) >= kResumeAfterMs) {
        if (Status s = RaiseBuckets(content_id, found.buckets); !s.ok()) return s;
        layout = layout_->BucketsOf(content_id);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      continue;
    }
    if (found.buckets < layout) {
      return Status(StatusCode::FAILED_PRECONDITION,
                    "content " + std::to_string(content_id) + ": its Redis bucket " +
                        std::to_string(call.bucket) + " is laid out for " +
                        std::to_string(found.buckets) +
                        " buckets, this provider's configuration for " + std::to_string(layout) +
                        ": run Reconcile with repair while the content is quiet");
    }
    // Moved on by a raise: the user's bucket is one of the two this one split into. (The
    // marker's layout may be several raises on; the user's own bucket is followed one at a time.)
    layout *= 2;
    RefreshLayout(content_id);
  }
}

bool RedisLikeStore::SetLikeAsync(int64_t content_id, const std::string& user_id, bool liked,
                                  const std::string& request_id, SetLikeDone done) {
  auto call = std::make_shared<ScriptCall>(
      MakeScriptCall(content_id, user_id, liked, request_id, layout_->BucketsOf(content_id)));
  return scripts_.EvalAsync(kSetLike, call->keys, call->args,
                            [this, call, liked, request_id, done = std::move(done)](
                                AsyncOutcome outcome, const Status& status, RedisReplyPtr reply) {
                              if (outcome != AsyncOutcome::kAnswered)
                                return done(outcome, status, {});
                              SetLikeResult result;
                              int64_t code = 0;
                              std::string marker;
                              Status s = ReadAnswer(reply.get(), *call, liked, request_id, &result,
                                                    &code, &marker);
                              if (!s.ok()) return done(AsyncOutcome::kFailed, s, {});
                              if (code < 0) return done(AsyncOutcome::kNotRun, Status::Ok(), {});
                              done(AsyncOutcome::kAnswered, Status::Ok(), result);
                            });
}

void RedisLikeStore::RefreshLayout(int64_t content_id) {
  {
    std::lock_guard lock(refresh_mu_);
    const auto now = std::chrono::steady_clock::now();
    auto [it, added] = refreshed_.try_emplace(content_id, now);
    if (!added && now - it->second < std::chrono::seconds(1)) return;
    it->second = now;
    if (refreshed_.size() > 100000) refreshed_.clear();
  }
  uint32_t recorded = 0;
  if (database_->Layout(content_id, &recorded).ok() && recorded > 0) {
    layout_->Raise(content_id, recorded);
  }
}

Status RedisLikeStore::Marker(int64_t content_id, uint32_t bucket, std::string* marker,
                              std::string* generation) {
  const BucketKeys keys = KeysOf(content_id, bucket);
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(
          {{"GET", keys.ready}, {"HGET", keys.partition_keys().generation, "gen"}}, &replies);
      !s.ok()) {
    return s;
  }
  for (const RedisReplyPtr& r : replies) {
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET", r.get());
  }
  *marker = IsTextReply(replies[0].get()) ? std::string(ReplyText(replies[0].get())) : "";
  *generation = IsTextReply(replies[1].get()) ? std::string(ReplyText(replies[1].get())) : "";
  return Status::Ok();
}

Status RedisLikeStore::CheckLoadedLayouts(std::span<const int64_t> content_ids,
                                          std::map<int64_t, uint32_t>* other) {
  // The buckets Redis holds of a content must be of the layout loaded now: missing buckets of
  // another layout would put users in two buckets.
  other->clear();
  std::vector<std::vector<std::string>> commands;
  for (int64_t content : content_ids) {
    for (uint32_t b = 0; b < layout_->BucketsOf(content); ++b) {
      const BucketKeys keys = KeysOf(content, b);
      commands.push_back({"GET", keys.ready});
      commands.push_back({"HGET", keys.partition_keys().generation, "gen"});
    }
  }
  std::vector<RedisReplyPtr> replies;
  if (Status s = pool_->RunPipeline(commands, &replies); !s.ok()) return s;
  size_t at = 0;
  for (int64_t content : content_ids) {
    const uint32_t layout = layout_->BucketsOf(content);
    for (uint32_t b = 0; b < layout; ++b, at += 2) {
      const redisReply* marker = replies[at].get();
      const redisReply* generation = replies[at + 1].get();
      if (marker->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET", marker);
      if (!IsTextReply(marker) || !IsTextReply(generation)) continue;
      const std::string_view text = ReplyText(marker);
      const size_t sep = text.find('@');
      if (sep == std::string_view::npos || text.substr(sep + 1) != ReplyText(generation)) {
        continue;
      }
      MarkerLayout found;
      if (!ParseMarkerLayout(text.substr(0, sep), &found)) {
        return Status(StatusCode::INTERNAL, "content " + std::to_string(content) +
                                                ": unreadable bucket marker '" + std::string(text) +
                                                "'");
      }
      const uint32_t holds = found.moving ? found.buckets / 2 : found.buckets;
      if (holds != layout) (*other)[content] = holds;
    }
  }
  return Status::Ok();
}

Status RedisLikeStore::LoadContent(int64_t content_id) {
  const int64_t ids[] = {content_id};
  return LoadContents(ids);
}

Status RedisLikeStore::LoadContents(std::span<const int64_t> content_ids) {
  if (content_ids.empty()) return Status::Ok();
  std::map<int64_t, uint32_t> recorded;
  if (Status s = database_->LayoutsOf(content_ids, &recorded); !s.ok()) return s;
  for (const auto& [content, buckets] : recorded) layout_->Raise(content, buckets);
  std::map<int64_t, uint32_t> other;
  if (Status s = CheckLoadedLayouts(content_ids, &other); !s.ok()) return s;
  std::vector<int64_t> load;
  for (int64_t content : content_ids) {
    auto it = other.find(content);
    if (it == other.end()) {
      load.push_back(content);
      continue;
    }
    const uint32_t layout = layout_->BucketsOf(content);
    if (it->second < layout) {
      return Status(StatusCode::FAILED_PRECONDITION,
                    "content " + std::to_string(content) + ": its Redis buckets are laid out for " +
                        std::to_string(it->second) +
                        " buckets, this provider's configuration for " + std::to_string(layout) +
                        ": run Reconcile with repair while the content is quiet");
    }
    // Raised in Redis and not recorded yet (a raiser stopped after its last split): finished
    // and recorded here, then the content is loaded in that layout.
    if (it->second != 2 * layout) {
      return Status(StatusCode::UNAVAILABLE, "content " + std::to_string(content) +
                                                 ": its buckets are laid out for " +
                                                 std::to_string(it->second) + " in Redis, " +
                                                 std::to_string(layout) + " in the record");
    }
    if (Status s = RaiseBuckets(content, it->second); !s.ok()) return s;
    if (Status s = LoadContent(content); !s.ok()) return s;
  }
  if (load.empty()) return Status::Ok();
  std::map<int64_t, std::vector<LikeRow>> rows;
  if (Status s = database_->ContentRows(load, &rows); !s.ok()) return s;
  std::vector<storage::RedisScriptSet::Call> calls;
  for (int64_t content : load) {
    const uint32_t layout = layout_->BucketsOf(content);
    // Only a content nobody liked leaves nothing lasting: one with likes keeps all its
    // buckets' markers, empty ones included, so that a marker missing next to others means an
    // empty bucket (RedisLikeOptions::changes_through_streams).
    const std::string empty_ttl =
        rows[content].empty() ? std::to_string(options_.empty_ttl_ms) : "0";
    std::vector<std::vector<const LikeRow*>> by_bucket(layout);
    for (const LikeRow& row : rows[content]) {
      by_bucket[BucketLayout::BucketIn(row.user_id, layout)].push_back(&row);
    }
    for (uint32_t b = 0; b < layout; ++b) {
      const BucketKeys keys = KeysOf(content, b);
      const PartitionKeys partition = keys.partition_keys();
      int64_t floor = 0;
      for (const LikeRow* row : by_bucket[b]) floor = std::max(floor, row->version);
      storage::RedisScriptSet::Call call{
          .index = kLoadBucket,
          .keys = {keys.members, keys.count, keys.versions, keys.ready, partition.generation,
                   partition.tombstones},
          .args = {std::to_string(layout), empty_ttl, std::to_string(floor),
                   TombstoneMember(content, b, "")}};
      call.args.reserve(4 + 3 * by_bucket[b].size());
      for (const LikeRow* row : by_bucket[b]) {
        call.args.push_back(row->user_id);
        call.args.push_back(row->liked ? "1" : "0");
        call.args.push_back(std::to_string(row->version));
      }
      calls.push_back(std::move(call));
    }
  }
  std::vector<RedisReplyPtr> replies;
  if (Status s = EvalInGeneration(calls, &replies); !s.ok()) return s;
  for (int64_t content : load) empty_.Remove(content);
  return Status::Ok();
}

Status RedisLikeStore::EvalInGeneration(const std::vector<storage::RedisScriptSet::Call>& calls,
                                        std::vector<RedisReplyPtr>* replies) {
  for (int attempt = 0;; ++attempt) {
    if (Status s = scripts_.EvalPipeline(calls, replies); !s.ok()) return s;
    bool no_generation = false;
    for (size_t i = 0; i < replies->size(); ++i) {
      const redisReply* r = (*replies)[i].get();
      if (r->type == REDIS_REPLY_ERROR) {
        return ErrorReplyStatus("EVALSHA " + std::string(scripts_.scripts()[calls[i].index].name),
                                r);
      }
      no_generation = no_generation || (r->type == REDIS_REPLY_INTEGER && r->integer == -6);
    }
    if (!no_generation) return Status::Ok();
    if (attempt > 0) return Status(StatusCode::UNAVAILABLE, "Redis lost its generation keys again");
    if (Status s = CheckGeneration(); !s.ok()) return s;
  }
}


}  // namespace ferry::like
