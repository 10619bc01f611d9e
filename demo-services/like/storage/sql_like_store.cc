#include "storage/sql_like_store.h"
#include "storage/like_clock.h"

#include <chrono>

#include "storage/redis_like_keys.h"

namespace ferry::like {

namespace {}  // namespace

Status SqlLikeStore::SetLike(int64_t content_id, const std::string& user_id, bool liked,
                             const std::string& request_id, SetLikeResult* out) {
  const uint32_t layout = layout_->BucketsOf(content_id);
  const uint32_t bucket = BucketLayout::BucketIn(user_id, layout);
  Status s = database_->SetLike(content_id, user_id, bucket,
                                PartitionOf(content_id, bucket, database_->partitions()), liked,
                                remember_requests_ ? request_id : std::string(), UnixUs(), out);
  out->layout = layout;
  return s;
}

Status SqlLikeStore::Counts(std::span<const int64_t> content_ids, std::vector<ContentCounts>* out) {
  std::map<int64_t, std::map<uint32_t, int64_t>> rows;
  if (Status s = database_->CountRows(content_ids, &rows); !s.ok()) return s;
  out->clear();
  for (int64_t id : content_ids) {
    ContentCounts counts{.layout = layout_->BucketsOf(id)};
    counts.buckets.assign(counts.layout, 0);
    // A row of a bucket the layout no longer has still counts (until a repair moves it).
    for (const auto& [bucket, n] : rows[id])
      counts.buckets[bucket < counts.layout ? bucket : 0] += n;
    out->push_back(std::move(counts));
  }
  return Status::Ok();
}

Status SqlLikeStore::HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                              std::vector<bool>* out) {
  return database_->HasLiked(user_id, content_ids, out);
}

Status SqlLikeStore::RaiseBuckets(int64_t content_id, uint32_t buckets) {
  if (Status s = database_->RecordLayout(content_id, buckets); !s.ok()) return s;
  layout_->Raise(content_id, buckets);
  return Status::Ok();
}

}  // namespace ferry::like
