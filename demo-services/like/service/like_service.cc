#include "service/like_service.h"
#include "storage/like_clock.h"

#include <charconv>
#include <chrono>

#include "service/caller_user.h"
#include "service/dead_letters.h"
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

Status PageSize(uint32_t requested, uint32_t* size, uint32_t max = kMaxPage,
                uint32_t default_size = kDefaultPage) {
  if (requested > max) {
    return Invalid("page_size: at most " + std::to_string(max) + ", got " +
                   std::to_string(requested));
  }
  *size = requested == 0 ? default_size : requested;
  return Status::Ok();
}

// A page token "<version>:<key>": where the previous page (newest first) ended.
std::string PageToken(int64_t version, const std::string& key) {
  return std::to_string(version) + ":" + key;
}

Status ReadPageToken(const std::string& token, int64_t* version, std::string* key) {
  *version = 0;
  key->clear();
  if (token.empty()) return Status::Ok();
  const size_t colon = token.find(':');
  const char* end = token.data() + (colon == std::string::npos ? token.size() : colon);
  auto [ptr, ec] = std::from_chars(token.data(), end, *version);
  if (colon == std::string::npos || ec != std::errc() || ptr != end || *version <= 0) {
    return Invalid("page_token: not a token this service gave out: '" + token + "'");
  }
  *key = token.substr(colon + 1);
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
  NoteChange(request.content_id(), result);
  return Answer(request.content_id(), result, response);
}

void LikeServiceImpl::NoteChange(int64_t content_id, const SetLikeResult& result) {
  if (core_->hot && result.changed && !result.replayed) core_->hot->Note(content_id);
}

bool LikeServiceImpl::AnswerFromCache(int64_t content_id, const SetLikeResult& result,
                                      SetLikeResponse* response) {
  const int64_t count =
      core_->counts->UpdateBucket(content_id, result.layout, result.bucket, result.bucket_count);
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
          NoteChange(request.content_id(), result);
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
  std::vector<int64_t> totals;
  if (Status s = core_->counts->Totals(
          std::span<const int64_t>(request.content_ids().data(), request.content_ids().size()),
          &totals);
      !s.ok())
    return s;
  for (int64_t total : totals) response->add_counts(total);
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
  int64_t after_version = 0;
  std::string after_user;
  if (Status s = ReadPageToken(request.page_token(), &after_version, &after_user); !s.ok()) {
    return s;
  }
  std::vector<std::pair<std::string, int64_t>> likers;
  if (Status s = core_->database->ListLikers(request.content_id(), after_version, after_user, size,
                                             &likers);
      !s.ok()) {
    return s;
  }
  for (auto& [user, version] : likers) {
    response->add_user_ids(user);
    response->add_liked_at_us(version);
  }
  if (likers.size() == size) {
    response->set_next_page_token(PageToken(likers.back().second, likers.back().first));
  }
  return Status::Ok();
}

Status LikeServiceImpl::ListLiked(ServerContext& context, const ListLikedRequest& request,
                                  ListLikedResponse* response) {
  std::string user;
  if (Status s = CallerUser(context, request.user_id(), &user); !s.ok()) return s;
  uint32_t size = 0;
  if (Status s = PageSize(request.page_size(), &size); !s.ok()) return s;
  int64_t after_version = 0;
  std::string after;
  if (Status s = ReadPageToken(request.page_token(), &after_version, &after); !s.ok()) return s;
  int64_t after_content = 0;
  if (!after.empty()) {
    auto [end, ec] = std::from_chars(after.data(), after.data() + after.size(), after_content);
    if (ec != std::errc() || end != after.data() + after.size() || after_content <= 0) {
      return Invalid("page_token: not a token this service gave out: '" + request.page_token() +
                     "'");
    }
  }
  std::vector<std::pair<int64_t, int64_t>> liked;
  if (Status s = core_->database->ListLiked(user, after_version, after_content, size, &liked);
      !s.ok()) {
    return s;
  }
  for (const auto& [content, version] : liked) {
    response->add_content_ids(content);
    response->add_liked_at_us(version);
  }
  if (liked.size() == size) {
    response->set_next_page_token(
        PageToken(liked.back().second, std::to_string(liked.back().first)));
  }
  return Status::Ok();
}

Status LikeServiceImpl::Reconcile(ServerContext&, const ReconcileRequest& request,
                                  ReconcileResponse* response) {
  if (Status s = CheckContent(request.content_id()); !s.ok()) return s;
  return like::Reconcile(*core_, request.content_id(), request.repair(), response);
}

Status LikeServiceImpl::RedriveDeadLetters(ServerContext&, const RedriveDeadLettersRequest& request,
                                           RedriveDeadLettersResponse* response) {
  uint32_t limit = 0;
  if (Status s = PageSize(request.limit(), &limit, 10000, 100); !s.ok()) {
    return Invalid("limit: at most 10000, got " + std::to_string(request.limit()));
  }
  return Redrive(*core_, limit, /*never_redriven=*/false, response);
}

Status LikeServiceImpl::ListChanges(ServerContext&, const ListChangesRequest& request,
                                    ListChangesResponse* response) {
  const uint32_t partitions = core_->database->partitions();
  if (request.partition() >= partitions) {
    return Invalid("partition: expected 0 to " + std::to_string(partitions - 1) + ", got " +
                   std::to_string(request.partition()));
  }
  if (request.after_seq() < 0) {
    return Invalid("after_seq: expected 0 or more, got " + std::to_string(request.after_seq()));
  }
  uint32_t size = 0;
  if (Status s = PageSize(request.page_size(), &size, 10000, 1000); !s.ok()) return s;
  std::vector<FeedChange> changes;
  if (Status s =
          core_->database->ListChanges(request.partition(), request.after_seq(), size, &changes);
      !s.ok()) {
    return s;
  }
  response->set_partitions(partitions);
  for (const FeedChange& c : changes) {
    Change* out = response->add_changes();
    out->set_seq(c.seq);
    out->set_content_id(c.content_id);
    out->set_user_id(c.user_id);
    out->set_liked(c.liked);
    out->set_version(c.version);
    out->set_created_ms(c.created_ms);
  }
  return Status::Ok();
}

Status LikeServiceImpl::DeleteUser(ServerContext&, const DeleteUserRequest& request,
                                   DeleteUserResponse* response) {
  if (request.user_id().empty() || request.user_id().size() > 128) {
    return Invalid("user_id: expected 1 to 128 bytes, got " +
                   std::to_string(request.user_id().size()));
  }
  UserDeletion deletion;
  if (Status s = core_->database->RequestUserDeletion(request.user_id(), UnixMs(), &deletion);
      !s.ok()) {
    return s;
  }
  response->set_requested_ms(deletion.requested_ms);
  response->set_done_ms(deletion.done_ms);
  response->set_unliked(deletion.unliked);
  return Status::Ok();
}

}  // namespace ferry::like
