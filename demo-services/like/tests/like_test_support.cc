#include "like_test_support.h"

#include <hiredis.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "ferry/plugins/user_token.h"
#include "ferry/storage/mariadb_connection.h"
#include "service/event_writer.h"
#include "service/reconciler.h"
#include "shared_servers_backend.h"

namespace ferry::like::testing {

using namespace std::chrono_literals;

LikeConfig RedisMariaDbConfig(const std::string& database) {
  LikeConfig config;
  storage::testing::UseSharedServers(database, &config);
  config.writer_threads = 0;
  config.partitions = 8;
  return config;
}

LikeConfig EmbeddedConfig(const std::filesystem::path& dir) {
  LikeConfig config;
  config.backend = "embedded";
  config.sqlite_path = (dir / "like.db").string();
  config.writer_threads = 0;
  return config;
}

LikeConfig ConfigFor(const std::string& backend, const std::filesystem::path& dir) {
  if (backend == "embedded") return EmbeddedConfig(dir);
  LikeConfig config = RedisMariaDbConfig(FreshDatabaseName("like"));
  if (backend == "database-first") config.write_mode = "database-first";
  return config;
}

Status Drain(LikeApp& app, const std::string& holder) {
  if (Status s = app.DrainOutbox(holder); !s.ok()) return s;
  return app.DrainEvents(holder);
}

int64_t StoreTotal(LikeApp& app, int64_t content) {
  std::vector<ContentCounts> counts;
  const int64_t ids[] = {content};
  Status s = app.core().store->Counts(ids, &counts);
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? counts[0].total() : -1;
}

ContentRecord RecordOf(LikeDatabase& database, int64_t content) {
  ContentRecord record;
  Status s = database.ContentSnapshot(content, {}, &record);
  EXPECT_TRUE(s.ok()) << s;
  return record;
}

namespace {

// The reply to `args` on a connection of its own to the shared Redis.
std::unique_ptr<redisReply, void (*)(void*)> RedisCommand(const std::vector<std::string>& args) {
  const timeval timeout{.tv_sec = 10, .tv_usec = 0};
  redisContext* c = redisConnectWithTimeout(SharedServers::redis().host().c_str(),
                                            SharedServers::redis().port(), timeout);
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  void* reply = c == nullptr || c->err != 0
                    ? nullptr
                    : redisCommandArgv(c, static_cast<int>(args.size()), argv.data(), lens.data());
  if (c != nullptr) redisFree(c);
  return {static_cast<redisReply*>(reply), freeReplyObject};
}

}  // namespace

long long RedisInteger(const std::vector<std::string>& args) {
  auto reply = RedisCommand(args);
  return reply != nullptr && reply->type == REDIS_REPLY_INTEGER ? reply->integer : -1;
}

std::string RedisText(const std::vector<std::string>& args) {
  auto reply = RedisCommand(args);
  if (reply == nullptr) return "(no reply)";
  if (reply->type == REDIS_REPLY_NIL) return "(nil)";
  if (reply->type == REDIS_REPLY_ERROR) return "ERR:" + std::string(reply->str, reply->len);
  if (reply->type == REDIS_REPLY_INTEGER) return std::to_string(reply->integer);
  if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS) {
    return std::string(reply->str, reply->len);
  }
  return "(array of " + std::to_string(reply->elements) + ")";
}

void Truth::Set(int64_t content, const std::string& user, bool liked) {
  std::lock_guard lock(mutex_);
  state_[{content, user}] = liked;
}

int64_t Truth::Count(int64_t content) const {
  std::lock_guard lock(mutex_);
  int64_t n = 0;
  for (const auto& [key, liked] : state_) n += key.first == content && liked ? 1 : 0;
  return n;
}

void ExpectAllLevels(LikeApp& app, int64_t content, int64_t expected) {
  // Read first: a content Redis holds nothing of (database-first's, before a read) is loaded.
  EXPECT_EQ(StoreTotal(app, content), expected) << "content " << content << ": the store's buckets";
  ReconcileResponse report;
  Status s = Reconcile(app.core(), content, false, &report);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(report.pending_events(), 0) << report.ShortDebugString();
  EXPECT_EQ(report.database_likes(), expected) << "content " << content;
  EXPECT_EQ(report.database_count(), expected) << "content " << content;
  if (report.cache_count() >= 0) {
    EXPECT_EQ(report.cache_count(), expected) << "content " << content;
    EXPECT_EQ(report.cache_members(), expected) << "content " << content;
  }
  EXPECT_EQ(report.violations_size(), 0) << report.ShortDebugString();
}

