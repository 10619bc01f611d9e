#include <gtest/gtest.h>

#include <array>
#include <set>

#include "cluster_test_util.h"
#include "test_provider.h"

namespace ferry::cluster {
namespace {

ClusterOptions HashOptions(const std::string& field = "") {
  ClusterOptions options = TestOptions("failover");
  options.loadbalance.name = "consistent_hash";
  options.loadbalance.hash_field = field;
  return options;
}

class ConsistentHashTest : public ::testing::Test {
 protected:
  std::shared_ptr<Registry> ProviderList() {
    return StaticRegistry(
        {providers_[0].address(), providers_[1].address(), providers_[2].address()});
  }
  std::array<uint64_t, 3> Counts() const {
    return {providers_[0].echo_calls(), providers_[1].echo_calls(), providers_[2].echo_calls()};
  }
  // Which provider served the calls made by `calls`, or -1 if they went to several.
  int OnlyProviderOf(const std::function<void()>& calls) {
    const auto before = Counts();
    calls();
    const auto after = Counts();
    int served = -1;
    for (int i = 0; i < 3; ++i) {
      if (after[i] == before[i]) continue;
      if (served != -1) return -1;
      served = i;
    }
    return served;
  }

  std::array<TestProvider, 3> providers_;
};

TEST_F(ConsistentHashTest, CallsWithTheSameHashKeyGoToTheSameProvider) {
  demo::EchoServiceProxy proxy(NewTestChannel(HashOptions(), ProviderList()));
  std::set<int> used;
  for (uint64_t key = 0; key < 30; ++key) {
    CallOptions options;
    options.hash_key = key;
    const int provider = OnlyProviderOf([&] {
      for (int i = 0; i < 5; ++i) EXPECT_TRUE(proxy.Echo(EchoOf("x"), options).ok());
    });
    EXPECT_NE(provider, -1) << "key " << key;
    used.insert(provider);
  }
  EXPECT_GT(used.size(), 1u) << "30 keys should not all land on one provider";
}

TEST_F(ConsistentHashTest, KeyTakenFromTheConfiguredRequestField) {
  demo::EchoServiceProxy proxy(NewTestChannel(HashOptions("payload"), ProviderList()));
  std::set<int> used;
  for (int user = 0; user < 30; ++user) {
    const std::string payload = "user-" + std::to_string(user);
    const int provider = OnlyProviderOf([&] {
      for (int i = 0; i < 5; ++i) EXPECT_TRUE(proxy.Echo(EchoOf(payload)).ok());
    });
    EXPECT_NE(provider, -1) << payload;
    used.insert(provider);
  }
  EXPECT_GT(used.size(), 1u);
}

TEST_F(ConsistentHashTest, ExplicitHashKeyWinsOverTheField) {
  demo::EchoServiceProxy proxy(NewTestChannel(HashOptions("payload"), ProviderList()));
  CallOptions options;
  options.hash_key = 7;
  const int provider = OnlyProviderOf([&] {
    for (int i = 0; i < 10; ++i) {
      EXPECT_TRUE(proxy.Echo(EchoOf("payload " + std::to_string(i)), options).ok());
    }
  });
  EXPECT_NE(provider, -1);
}

TEST_F(ConsistentHashTest, SameKeyAgreesAcrossChannels) {
  demo::EchoServiceProxy first(NewTestChannel(HashOptions("payload"), ProviderList()));
  demo::EchoServiceProxy second(NewTestChannel(HashOptions("payload"), ProviderList()));
  for (int user = 0; user < 10; ++user) {
    const std::string payload = "user-" + std::to_string(user);
    const int provider = OnlyProviderOf([&] {
      EXPECT_TRUE(first.Echo(EchoOf(payload)).ok());
      EXPECT_TRUE(second.Echo(EchoOf(payload)).ok());
    });
    EXPECT_NE(provider, -1) << payload;
  }
}

}  // namespace
}  // namespace ferry::cluster
