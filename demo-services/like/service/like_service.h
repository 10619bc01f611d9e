#pragma once

#include <atomic>
#include <string>

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
  // Redis-first: the script runs without holding a business thread while Redis answers (the
  // pool's asynchronous connection batches it with the others); the rare call that must wait
  // (a bucket to load, a total to read) finishes on core->blocking.
  void SetLikeAsync(ServerContext& context, const SetLikeRequest& request,
                    SetLikeResponse* response, ServerDone done) override;
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
  Status RedriveDeadLetters(ServerContext& context, const RedriveDeadLettersRequest& request,
                            RedriveDeadLettersResponse* response) override;
  Status ListChanges(ServerContext& context, const ListChangesRequest& request,
                     ListChangesResponse* response) override;
  Status DeleteUser(ServerContext& context, const DeleteUserRequest& request,
                    DeleteUserResponse* response) override;

 private:
  // Notes a real change for the hot detector (repeats and replays do not make content hot).
  void NoteChange(int64_t content_id, const SetLikeResult& result);
  // SetLike once the request is checked and its user known.
  Status Apply(const SetLikeRequest& request, const std::string& user, SetLikeResponse* response);
  // The answer to a SetLike that changed (or found) `result`; false, with nothing set, when
  // the content's total must first be read (which blocks).
  bool AnswerFromCache(int64_t content_id, const SetLikeResult& result, SetLikeResponse* response);
  Status Answer(int64_t content_id, const SetLikeResult& result, SetLikeResponse* response);

  LikeCore* core_;
  std::atomic<int> async_in_flight_{0};
};

}  // namespace ferry::like
