// RedisLikeStore's reads: counts and a user's states, from the buckets Redis holds in their
// partition's generation and, for buckets it does not hold, from the record, loading nothing.

#include <hiredis.h>

#include <map>
#include <set>

#include "storage/redis_like_store.h"

namespace ferry::like {

using storage::ErrorReplyStatus;
using storage::IsTextReply;
using storage::MalformedReply;
using storage::RedisReplyPtr;
using storage::ReplyInt;
using storage::ReplyText;

namespace {

// Rounds of reads a call makes at most: each follows a raise one level or loads a content.
constexpr int kMaxRounds = 12;

// What a marker says against its partition's generation.
struct MarkerState {
  enum Kind { kMissing, kStale, kCurrent } kind = kMissing;
  MarkerLayout layout;
};

bool ReadMarker(const redisReply* reply, const std::string& generation, MarkerState* out) {
  *out = {};
  if (reply->type == REDIS_REPLY_NIL) return true;
  if (!IsTextReply(reply)) return false;
  const std::string_view marker = ReplyText(reply);
  const size_t at = marker.find('@');
  if (at == std::string_view::npos) return false;
  if (marker.substr(at + 1) != generation) {
    out->kind = MarkerState::kStale;
    return true;
  }
  out->kind = MarkerState::kCurrent;
  return ParseMarkerLayout(marker.substr(0, at), &out->layout);
}

// Commands of one pipeline, with each partition's generation read once.
class ReadPipeline {
 public:
  size_t Add(std::vector<std::string> command) {
    commands_.push_back(std::move(command));
    return commands_.size() - 1;
  }
  void NeedGeneration(uint32_t partition) {
    if (generation_at_.count(partition) == 0) {
      generation_at_[partition] = Add({"HGET", PartitionKeys::For(partition).generation, "gen"});
    }
  }
  Status Run(storage::RedisConnectionPool& pool) {
    if (Status s = pool.RunPipeline(commands_, &replies_); !s.ok()) return s;
    for (const RedisReplyPtr& r : replies_) {
      if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("GET", r.get());
    }
    for (const auto& [partition, at] : generation_at_) {
      const redisReply* r = replies_[at].get();
      if (!IsTextReply(r)) {
        missing_generation_ = true;
        continue;
      }
      generations_[partition] = std::string(ReplyText(r));
    }
    return Status::Ok();
  }
  bool missing_generation() const { return missing_generation_; }
  const std::string& generation(uint32_t partition) { return generations_[partition]; }
  const redisReply* reply(size_t at) const { return replies_[at].get(); }

