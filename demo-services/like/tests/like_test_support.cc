#include "like_test_support.h"

#include <hiredis.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "ferry/plugins/user_token.h"
#include "service/event_writer.h"
#include "service/reconciler.h"
#include "shared_servers_backend.h"

namespace ferry::like::testing {

using namespace std::chrono_literals;

LikeConfig RedisMariaDbConfig(const std::string& database) {
  LikeConfig config;
  storage::testing::UseSharedServers(database, &config);
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
  std::unique_ptr<LikeApp> app;
  Status s = LikeApp::Create(config, &app);
  ASSERT_TRUE(s.ok()) << s;
  Serve(std::move(app), {.filters = {FilterSpec::FromYaml("user_token", UserFiltersYaml())}},
        testsupport::LoopbackClientOptions(15s));
}

std::unique_ptr<LikeServiceProxy> NewProxy(uint16_t port, std::chrono::milliseconds timeout) {
  auto channel = testsupport::LoopbackChannel(port, testsupport::LoopbackClientOptions(timeout));
  return channel ? std::make_unique<LikeServiceProxy>(channel) : nullptr;
}

}  // namespace ferry::like::testing
