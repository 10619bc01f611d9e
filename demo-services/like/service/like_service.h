#pragma once

#include "like.ferry.h"
#include "service/like_core.h"

namespace ferry::like {

// Most content ids one GetCounts or HasLiked takes.
inline constexpr int kMaxBatch = 100;

// The RPC surface of the like provider: validation, the caller's user, the count cache in
// front of the store's buckets; lists and reconciliation read the database of record.
class LikeServiceImpl final : public LikeServiceBase {
 public:
  explicit LikeServiceImpl(LikeCore* core) : core_(core) {}

  Status SetLike(ServerContext& context, const SetLikeRequest& request,
                 SetLikeResponse* response) override;
  Status GetCounts(ServerContext& context, const GetCountsRequest& request,
                   GetCountsResponse* response) override;
  Status HasLiked(ServerContext& context, const HasLikedRequest& request,
                  HasLikedResponse* response) override;
  Status ListLikers(ServerContext& context, const ListLikersRequest& request,
                    ListLikersResponse* response) override;
  Status ListLiked(ServerContext& context, const ListLikedRequest& request,
                   ListLikedResponse* response) override;
  Status Reconcile(ServerContext& context, const ReconcileRequest& request,
                   ReconcileResponse* response) override;

 private:
  LikeCore* core_;
};

}  // namespace ferry::like