 private:
  std::vector<std::vector<std::string>> commands_;
  std::vector<RedisReplyPtr> replies_;
  std::map<uint32_t, size_t> generation_at_;
  std::map<uint32_t, std::string> generations_;
  bool missing_generation_ = false;
};

}  // namespace

Status RedisLikeStore::Counts(std::span<const int64_t> content_ids,
                              std::vector<ContentCounts>* out) {
  out->assign(content_ids.size(), {});
  std::vector<size_t> todo(content_ids.size());
  for (size_t i = 0; i < todo.size(); ++i) todo[i] = i;
  std::vector<size_t> unloaded;
  for (int round = 0; !todo.empty(); ++round) {
    if (round == kMaxRounds) {
      return Status(StatusCode::UNAVAILABLE, "the contents' buckets kept changing while read");
    }
    ReadPipeline pipeline;
    struct Read {
      size_t index;
      uint32_t layout;
      std::vector<size_t> at;  // each bucket's (marker, count) replies
    };
    std::vector<Read> reads;
    for (size_t i : todo) {
      const int64_t content = content_ids[i];
      Read read{.index = i, .layout = layout_->BucketsOf(content)};
      for (uint32_t b = 0; b < read.layout; ++b) {
        const BucketKeys keys = KeysOf(content, b);
        pipeline.NeedGeneration(keys.partition);
        read.at.push_back(pipeline.Add({"GET", keys.ready}));
        pipeline.Add({"GET", keys.count});
      }
      reads.push_back(std::move(read));
    }
    if (Status s = pipeline.Run(*pool_); !s.ok()) return s;
    if (pipeline.missing_generation()) {
      if (Status s = CheckGeneration(); !s.ok()) return s;
      continue;
    }
    std::vector<size_t> again;
    std::vector<int64_t> partial;
    for (const Read& read : reads) {
      const int64_t content = content_ids[read.index];
      ContentCounts counts{.layout = read.layout};
      counts.buckets.assign(read.layout, 0);
      uint32_t loaded = 0;
      uint32_t stale = 0;
      std::vector<uint32_t> raised;  // buckets a raise moved on: read in their new layout
      for (uint32_t b = 0; b < read.layout; ++b) {
        MarkerState state;
        const size_t at = read.at[b];
        if (!ReadMarker(pipeline.reply(at),
                        pipeline.generation(PartitionOf(content, b, options_.partitions)),
                        &state) ||
            !ReplyInt(pipeline.reply(at + 1), &counts.buckets[b])) {
          return MalformedReply("GET of bucket " + std::to_string(b) + " of content " +
                                std::to_string(content));
        }
        if (state.kind != MarkerState::kCurrent) {
          stale += state.kind == MarkerState::kStale ? 1 : 0;
          counts.buckets[b] = 0;
          continue;
        }
        ++loaded;
        if (!state.layout.moving && state.layout.buckets > read.layout) raised.push_back(b);
        if (!state.layout.moving && state.layout.buckets < read.layout) {
          return Status(
              StatusCode::FAILED_PRECONDITION,
              "content " + std::to_string(content) + ": its Redis buckets are laid out for " +
                  std::to_string(state.layout.buckets) + " buckets, this provider's for " +
                  std::to_string(read.layout) + ": run Reconcile with repair");
        }
      }
      if (loaded == 0) {
        unloaded.push_back(read.index);
        continue;
      }
      if (loaded < read.layout && (stale > 0 || !options_.changes_through_streams)) {
        // A content being written: its other buckets are loaded, so that every bucket is
        // read in the same layout.
        partial.push_back(content);
        again.push_back(read.index);
        continue;
      }
      for (uint32_t b : raised) {
        if (Status s = SplitCount(content, b, read.layout, &counts.buckets[b]); !s.ok()) return s;
      }
      if (!raised.empty()) RefreshLayout(content);
      (*out)[read.index] = std::move(counts);
    }
    if (Status s = LoadContents(partial); !s.ok()) return s;
    if (!unloaded.empty()) {
      std::vector<int64_t> ids;
      for (size_t i : unloaded) ids.push_back(content_ids[i]);
      std::vector<bool> loaded_now;
      if (Status s = LoadLiked(ids, &loaded_now); !s.ok()) return s;
      for (size_t k = 0; k < unloaded.size(); ++k) {
        if (loaded_now[k]) {
          again.push_back(unloaded[k]);
        } else {
          (*out)[unloaded[k]] = {.layout = 0, .buckets = {0}};
        }
      }
      unloaded.clear();
    }
    todo = std::move(again);
  }
  return Status::Ok();
}

Status RedisLikeStore::LoadLiked(std::span<const int64_t> content_ids, std::vector<bool>* loaded) {
  // Contents nobody liked are remembered as such in process, and leave nothing in Redis; the
  // others are loaded, once, so that the next reads come from Redis.
  loaded->assign(content_ids.size(), false);
  std::vector<int64_t> ask;
  std::vector<bool> asked(content_ids.size(), false);
  for (size_t i = 0; i < content_ids.size(); ++i) {
    if (empty_.Contains(content_ids[i])) continue;
    ask.push_back(content_ids[i]);
    asked[i] = true;
  }
  if (ask.empty()) return Status::Ok();
  std::map<int64_t, std::map<uint32_t, int64_t>> rows;
  if (Status s = database_->CountRows(ask, &rows); !s.ok()) return s;
  std::vector<int64_t> liked;
  for (size_t i = 0; i < content_ids.size(); ++i) {
    if (!asked[i]) continue;
    auto it = rows.find(content_ids[i]);
    int64_t total = 0;
    if (it != rows.end()) {
      for (const auto& [bucket, n] : it->second) total += n;
    }
    if (total == 0) {
      empty_.Add(content_ids[i]);
      continue;
    }
    liked.push_back(content_ids[i]);
    (*loaded)[i] = true;
  }
  return LoadContents(liked);
}

Status RedisLikeStore::SplitCount(int64_t content_id, uint32_t bucket, uint32_t layout,
                                  int64_t* count) {
  // Bucket k of n moved to 2n: its users are k's and k + n's, each maybe raised further.
  *count = 0;
  std::vector<std::pair<uint32_t, uint32_t>> frontier = {{bucket, 2 * layout},
                                                         {bucket + layout, 2 * layout}};
  for (int round = 0; !frontier.empty(); ++round) {
    if (round == kMaxRounds) return Status(StatusCode::UNAVAILABLE, "raises kept moving");
    ReadPipeline pipeline;
    std::vector<size_t> at;
    for (const auto& [b, n] : frontier) {
      const BucketKeys keys = KeysOf(content_id, b);
      pipeline.NeedGeneration(keys.partition);
      at.push_back(pipeline.Add({"GET", keys.ready}));
      pipeline.Add({"GET", keys.count});
    }
    if (Status s = pipeline.Run(*pool_); !s.ok()) return s;
    std::vector<std::pair<uint32_t, uint32_t>> next;
    for (size_t i = 0; i < frontier.size(); ++i) {
      const auto [b, n] = frontier[i];
      MarkerState state;
      int64_t n_count = 0;
      if (!ReadMarker(pipeline.reply(at[i]),
                      pipeline.generation(PartitionOf(content_id, b, options_.partitions)),
                      &state) ||
          !ReplyInt(pipeline.reply(at[i] + 1), &n_count)) {
        return MalformedReply("GET");
      }
      if (state.kind == MarkerState::kCurrent && !state.layout.moving && state.layout.buckets > n) {
        next.push_back({b, 2 * n});
        next.push_back({b + n, 2 * n});
        continue;
      }
      *count += n_count;
    }
    frontier = std::move(next);
  }
  return Status::Ok();
}

Status RedisLikeStore::EmptyBuckets(std::span<const int64_t> content_ids,
                                    const std::vector<uint32_t>& layouts,
                                    std::vector<size_t>* missing) {
  if (!options_.changes_through_streams || missing->empty()) return Status::Ok();
  // A bucket missing its marker next to a loaded one of the same content is empty: those
  // leave `missing` (their user likes nothing there).
  ReadPipeline pipeline;
  std::vector<std::vector<size_t>> at(missing->size());
  for (size_t k = 0; k < missing->size(); ++k) {
    const int64_t content = content_ids[(*missing)[k]];
    for (uint32_t b = 0; b < layouts[(*missing)[k]]; ++b) {
      const BucketKeys keys = KeysOf(content, b);
      pipeline.NeedGeneration(keys.partition);
      at[k].push_back(pipeline.Add({"GET", keys.ready}));
    }
  }
  if (Status s = pipeline.Run(*pool_); !s.ok()) return s;
  std::vector<size_t> unknown;
  for (size_t k = 0; k < missing->size(); ++k) {
    const int64_t content = content_ids[(*missing)[k]];
    bool other_loaded = false;
    for (uint32_t b = 0; b < at[k].size() && !other_loaded; ++b) {
      MarkerState state;
      if (!ReadMarker(pipeline.reply(at[k][b]),
                      pipeline.generation(PartitionOf(content, b, options_.partitions)), &state)) {
        return MalformedReply("GET");
      }
      other_loaded = state.kind == MarkerState::kCurrent;
    }
    if (!other_loaded) unknown.push_back((*missing)[k]);
  }
  *missing = std::move(unknown);
  return Status::Ok();
}

Status RedisLikeStore::HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                                std::vector<bool>* out) {
  out->assign(content_ids.size(), false);
  // Each content's layout to read the user's bucket in: a raise may have moved it on.
  std::vector<uint32_t> layouts(content_ids.size());
  std::vector<size_t> todo(content_ids.size());
  for (size_t i = 0; i < todo.size(); ++i) {
    todo[i] = i;
    layouts[i] = layout_->BucketsOf(content_ids[i]);
  }
  std::vector<size_t> from_record;
  for (int round = 0; !todo.empty(); ++round) {
    if (round == kMaxRounds) {
      return Status(StatusCode::UNAVAILABLE, "the contents' buckets kept changing while read");
    }
    ReadPipeline pipeline;
    std::vector<size_t> at;
    for (size_t i : todo) {
      const BucketKeys keys = KeysOf(content_ids[i], BucketLayout::BucketIn(user_id, layouts[i]));
      pipeline.NeedGeneration(keys.partition);
      at.push_back(pipeline.Add({"GET", keys.ready}));
      pipeline.Add({"SISMEMBER", keys.members, user_id});
    }
    if (Status s = pipeline.Run(*pool_); !s.ok()) return s;
    if (pipeline.missing_generation()) {
      if (Status s = CheckGeneration(); !s.ok()) return s;
      continue;
    }
    std::vector<size_t> again;
    std::vector<int64_t> stale;
    std::vector<size_t> missing;
    for (size_t j = 0; j < todo.size(); ++j) {
      const size_t i = todo[j];
      const uint32_t bucket = BucketLayout::BucketIn(user_id, layouts[i]);
      MarkerState state;
      int64_t member = 0;
      if (!ReadMarker(pipeline.reply(at[j]),
                      pipeline.generation(PartitionOf(content_ids[i], bucket, options_.partitions)),
                      &state) ||
          !ReplyInt(pipeline.reply(at[j] + 1), &member)) {
        return MalformedReply("SISMEMBER");
      }
      if (state.kind == MarkerState::kMissing) {
        missing.push_back(i);
      } else if (state.kind == MarkerState::kStale) {
        // Redis holds an earlier generation's copy, maybe with changes the record lacks yet.
        stale.push_back(content_ids[i]);
        again.push_back(i);
      } else if (!state.layout.moving && state.layout.buckets > layouts[i]) {
        layouts[i] *= 2;
        again.push_back(i);
      } else if (!state.layout.moving && state.layout.buckets < layouts[i]) {
        return Status(StatusCode::FAILED_PRECONDITION,
                      "content " + std::to_string(content_ids[i]) +
                          ": its Redis buckets are laid out for fewer buckets than this "
                          "provider's configuration: run Reconcile with repair");
      } else {
        (*out)[i] = member == 1;
      }
    }
    if (Status s = LoadContents(stale); !s.ok()) return s;
    if (Status s = EmptyBuckets(content_ids, layouts, &missing); !s.ok()) return s;
    from_record.insert(from_record.end(), missing.begin(), missing.end());
    if (!from_record.empty()) {
      // Not in Redis: nothing if nobody liked the content, else loaded and read again.
      std::vector<int64_t> ids;
      for (size_t i : from_record) ids.push_back(content_ids[i]);
      std::vector<bool> loaded_now;
      if (Status s = LoadLiked(ids, &loaded_now); !s.ok()) return s;
      for (size_t k = 0; k < from_record.size(); ++k) {
        if (loaded_now[k]) again.push_back(from_record[k]);
      }
      from_record.clear();
    }
    todo = std::move(again);
  }
  return Status::Ok();
}

}  // namespace ferry::like
