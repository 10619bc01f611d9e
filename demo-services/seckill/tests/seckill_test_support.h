#pragma once

// Shared by the seckill service and failure tests: the real servers of the redis+mariadb
// backend (one of each per test process), an in-process provider (SeckillApp behind a
// ferry::Server) with a client proxy, and small helpers for activities and bounded polling.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "app_provider.h"
#include "eventually.h"
#include "seckill.ferry.h"
#include "service/seckill_app.h"
#include "shared_servers.h"
#include "temp_dir.h"

namespace ferry::seckill::testing {

int64_t WallMs();

using testsupport::SharedServers;

using testsupport::FreshDatabaseName;

// A config for the redis+mariadb backend on the shared servers, with a fresh database and
// quick background jobs.
SeckillConfig RedisMariaDbConfig(const std::string& database);
// A seckill-server YAML for the redis+mariadb backend of `c`, verifying buyers' tokens
// (BuyerFiltersYaml), with quick background jobs; `worker_id` -1 leaves it to the lease.
std::string ServerYaml(const SeckillConfig& c, int worker_id, int writer_threads = 4);
// A config for the embedded backend with its SQLite file in `dir`.
SeckillConfig EmbeddedConfig(const std::filesystem::path& dir);

using testsupport::TempDir;

// The key the providers of these tests verify user tokens with (their `user_token` filter),
// which exempts the admin methods (CreateActivity, Preheat, GetActivity, Refund, Reconcile).
inline constexpr const char* kUserTokenKeyId = "test";
inline constexpr const char* kUserTokenSecret = "seckill-test-user-secret";
// The server filters of such a provider, as YAML.
std::string BuyerFiltersYaml();

// Options carrying a valid user token for `user`; CallOptions for a call made as that buyer.
CallOptions AsUser(const std::string& user);

// The proxies of these tests act as a front end that holds each buyer's token: a call that
// carries no user token gets one for the user it is made for (the request's user_id; else the
// buyer of its request_id or order_no, as purchases and WaitCreated learnt them), none when
// that is unknown.
void RememberOrderOf(int64_t order_no, const std::string& user);

// SeckillApp served by an in-process ferry::Server on an ephemeral loopback port.
class InProcessProvider : public testsupport::AppProvider<SeckillApp, SeckillServiceProxy> {
 public:
  // Fatal gtest failure when it cannot start.
  void Start(const SeckillConfig& config);
  // With these server filters instead of the tests' buyer filter (BuyerFiltersYaml).
  void Start(const SeckillConfig& config, std::vector<FilterSpec> filters);
};

// A proxy to 127.0.0.1:port whose calls give up after `timeout`.
std::unique_ptr<SeckillServiceProxy> NewProxy(
    uint16_t port, std::chrono::milliseconds timeout = std::chrono::seconds(15));

struct ActivitySpec {
  int64_t sku_id = 77;
  int64_t stock = 10;
  int64_t start_offset_ms = -60'000;  // from now
  int64_t end_offset_ms = 3'600'000;  // from now
  int64_t price_cents = 1999;
  uint32_t pay_timeout_s = 600;
};

CreateActivityRequest ActivityRequest(const ActivitySpec& spec);
// Creates (and, when `preheat`, opens) an activity; returns its id (0 after a gtest failure).
int64_t CreateActivity(SeckillServiceProxy& proxy, const ActivitySpec& spec, bool preheat = true);

PreheatRequest PreheatOf(int64_t activity_id, bool force = false);
PurchaseRequest Purchase(int64_t activity_id, int64_t sku_id, const std::string& user,
                         const std::string& request_id);

using testsupport::Eventually;

// GetResult until it is CREATED (returns the order number) or FAILED / the timeout (returns 0
// with a gtest failure).
int64_t WaitCreated(SeckillServiceProxy& proxy, int64_t activity_id, int64_t sku_id,
                    const std::string& request_id,
                    std::chrono::milliseconds timeout = std::chrono::seconds(20));

// Reconcile until every reservation has its database decision (always true for embedded) and
// `done` holds for the report; returns the last report (with a gtest failure on timeout).
ReconcileResponse Settle(
    SeckillServiceProxy& proxy, int64_t activity_id,
    const std::function<bool(const ReconcileResponse&)>& done =
        [](const ReconcileResponse&) { return true; },
    std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace ferry::seckill::testing
