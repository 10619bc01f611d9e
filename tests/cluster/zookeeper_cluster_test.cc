#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <mutex>
#include <thread>

#include "cluster_test_util.h"
#include "provider_process.h"
#include "test_provider.h"
#include "zookeeper_server.h"

namespace ferry::cluster {
namespace {

const std::string kService(kEchoService);

// Calls from a few threads until stopped, counting outcomes: the "load" the failures happen
// under.
class LoadDriver {
 public:
  explicit LoadDriver(std::shared_ptr<Channel> channel) : proxy_(std::move(channel)) {
    for (auto& thread : threads_) {
      thread = std::thread([this] {
        CallOptions options;
        options.timeout = 1000ms;
        while (!stop_.load()) {
          auto result = proxy_.Echo(EchoOf("load"), options);
          if (result.ok()) {
            ok_.fetch_add(1);
          } else {
            failed_.fetch_add(1);
            std::lock_guard lock(mu_);
            last_error_ = result.status();
          }
        }
      });
    }
  }
  ~LoadDriver() { Stop(); }

  void Stop() {
    stop_.store(true);
    for (auto& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }
  uint64_t ok() const { return ok_.load(); }
  uint64_t failed() const { return failed_.load(); }
  Status last_error() {
    std::lock_guard lock(mu_);
    return last_error_;
  }
  // Waits until `n` more calls succeeded.
  bool AdvanceBy(uint64_t n, std::chrono::milliseconds timeout) {
    const uint64_t target = ok() + n;
    return WaitFor([&] { return ok() >= target; }, timeout);
  }

 private:
  demo::EchoServiceProxy proxy_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> ok_{0};
  std::atomic<uint64_t> failed_{0};
  std::mutex mu_;
  Status last_error_;
  std::array<std::thread, 3> threads_;
};

class ZooKeeperClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new testsupport::ZooKeeperServer;
    ASSERT_TRUE(server_->Start());
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    ASSERT_TRUE(server_->running());
    namespace_ = std::string("cluster-") +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
                 std::to_string(::getpid());
  }

  // A new session; the test's own namespace. Sessions outlive a short ZooKeeper restart.
  std::shared_ptr<Registry> Open() {
    RegistryOptions options;
    options.url = server_->url();
    options.namespace_name = namespace_;
    options.session_timeout = 6000ms;
    std::shared_ptr<Registry> registry;
    Status status = OpenRegistry(options, &registry);
    EXPECT_TRUE(status.ok()) << status;
    return registry;
  }

  // How many providers a fresh subscriber sees right now.
  size_t ProvidersSeenByNewcomer(std::chrono::milliseconds wait) {
    auto registry = Open();
    if (registry == nullptr) return 0;
    std::atomic<size_t> seen{0};
    const uint64_t subscription = registry->Subscribe(
        kService, [&](const std::vector<ProviderInfo>& providers) { seen = providers.size(); });
    std::this_thread::sleep_for(wait);
    registry->Unsubscribe(subscription);
    return seen.load();
  }

  static testsupport::ZooKeeperServer* server_;
  std::string namespace_;
};

testsupport::ZooKeeperServer* ZooKeeperClusterTest::server_ = nullptr;

TEST_F(ZooKeeperClusterTest, ProvidersJoiningAndLeavingAreSeenWithinTwoSeconds) {
  TestProvider a, b;
  auto publisher = Open();
  ASSERT_TRUE(publisher->Register(kService, ProviderInfo{.address = a.address()}).ok());
  auto channel = NewTestChannel(TestOptions("failover"), Open());
  demo::EchoServiceProxy proxy(channel);
  ASSERT_TRUE(proxy.Echo(EchoOf("x")).ok());
  EXPECT_EQ(a.echo_calls(), 1u);

  ASSERT_TRUE(publisher->Register(kService, ProviderInfo{.address = b.address()}).ok());
  EXPECT_TRUE(WaitFor(
      [&] {
        EXPECT_TRUE(proxy.Echo(EchoOf("x")).ok());
        return b.echo_calls() > 0;
      },
      2s))
      << "b joined but got no call within 2 s";

  ASSERT_TRUE(publisher->Unregister(kService, a.address()).ok());
  EXPECT_TRUE(WaitFor(
      [&] {
        const uint64_t before = a.echo_calls();
        for (int i = 0; i < 10; ++i) EXPECT_TRUE(proxy.Echo(EchoOf("x")).ok());
        return a.echo_calls() == before;
      },
      2s))
      << "a left but still got calls after 2 s";
}

TEST_F(ZooKeeperClusterTest, CallsMoveToTheOthersWhenAProviderIsKilled) {
  std::array<ProviderProcess, 3> providers;
  for (auto& provider : providers) ASSERT_TRUE(provider.Start(server_->url(), namespace_));
  auto registry = Open();
  ClusterOptions options = TestOptions("failover");
  options.outlier.consecutive_failures = 3;
  auto channel = NewTestChannel(options, registry);
  ASSERT_TRUE(WaitFor([&] { return registry->Snapshot(kService).size() == 3; }, 5s));

  LoadDriver load(channel);
  ASSERT_TRUE(load.AdvanceBy(200, 5s));
  providers[0].Kill();
  // Its ephemeral registration goes when its 2 s session expires; until then the channel
  // fails over from it, after that it no longer exists for the channel.
  EXPECT_TRUE(WaitFor([&] { return registry->Snapshot(kService).size() == 2; }, 10s));
  ASSERT_TRUE(load.AdvanceBy(200, 5s));
  load.Stop();
  EXPECT_EQ(load.failed(), 0u) << load.last_error();
}

TEST_F(ZooKeeperClusterTest, CallsContinueFromTheCacheWhileZooKeeperIsDown) {
  TestProvider a, b;
  auto publisher = Open();
  ASSERT_TRUE(publisher->Register(kService, ProviderInfo{.address = a.address()}).ok());
  ASSERT_TRUE(publisher->Register(kService, ProviderInfo{.address = b.address()}).ok());
  auto channel = NewTestChannel(TestOptions("failover"), Open());
  LoadDriver load(channel);
  ASSERT_TRUE(load.AdvanceBy(100, 5s));

  server_->Stop();
  const uint64_t a_before = a.echo_calls();
  const uint64_t b_before = b.echo_calls();
  EXPECT_TRUE(load.AdvanceBy(300, 5s)) << "calls stalled while ZooKeeper was down";
  EXPECT_GT(a.echo_calls(), a_before);
  EXPECT_GT(b.echo_calls(), b_before);

  ASSERT_TRUE(server_->Start());
  // The registrations come back: a newcomer's first list names both providers.
  EXPECT_TRUE(WaitFor([&] { return ProvidersSeenByNewcomer(200ms) == 2; }, 15s));
  EXPECT_TRUE(load.AdvanceBy(100, 5s));
  load.Stop();
  EXPECT_EQ(load.failed(), 0u) << load.last_error();
}

}  // namespace
}  // namespace ferry::cluster
