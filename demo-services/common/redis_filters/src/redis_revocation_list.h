#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "ferry/framework/metrics.h"
#include "ferry/plugins/revocation_snapshot.h"
#include "ferry/plugins/token_revocations.h"
#include "ferry/storage/redis_connection_pool.h"
#include "redis_endpoint.h"

namespace ferry::redis_filters {

// The revocations of kind "redis", shared by every provider of a namespace:
//
//   <namespace>:revoked:ids    sorted set: token id, scored by its expiry (unix s); entries
//                              past their expiry are dropped (the token is refused anyway)
//   <namespace>:revoked:users  hash: user -> unix s before which their tokens are revoked
//
// Checked against a copy held in memory (calls never wait for Redis), which a thread of the
// list's own reads again every `refresh_ms` (default 1000): a revocation holds on every provider
// within that. Read once before the filter serves. While Redis is unreachable the last copy
// stays in force and every failed read is counted in
// ferry_user_token_revocation_refresh_failures_total.
class RedisRevocationList final : public plugins::TokenRevocations {
 public:
  ~RedisRevocationList() override;

  void Configure(config::ConfigReader& config) override;
  bool Revoked(std::string_view token_id, std::string_view user,
               int64_t issued_unix_s) const override;

 private:
  // Reads both keys; the copy is replaced only when both were read.
  void Refresh();
  void RunRefresher();

  RedisEndpoint endpoint_;
  std::chrono::milliseconds refresh_{1000};
  std::unique_ptr<storage::RedisConnectionPool> pool_;
  metrics::Counter* failures_ = nullptr;

  mutable std::mutex mu_;
  std::shared_ptr<const plugins::RevocationSnapshot> snapshot_;  // guarded by mu_
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread refresher_;
};

}  // namespace ferry::redis_filters
