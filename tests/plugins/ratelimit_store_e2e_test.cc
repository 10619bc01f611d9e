// The `ratelimit` filter with a store: shared limits taken there, the others as before, and what
// each on_unavailable policy makes of a store that cannot answer.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "ferry/codec/extension_registry.h"
#include "ferry/plugins/rate_limit_store.h"
#include "filter_fixture.h"
#include "metric_value.h"

namespace ferry::plugins_test {
namespace {

using ::testing::HasSubstr;

// A store that is never reachable (a Redis down), counting what it was asked.
class UnreachableStore final : public plugins::RateLimitStore {
 public:
  static std::atomic<int>& asked() {
    static std::atomic<int> count{0};
    return count;
  }
  void Configure(config::ConfigReader&) override {}
  void TryTake(std::span<const plugins::SharedTake> takes,
               std::span<plugins::TakeVerdict> verdicts) override {
    asked() += static_cast<int>(takes.size());
    std::fill(verdicts.begin(), verdicts.end(), plugins::TakeVerdict::kUnavailable);
  }
};

const bool kRegistered = [] {
  ExtensionRegistry::Instance().Register<plugins::RateLimitStore>(
      "test-unreachable", [] { return std::make_shared<UnreachableStore>(); });
  return true;
}();

// Calls until one is refused, at most `attempts`; how many were served.
int ServedBeforeRefusal(demo::EchoServiceProxy& proxy, int attempts, Status* refusal) {
  for (int i = 0; i < attempts; ++i) {
    const auto result = proxy.Echo(EchoOf("x"));
    if (!result.ok()) {
      *refusal = result.status();
      return i;
    }
  }
  return attempts;
}

double Unavailable(const std::string& policy) {
  return MetricValue("ferry_ratelimit_store_unavailable_total{on_unavailable=\"" + policy + "\"}");
}

using RateLimitStoreTest = FilterFixture;

TEST_F(RateLimitStoreTest, ASharedLimitOfTheLocalStoreKeepsItsRate) {
  StartServer("[{name: ratelimit, store: {kind: local}, per_method: {rate: 0.001, burst: 3}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  Status refusal;
  EXPECT_EQ(ServedBeforeRefusal(proxy, 10, &refusal), 3);
  EXPECT_EQ(refusal.code(), StatusCode::RESOURCE_EXHAUSTED) << refusal;
  EXPECT_THAT(refusal.message(),
              HasSubstr("rate limit of method ferry.demo.EchoService/Echo exceeded (0.001/s, "
                        "burst 3)"));
}

TEST_F(RateLimitStoreTest, AnUnreachableStoreFallsBackToTheLocalBucketAndIsCounted) {
  const double before = Unavailable("local");
  StartServer(
      "[{name: ratelimit, store: {kind: test-unreachable}, per_method: {rate: 0.001, burst: 3}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  Status refusal;
  EXPECT_EQ(ServedBeforeRefusal(proxy, 10, &refusal), 3);
  EXPECT_EQ(refusal.code(), StatusCode::RESOURCE_EXHAUSTED) << refusal;
  EXPECT_EQ(Unavailable("local") - before, 4);
}

TEST_F(RateLimitStoreTest, OnUnavailableAllowPassesEveryCall) {
  const double before = Unavailable("allow");
  StartServer(
      "[{name: ratelimit, store: {kind: test-unreachable, on_unavailable: allow}, per_method: "
      "{rate: 0.001, burst: 3}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  Status refusal;
  EXPECT_EQ(ServedBeforeRefusal(proxy, 10, &refusal), 10) << refusal;
  EXPECT_EQ(Unavailable("allow") - before, 10);
}

TEST_F(RateLimitStoreTest, OnUnavailableRefuseAnswersUnavailable) {
  StartServer(
      "[{name: ratelimit, store: {kind: test-unreachable, on_unavailable: refuse}, per_method: "
      "{rate: 1000, burst: 1000}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  const Status status = proxy.Echo(EchoOf("x")).status();
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("ratelimit: the test-unreachable store cannot tell the limit of method "
                        "ferry.demo.EchoService/Echo (on_unavailable: refuse)"));
}

TEST_F(RateLimitStoreTest, ALimitThatIsNotSharedNeverAsksTheStore) {
  const int asked = UnreachableStore::asked();
  StartServer(
      "[{name: ratelimit, store: {kind: test-unreachable, on_unavailable: refuse}, per_method: "
      "{rate: 0.001, burst: 2, shared: false}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  Status refusal;
  EXPECT_EQ(ServedBeforeRefusal(proxy, 10, &refusal), 2);
  EXPECT_EQ(refusal.code(), StatusCode::RESOURCE_EXHAUSTED) << refusal;
  EXPECT_EQ(UnreachableStore::asked(), asked);
}

TEST_F(RateLimitStoreTest, SharedFieldLimitsGoToTheStoreToo) {
  const int asked = UnreachableStore::asked();
  StartServer(
      "[{name: ratelimit, store: {kind: test-unreachable}, per_field: "
      "{\"ferry.demo.EchoService/Echo\": {payload: {rate: 0.001, burst: 1}}}}]");
  demo::EchoServiceProxy proxy = NewProxy();
  EXPECT_TRUE(proxy.Echo(EchoOf("a")).ok());
  EXPECT_EQ(proxy.Echo(EchoOf("a")).status().code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(proxy.Echo(EchoOf("b")).ok());
  EXPECT_EQ(UnreachableStore::asked() - asked, 3);
}

// Mistakes, as a server reports them when it starts.
Status StartWith(const std::string& filters_yaml) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.filters = Filters("server", filters_yaml);
  Server server(std::move(options));
  Status status = server.Start();
  server.Stop();
  return status;
}

TEST(RateLimitStoreConfigTest, MistakesNameTheKey) {
  EXPECT_THAT(StartWith("[{name: ratelimit, per_user: {rate: 1, shared: true}}]").message(),
              HasSubstr("server.filters[0].per_user.shared: a shared limit needs the filter's "
                        "store"));
  EXPECT_THAT(StartWith("[{name: ratelimit, store: {kind: nope}, per_user: {rate: 1}}]").message(),
              HasSubstr("server.filters[0].store.kind: unknown rate limit store 'nope' (known: "));
  EXPECT_THAT(StartWith("[{name: ratelimit, store: {}, per_user: {rate: 1}}]").message(),
              HasSubstr("server.filters[0].store.kind: must name the store"));
  EXPECT_THAT(StartWith("[{name: ratelimit, store: {kind: local, on_unavailable: maybe}, "
                        "per_user: {rate: 1}}]")
                  .message(),
              HasSubstr("store.on_unavailable: expected local, allow or refuse, got 'maybe'"));
  EXPECT_THAT(StartWith("[{name: ratelimit, store: {kind: local, adress: x}, per_user: {rate: 1}}]")
                  .message(),
              HasSubstr("store.adress"));
}

}  // namespace
}  // namespace ferry::plugins_test
