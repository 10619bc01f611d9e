#pragma once

#include "storage/redis_like_store.h"
#include "storage/sql_like_store.h"

namespace ferry::like {

// redis+mariadb, database-first: a change is confirmed once MariaDB committed it (state,
// version, count row and outbox row in one transaction), so Redis failing loses no confirmed
// like. The outbox relay then brings each change into the Redis buckets, which serve the
// counts (a content Redis does not hold is loaded on its first read); the user's own state is
// read from the database, where the write went.
class DatabaseFirstStore final : public LikeStore {
 public:
  DatabaseFirstStore(SqlLikeStore* database, RedisLikeStore* cache)
      : database_(database), cache_(cache) {}

  Status SetLike(int64_t content_id, const std::string& user_id, bool liked,
                 const std::string& request_id, SetLikeResult* out) override {
    return database_->SetLike(content_id, user_id, liked, request_id, out);
  }
  Status Counts(std::span<const int64_t> content_ids, std::vector<ContentCounts>* out) override {
    return cache_->Counts(content_ids, out);
  }
  Status HasLiked(const std::string& user_id, std::span<const int64_t> content_ids,
                  std::vector<bool>* out) override {
    return database_->HasLiked(user_id, content_ids, out);
  }
  // The relay applies a change to the bucket computed at its commit, so a layout changing
  // under it could put a user in two buckets.
  Status RaiseBuckets(int64_t content_id, uint32_t) override {
    return Status(StatusCode::FAILED_PRECONDITION,
                  "content " + std::to_string(content_id) +
                      ": buckets are raised only by configuration with write_mode database-first");
  }

 private:
  SqlLikeStore* const database_;
  RedisLikeStore* const cache_;
};

}  // namespace ferry::like
