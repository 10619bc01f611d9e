#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "ready_process.h"
#include "shortlink_test_support.h"

namespace ferry::shortlink::testing {
namespace {

using namespace std::chrono_literals;

// shortlink-server's YAML for `config`'s Redis and MariaDB, its consumer named `consumer`.
std::string ServerYaml(const ShortLinkConfig& c, const std::string& consumer) {
  return "log: {level: warn}\n"
         "server: {listen: 127.0.0.1:0, io_threads: 1}\n"
         "service:\n"
         "  backend: redis+mariadb\n"
         "  redis: {host: " +
         c.redis_host + ", port: " + std::to_string(c.redis_port) +
         "}\n"
         "  mariadb: {host: " +
         c.mariadb.host + ", port: " + std::to_string(c.mariadb.port) +
         ", user: " + c.mariadb.user + ", password: \"" + c.mariadb.password +
         "\", database: " + c.mariadb.database +
         "}\n"
         "  stats: {interval_ms: 10, batch: 20, claim_idle_ms: 300, consumer: " +
         consumer + "}\n";
}

// The only live consumer, a real shortlink-server process, is SIGKILLed while visits stream in
// (some entries read and not acknowledged, some perhaps counted and not acknowledged); the
// in-process provider's consumer takes its entries over: PV ends equal to the 302s, no more, no
// less.
TEST(ShortLinkConsumerKillTest, AKilledConsumerLosesAndDoubleCountsNothing) {
  TempDir dir;
  ShortLinkConfig config = ConfigFor(Backend::kRedisMariaDb, dir.path());
  config.stats_interval_ms = 60'000;  // this provider consumes only when the test says so
  config.stats_claim_idle_ms = 300;
  InProcessProvider provider;
  provider.Start(config);
  const std::string key = NewTenantKey(provider.proxy(), "acme");
  CreateLinkRequest request;
  request.set_request_id("r1");
  request.set_long_url("https://example.com/");
  auto created = provider.proxy().CreateLink(request, WithToken(key));
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string code = created->code();

  const std::filesystem::path yaml = dir.path() / "consumer.yaml";
  std::ofstream(yaml) << ServerYaml(config, "victim");
  testsupport::ReadyProcess consumer;
  ASSERT_TRUE(
      consumer.Start({SHORTLINK_SERVER_BINARY, "--config", yaml.string()}, "shortlink-server"));

  std::atomic<int> redirects{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      const std::string agent = "User-Agent: Mozilla/5.0 client-" + std::to_string(t);
      while (!stop.load()) {
        if (HttpCall(provider.port(), "GET", "/" + code, {agent}).status == 302) ++redirects;
      }
    });
  }
  StatsRequest stats_request;
  stats_request.set_code(code);
  auto pv = [&] {
    auto r = provider.proxy().Stats(stats_request, WithToken(key));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->pv() : -1;
  };
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (pv() < 100) {  // the process is consuming
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the consumer process counts nothing";
    std::this_thread::sleep_for(10ms);
  }
  consumer.Kill();
  std::this_thread::sleep_for(50ms);  // visits keep coming after the kill
  stop = true;
  for (auto& c : clients) c.join();

  // Everything recorded reaches the stream, then the survivor counts until nothing is pending.
  while (provider.app().visits().appended() < provider.app().visits().recorded()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_EQ(provider.app().visits().dropped(), 0u);
  while (pv() < redirects.load()) {
    bool more = false;
    ASSERT_TRUE(provider.app().ConsumeStatsOnce(&more).ok());
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "pv " << pv() << " of " << redirects;
    if (!more) std::this_thread::sleep_for(20ms);
  }
  // Claimable entries idle past claim_idle_ms are all gone now; one more pass changes nothing.
  std::this_thread::sleep_for(400ms);
  bool more = false;
  ASSERT_TRUE(provider.app().ConsumeStatsOnce(&more).ok());
  EXPECT_EQ(pv(), redirects.load());
}

}  // namespace
}  // namespace ferry::shortlink::testing
