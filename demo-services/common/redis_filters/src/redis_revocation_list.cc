#include "redis_revocation_list.h"

#include <hiredis.h>

#include <charconv>
#include <ctime>

#include "ferry/storage/redis_reply.h"

namespace ferry::redis_filters {
namespace {

metrics::Counter* RefreshFailures() {
  static metrics::Counter* const counter =
      metrics::Metrics()
          .AddCounter("ferry_user_token_revocation_refresh_failures_total",
                      "Reads of the shared user token revocation list that failed (the last "
                      "list read stays in force)",
                      {})
          .value()
          ->WithLabels({})
          .value();
  return counter;
}

bool ParseInt(std::string_view text, int64_t* out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

RedisRevocationList::~RedisRevocationList() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (refresher_.joinable()) refresher_.join();
}

void RedisRevocationList::Configure(config::ConfigReader& config) {
  ReadRedisEndpoint(config, &endpoint_);
  config.Millis("refresh_ms", 10, 3600000, &refresh_);
  if (!config.errors()->first().ok()) return;
  failures_ = RefreshFailures();
  snapshot_ = std::make_shared<plugins::RevocationSnapshot>();
  pool_ = std::make_unique<storage::RedisConnectionPool>(endpoint_.options);
  Refresh();
  refresher_ = std::thread([this] { RunRefresher(); });
}

bool RedisRevocationList::Revoked(std::string_view token_id, std::string_view user,
                                  int64_t issued_unix_s) const {
  std::shared_ptr<const plugins::RevocationSnapshot> snapshot;
  {
    std::lock_guard lock(mu_);
    snapshot = snapshot_;
  }
  return snapshot != nullptr && snapshot->Revoked(token_id, user, issued_unix_s);
}

void RedisRevocationList::RunRefresher() {
  std::unique_lock lock(mu_);
  while (!stop_cv_.wait_for(lock, refresh_, [this] { return stopping_; })) {
    lock.unlock();
    Refresh();
    lock.lock();
  }
}

void RedisRevocationList::Refresh() {
  const std::string ids_key = endpoint_.key_namespace + ":revoked:ids";
  const std::string users_key = endpoint_.key_namespace + ":revoked:users";
  const std::string now = std::to_string(static_cast<int64_t>(std::time(nullptr)));
  std::vector<storage::RedisReplyPtr> replies;
  const Status status = pool_->RunPipeline({{"ZREMRANGEBYSCORE", ids_key, "-inf", "(" + now},
                                            {"ZRANGE", ids_key, "0", "-1"},
                                            {"HGETALL", users_key}},
                                           &replies);
  const auto is_array = [](const storage::RedisReplyPtr& r) {
    return r != nullptr && r->type == REDIS_REPLY_ARRAY;
  };
  if (!status.ok() || replies.size() != 3 || !is_array(replies[1]) || !is_array(replies[2])) {
    failures_->Increment();
    return;
  }
  auto fresh = std::make_shared<plugins::RevocationSnapshot>();
  const redisReply* ids = replies[1].get();
  for (size_t i = 0; i < ids->elements; ++i) {
    fresh->token_ids.emplace(storage::ReplyText(ids->element[i]));
  }
  const redisReply* users = replies[2].get();
  for (size_t i = 0; i + 1 < users->elements; i += 2) {
    int64_t before = 0;
    if (ParseInt(storage::ReplyText(users->element[i + 1]), &before)) {
      fresh->users_before.emplace(storage::ReplyText(users->element[i]), before);
    }
  }
  std::lock_guard lock(mu_);
  snapshot_ = std::move(fresh);
}

}  // namespace ferry::redis_filters
