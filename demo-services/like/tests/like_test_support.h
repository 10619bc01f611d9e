#pragma once

// Shared by the like tests: the real servers of the redis+mariadb backend (one of each per
// test process), configs for both backends, an in-process provider with a client proxy, the
// truth a test keeps of who likes what, and bounded polling.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "app_provider.h"
#include "eventually.h"
#include "like.ferry.h"
#include "service/like_app.h"
#include "shared_servers.h"
#include "temp_dir.h"

namespace ferry::like::testing {

using testsupport::SharedServers;

using testsupport::TempDir;

using testsupport::FreshDatabaseName;

// redis+mariadb (redis-first) on the shared servers with a fresh database, no event writers
// (the tests drain the streams themselves), few partitions and no periodic reconciler.
LikeConfig RedisMariaDbConfig(const std::string& database);
// embedded with its SQLite file in `dir`.
LikeConfig EmbeddedConfig(const std::filesystem::path& dir);

// "embedded", "redis+mariadb" (redis-first) or "database-first" (redis+mariadb): a config for
// it (a fresh database, or a file in `dir`).
LikeConfig ConfigFor(const std::string& backend, const std::filesystem::path& dir);

// Persists every change the streams hold (redis-first) or relays the outbox (database-first,
// embedded). OK once they are empty.
Status Drain(LikeApp& app, const std::string& holder = "test-drain");

// The content's total as the store counts it (no cache).
int64_t StoreTotal(LikeApp& app, int64_t content);
// The record's view of a content (rows, counts), read in one snapshot.
ContentRecord RecordOf(LikeDatabase& database, int64_t content);

// One command on the shared Redis, outside any pool: its reply as an integer (-1 when it is
// none), or as text ("(nil)", or "ERR:..." for an error).
long long RedisInteger(const std::vector<std::string>& args);
std::string RedisText(const std::vector<std::string>& args);

// Who likes what, as the test's own calls left it (last state per pair).
class Truth {
 public:
  void Set(int64_t content, const std::string& user, bool liked);
  int64_t Count(int64_t content) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<int64_t, std::string>, bool> state_;
};

// Reconcile (no repair) after a drain: every level must equal `expected`, with no violation.
void ExpectAllLevels(LikeApp& app, int64_t content, int64_t expected);

// The key the in-process providers verify user tokens with (their `user_token` filter, which
// exempts the public reads GetCounts and ListLikers and the admin Reconcile).
inline constexpr const char* kUserTokenKeyId = "test";
inline constexpr const char* kUserTokenSecret = "like-test-user-secret";
std::string UserFiltersYaml();
// A valid user token for `user`, and CallOptions carrying it: a call made as that user.
std::string UserToken(const std::string& user);
CallOptions AsUser(const std::string& user);

// LikeApp served by an in-process ferry::Server on an ephemeral loopback port.
class InProcessProvider : public testsupport::AppProvider<LikeApp, LikeServiceProxy> {
 public:
  // The test's user_token filter (UserFiltersYaml); a fatal gtest failure when it cannot start.
  void Start(const LikeConfig& config);
  // With these server filters instead.
  void Start(const LikeConfig& config, std::vector<FilterSpec> filters);
};

// A pool of MariaDB connections (as MariaDbLikePool's) that counts the statements run.
std::unique_ptr<storage::SqlConnectionPool> CountingPool(storage::MariaDbOptions options,
                                                         std::atomic<int>* statements);

// The server filters of a shipped config file (demo-services/like/config/<name>), its sample
// secrets allowed and its Redis the test process's SharedServers.
std::vector<FilterSpec> ShippedFilters(const std::string& name);

std::unique_ptr<LikeServiceProxy> NewProxy(
    uint16_t port, std::chrono::milliseconds timeout = std::chrono::seconds(15));

using testsupport::Eventually;

}  // namespace ferry::like::testing
