#include "like_test_support.h"

#include <hiredis.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "ferry/framework/channel.h"
#include "ferry/plugins/user_token.h"
#include "service/event_writer.h"
#include "service/reconciler.h"

namespace ferry::like::testing {

using namespace std::chrono_literals;

LikeConfig RedisMariaDbConfig(const std::string& database) {
  LikeConfig config;
  config.backend = "redis+mariadb";
  config.redis_host = SharedServers::redis().host();
  config.redis_port = SharedServers::redis().port();
  config.redis_connections = 16;
  config.redis_timeout_ms = 5000;
  config.mariadb.host = SharedServers::mariadb().host();
  config.mariadb.port = SharedServers::mariadb().port();
  config.mariadb.user = SharedServers::mariadb().user();
  config.mariadb.password = SharedServers::mariadb().password();
  config.mariadb.database = database;
  config.mariadb.timeout_ms = 20000;
  config.mariadb_connections = 8;
  config.writer_threads = 0;
  config.count_cache_ms = 0;
  return config;
}

LikeConfig EmbeddedConfig(const std::filesystem::path& dir) {
  LikeConfig config;
  config.backend = "embedded";
  config.sqlite_path = (dir / "like.db").string();
  config.count_cache_ms = 0;
  return config;
}

LikeConfig ConfigFor(const std::string& backend, const std::filesystem::path& dir) {
  if (backend == "embedded") return EmbeddedConfig(dir);
  LikeConfig config = RedisMariaDbConfig(FreshDatabaseName("like"));
  if (backend == "database-first") config.write_mode = "database-first";
  return config;
}

Status Drain(LikeApp& app, const std::string& consumer) {
  if (app.relay() != nullptr) return app.relay()->Drain();
  if (app.stream() == nullptr) return Status::Ok();
  EventWriter writer(app.stream(), app.core().database, {.consumer = consumer});
  return writer.Drain();
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
  std::vector<int64_t> buckets;
  s = app.core().store->BucketCounts(content, &buckets);
  ASSERT_TRUE(s.ok()) << s;
  int64_t sum = 0;
  for (int64_t n : buckets) sum += n;
  EXPECT_EQ(sum, expected) << "content " << content << ": the store's buckets";
}

std::string UserFiltersYaml() {
  return std::string("{name: user_token, keys: [{id: ") + kUserTokenKeyId +
         ", secret: " + kUserTokenSecret +
         "}], exempt: [ferry.like.LikeService/GetCounts, ferry.like.LikeService/ListLikers, "
         "ferry.like.LikeService/Reconcile]}";
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
  Status s = LikeApp::Create(config, &app_);
  ASSERT_TRUE(s.ok()) << s;
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.io_threads = 2;
  options.worker_threads = 8;
  options.queue_capacity = 8192;
  options.filters = {FilterSpec::FromYaml("user_token", UserFiltersYaml())};
  server_ = std::make_unique<Server>(options);
  for (Service* service : app_->services()) {
    s = server_->AddService(service);
    ASSERT_TRUE(s.ok()) << s;
  }
  s = server_->Start();
  ASSERT_TRUE(s.ok()) << s;
  proxy_ = NewProxy(server_->port());
  ASSERT_NE(proxy_, nullptr);
}

void InProcessProvider::Stop() {
  proxy_.reset();
  if (server_) server_->Stop();
  server_.reset();
  if (app_) app_->Stop();
  app_.reset();
}

std::unique_ptr<LikeServiceProxy> NewProxy(uint16_t port, std::chrono::milliseconds timeout) {
  ClientOptions options;
  options.target = "127.0.0.1:" + std::to_string(port);
  options.default_timeout = timeout;
  options.connect_timeout = 5s;
  options.reconnect_initial = 10ms;
  options.reconnect_max = 200ms;
  std::shared_ptr<Channel> channel;
  Status s = NewChannel(options, &channel);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return nullptr;
  return std::make_unique<LikeServiceProxy>(channel);
}

bool Eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
                std::chrono::milliseconds interval) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace ferry::like::testing
