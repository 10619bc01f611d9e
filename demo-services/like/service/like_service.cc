#include "service/like_service.h"

#include <charconv>

#include "service/caller_user.h"
#include "service/reconciler.h"

namespace ferry::like {

namespace {

constexpr uint32_t kDefaultPage = 100;
constexpr uint32_t kMaxPage = 1000;

Status Invalid(const std::string& message) { return Status(StatusCode::INVALID_ARGUMENT, message); }

Status CheckContent(int64_t content_id) {
  if (content_id > 0) return Status::Ok();
  return Invalid("content_id: expected an id > 0, got " + std::to_string(content_id));
}

constexpr size_t kMaxRequestId = 128;

Status CheckRequestId(const std::string& request_id) {
  if (request_id.size() <= kMaxRequestId) return Status::Ok();
  return Invalid("request_id: at most " + std::to_string(kMaxRequestId) + " bytes, got " +
                 std::to_string(request_id.size()));
}

Status CheckBatch(const google::protobuf::RepeatedField<int64_t>& ids) {
  if (ids.size() > kMaxBatch) {
    return Invalid("content_ids: at most " + std::to_string(kMaxBatch) + " per call, got " +
                   std::to_string(ids.size()));
  }
  for (int64_t id : ids) {
    if (Status s = CheckContent(id); !s.ok()) return s;
  }
  return Status::Ok();
}

Status PageSize(uint32_t requested, uint32_t* size) {
  if (requested > kMaxPage) {
    return Invalid("page_size: at most " + std::to_string(kMaxPage) + ", got " +
                   std::to_string(requested));
  }
  *size = requested == 0 ? kDefaultPage : requested;
  return Status::Ok();
}

}  // namespace

Status LikeServiceImpl::SetLike(ServerContext& context, const SetLikeRequest& request,
                                SetLikeResponse* response) {
  if (Status s = CheckContent(request.content_id()); !s.ok()) return s;
  if (Status s = CheckRequestId(request.request_id()); !s.ok()) return s;
  std::string user;
  if (Status s = CallerUser(context, request.user_id(), &user); !s.ok()) return s;
  return Apply(request, user, response);
}

Status LikeServiceImpl::Apply(const SetLikeRequest& request, const std::string& user,
                              SetLikeResponse* response) {
  SetLikeResult result;
  if (Status s = core_->store->SetLike(request.content_id(), user, request.liked(),
                                       request.request_id(), &result);
      !s.ok()) {
    return s;
  }
  if (core_->hot) core_->hot->Note(request.content_id());
  return Answer(request.content_id(), result, response);
}

bool LikeServiceImpl::AnswerFromCache(int64_t content_id, const SetLikeResult& result,
                                      SetLikeResponse* response) {
  const int64_t count = core_->counts->UpdateBucket(content_id, result.bucket, result.bucket_count);
  if (count < 0) return false;
  response->set_changed(result.changed);
  response->set_count(count);
  return true;
}

Status LikeServiceImpl::Answer(int64_t content_id, const SetLikeResult& result,
                               SetLikeResponse* response) {
  if (AnswerFromCache(content_id, result, response)) return Status::Ok();
  int64_t count = 0;
  if (Status s = core_->counts->Total(content_id, &count); !s.ok()) return s;
  response->set_changed(result.changed);
  response->set_count(count);
  return Status::Ok();
}

void LikeServiceImpl::SetLikeAsync(ServerContext& context, const SetLikeRequest& request,
                                   SetLikeResponse* response, ServerDone done) {
  if (core_->async_store == nullptr) return done(SetLike(context, request, response));
  if (Status s = CheckContent(request.content_id()); !s.ok()) return done(s);
  if (Status s = CheckRequestId(request.request_id()); !s.ok()) return done(s);
  std::string user;
  if (Status s = CallerUser(context, request.user_id(), &user); !s.ok()) return done(s);
  if (async_in_flight_.fetch_add(1) >= core_->async_limit) {
    async_in_flight_.fetch_sub(1);
    return done(Apply(request, user, response));
  }
  // ServerDone is move-only and the completion is copied into std::function.
  auto finish = std::make_shared<ServerDone>(std::move(done));
  auto complete = [this, finish](const Status& s) {
    async_in_flight_.fetch_sub(1);
    (*finish)(s);
  };
  using Outcome = RedisLikeStore::AsyncOutcome;
  const bool started = core_->async_store->SetLikeAsync(
      request.content_id(), user, request.liked(), request.request_id(),
      [this, &request, response, user, complete](Outcome outcome, const Status& status,
                                                 const SetLikeResult& result) {
        if (outcome == Outcome::kFailed) return complete(status);
        if (outcome == Outcome::kAnswered) {
          if (core_->hot) core_->hot->Note(request.content_id());
          if (AnswerFromCache(request.content_id(), result, response)) {
            return complete(Status::Ok());
          }
          return core_->blocking->Post([this, &request, response, result, complete] {
            complete(Answer(request.content_id(), result, response));
          });
        }
        // Nothing changed: SetLike does what the script could not.
        core_->blocking->Post([this, &request, response, user, complete] {
          complete(Apply(request, user, response));
        });
      });
  if (!started) complete(Apply(request, user, response));
}

Status LikeServiceImpl::GetCounts(ServerContext&, const GetCountsRequest& request,
                                  GetCountsResponse* response) {
  if (Status s = CheckBatch(request.content_ids()); !s.ok()) return s;
  for (int64_t id : request.content_ids()) {
    int64_t total = 0;
    if (Status s = core_->counts->Total(id, &total); !s.ok()) return s;
    response->add_counts(total);
  }
  return Status::Ok();
}

Status LikeServiceImpl::HasLiked(ServerContext& context, const HasLikedRequest& request,
                                 HasLikedResponse* response) {
  if (Status s = CheckBatch(request.content_ids()); !s.ok()) return s;
  std::string user;
  if (Status s = CallerUser(context, request.user_id(), &user); !s.ok()) return s;
  std::vector<int64_t> ids(request.content_ids().begin(), request.content_ids().end());
  std::vector<bool> liked;
  if (Status s = core_->store->HasLiked(user, ids, &liked); !s.ok()) return s;
  for (bool l : liked) response->add_liked(l);
  return Status::Ok();
}

Status LikeServiceImpl::ListLikers(ServerContext&, const ListLikersRequest& request,
                                   ListLikersResponse* response) {
  if (Status s = CheckContent(request.content_id()); !s.ok()) return s;
  uint32_t size = 0;
  if (Status s = PageSize(request.page_size(), &size); !s.ok()) return s;
  // The token is the last user of the previous page.
  std::vector<std::string> users;
  if (Status s =
          core_->database->ListLikers(request.content_id(), request.page_token(), size, &users);
      !s.ok()) {
    return s;
  }
  for (std::string& u : users) response->add_user_ids(std::move(u));
  if (response->user_ids_size() == static_cast<int>(size)) {
    response->set_next_page_token(response->user_ids(response->user_ids_size() - 1));
  }
  return Status::Ok();
}

Status LikeServiceImpl::ListLiked(ServerContext& context, const ListLikedRequest& request,
                                  ListLikedResponse* response) {
  std::string user;
  if (Status s = CallerUser(context, request.user_id(), &user); !s.ok()) return s;
  uint32_t size = 0;
  if (Status s = PageSize(request.page_size(), &size); !s.ok()) return s;
  int64_t after = 0;
  const std::string& token = request.page_token();
  if (!token.empty()) {
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), after);
    if (ec != std::errc() || end != token.data() + token.size() || after <= 0) {
      return Invalid("page_token: not a token this service gave out: '" + token + "'");
    }
  }
  std::vector<int64_t> ids;
  if (Status s = core_->database->ListLiked(user, after, size, &ids); !s.ok()) return s;
  for (int64_t id : ids) response->add_content_ids(id);
  if (ids.size() == size) response->set_next_page_token(std::to_string(ids.back()));
  return Status::Ok();
}

Status LikeServiceImpl::Reconcile(ServerContext&, const ReconcileRequest& request,
                                  ReconcileResponse* response) {
  if (Status s = CheckContent(request.content_id()); !s.ok()) return s;
  return like::Reconcile(*core_, request.content_id(), request.repair(), response);
}

}  // namespace ferry::like