std::string UserFiltersYaml() {
  return std::string("{name: user_token, keys: [{id: ") + kUserTokenKeyId +
         ", secret: " + kUserTokenSecret +
         "}], exempt: [ferry.like.LikeService/GetCounts, ferry.like.LikeService/ListLikers, "
         "ferry.like.LikeService/Reconcile, ferry.like.LikeService/RedriveDeadLetters, "
         "ferry.like.LikeService/ListChanges, ferry.like.LikeService/DeleteUser]}";
}

std::string UserToken(const std::string& user) {
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  return plugins::MakeUserToken(kUserTokenKeyId, kUserTokenSecret, user, now_s, now_s + 3600);
}

CallOptions AsUser(const std::string& user) {
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] = UserToken(user);
  return options;
}

void InProcessProvider::Start(const LikeConfig& config) {
  Start(config, {FilterSpec::FromYaml("user_token", UserFiltersYaml())});
}

void InProcessProvider::Start(const LikeConfig& config, std::vector<FilterSpec> filters) {
  std::unique_ptr<LikeApp> app;
  Status s = LikeApp::Create(config, &app);
  ASSERT_TRUE(s.ok()) << s;
  Serve(std::move(app), {.filters = std::move(filters)}, testsupport::LoopbackClientOptions(15s));
}

namespace {

// Counts the statements its connection runs.
class CountingConnection final : public storage::SqlConnection {
 public:
  CountingConnection(std::unique_ptr<storage::SqlConnection> inner, std::atomic<int>* statements)
      : inner_(std::move(inner)), statements_(statements) {}
  storage::SqlDialect dialect() const override { return inner_->dialect(); }
  Status Execute(std::string_view sql, const std::vector<storage::SqlValue>& params,
                 int64_t* affected) override {
    ++*statements_;
    return inner_->Execute(sql, params, affected);
  }
  Status Query(std::string_view sql, const std::vector<storage::SqlValue>& params,
               std::vector<storage::SqlRow>* rows) override {
    ++*statements_;
    return inner_->Query(sql, params, rows);
  }
  Status ExecuteScript(std::string_view sql) override { return inner_->ExecuteScript(sql); }
  Status Begin() override { return inner_->Begin(); }
  Status BeginSnapshot() override { return inner_->BeginSnapshot(); }
  Status Commit() override { return inner_->Commit(); }
  void Rollback() override { inner_->Rollback(); }

 private:
  std::unique_ptr<storage::SqlConnection> inner_;
  std::atomic<int>* const statements_;
};

}  // namespace

std::unique_ptr<storage::SqlConnectionPool> CountingPool(storage::MariaDbOptions options,
                                                         std::atomic<int>* statements) {
  options.isolation = storage::MariaDbIsolation::kReadCommitted;
  return std::make_unique<storage::SqlConnectionPool>(
      [options, statements](std::unique_ptr<storage::SqlConnection>* c) {
        std::unique_ptr<storage::SqlConnection> inner;
        if (Status s = storage::MariaDbConnection::Open(options, &inner); !s.ok()) return s;
        *c = std::make_unique<CountingConnection>(std::move(inner), statements);
        return Status::Ok();
      },
      4);
}

std::vector<FilterSpec> ShippedFilters(const std::string& name) {
  SharedServers::Start();
  return testsupport::ServerFiltersOf(std::string(LIKE_CONFIG_DIR) + "/" + name,
                                      SharedServers::redis().address());
}

std::unique_ptr<LikeServiceProxy> NewProxy(uint16_t port, std::chrono::milliseconds timeout) {
  auto channel = testsupport::LoopbackChannel(port, testsupport::LoopbackClientOptions(timeout));
  return channel ? std::make_unique<LikeServiceProxy>(channel) : nullptr;
}

}  // namespace ferry::like::testing
