#include "storage/sql_like_store.h"

#include <chrono>

namespace ferry::like {

namespace {

int64_t WallUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Status SqlLikeStore::SetLike(int64_t content_id, const std::string& user_id, bool liked,
                             const std::string& request_id, SetLikeResult* out) {
  return database_->SetLike(content_id, user_id, layout_->BucketOf(content_id, user_id), liked,
                            remember_requests_ ? request_id : std::string(), WallUs(), out);
}

Status SqlLikeStore::BucketCounts(int64_t content_id, std::vector<int64_t>* out) {
  return database_->BucketCounts(content_id, layout_->BucketsOf(content_id), out);
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
