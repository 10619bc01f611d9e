#pragma once

#include "storage/bucket_layout.h"
#include "storage/like_database.h"
#include "storage/like_store.h"

namespace ferry::like {

// The database is the state: every SetLike is one local transaction on the database of
// record (state, version, bucket count row and outbox row together), so a confirmed like
// survives any crash the database survives. The embedded backend (SQLite), whose buckets are
// the count rows, and database-first's writes.
class SqlLikeStore final : public LikeStore {
 public:
  // Request ids are remembered (like_request rows) unless `remember_requests` is false; rows
  // are forgotten by LikeDatabase::TrimRequests.
  SqlLikeStore(LikeDatabase* database, BucketLayout* layout, bool remember_requests)
      : database_(database), layout_(layout), remember_requests_(remember_requests) {}

  Status SetLike(int64_t content_id, const std::string& user_id, bool liked,
                 const std::string& request_id, SetLikeResult* out) override;
  Status Counts(std::span<const int64_t> content_ids, std::vector<ContentCounts>* out) override;
  Status HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                  std::vector<bool>* out) override;
  // The count rows are per bucket; a raise only changes which row a user's changes go to.
  Status RaiseBuckets(int64_t content_id, uint32_t buckets) override;

 private:
  LikeDatabase* const database_;
  BucketLayout* const layout_;
  const bool remember_requests_;
};

}  // namespace ferry::like
