// The ZooKeeper registry's normal life: providers join, change and leave, and subscribers in
// other registry instances see it within the two seconds.
#include "provider_record.h"
#include "zookeeper_registry_fixture.h"

namespace ferry::registry {
namespace {

using testsupport::Addresses;
using testsupport::ProviderListRecorder;
using testsupport::RawZooKeeperClient;

constexpr char kService[] = "ferry.demo.EchoService";

TEST_F(ZooKeeperRegistryTest, RegisteredProviderReachesAnotherRegistryWithAllItsData) {
  auto provider_side = Open();
  auto client_side = Open();
  ASSERT_TRUE(provider_side && client_side);
  const ProviderInfo provider = TestProvider("127.0.0.1:7001", 42);
  ASSERT_TRUE(provider_side->Register(kService, provider).ok());

  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitFor([&](const auto& list) { return list.size() == 1; }, kWait));
  EXPECT_EQ(recorder.latest()->front(), provider);  // weight, version, group, zone, start, methods
  EXPECT_EQ(client_side->Snapshot(kService), std::vector<ProviderInfo>{provider});
}

TEST_F(ZooKeeperRegistryTest, SubscriberLearnsJoinsAndLeaves) {
  auto provider_side = Open();
  auto client_side = Open(/*empty_protection=*/false);
  ASSERT_TRUE(provider_side && client_side);
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({}, kWait));  // the first list comes even when empty

  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7002")).ok());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001", "127.0.0.1:7002"}, kWait));
  ASSERT_TRUE(provider_side->Unregister(kService, "127.0.0.1:7001").ok());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7002"}, kWait));
  ASSERT_TRUE(provider_side->Unregister(kService, "127.0.0.1:7002").ok());
  EXPECT_TRUE(recorder.WaitForAddresses({}, kWait));
  EXPECT_TRUE(client_side->Snapshot(kService).empty());
}

TEST_F(ZooKeeperRegistryTest, StoppingTheProviderRegistryUnregistersFirst) {
  auto provider_side = Open();
  auto client_side = Open(/*empty_protection=*/false);
  ASSERT_TRUE(provider_side && client_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));

  provider_side->Stop();
  EXPECT_TRUE(recorder.WaitForAddresses({}, kWait));
  RawZooKeeperClient observer(server_->address());
  ASSERT_TRUE(observer.connected());
  Stat stat;
  EXPECT_EQ(observer.Get(ProviderZnode(kService, "127.0.0.1:7001"), &stat), ZNONODE);
  EXPECT_EQ(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).code(),
            StatusCode::FAILED_PRECONDITION);
}

TEST_F(ZooKeeperRegistryTest, EmptyProtectionKeepsTheLastListAndLogsIt) {
  auto provider_side = Open();
  auto client_side = Open(/*empty_protection=*/true);
  ASSERT_TRUE(provider_side && client_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7002")).ok());
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001", "127.0.0.1:7002"}, kWait));

  ASSERT_TRUE(provider_side->Unregister(kService, "127.0.0.1:7001").ok());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7002"}, kWait));  // shrinking is applied
  provider_side->Stop();                                              // emptying is not
  ASSERT_TRUE(log_.WaitFor("empty_protection", kWait));
  EXPECT_EQ(Addresses(client_side->Snapshot(kService)), std::vector<std::string>{"127.0.0.1:7002"});
  EXPECT_EQ(Addresses(*recorder.latest()), std::vector<std::string>{"127.0.0.1:7002"});

  auto returning = Open();  // a real provider coming back replaces the protected list
  ASSERT_TRUE(returning && returning->Register(kService, TestProvider("127.0.0.1:7003")).ok());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7003"}, kWait));
}

TEST_F(ZooKeeperRegistryTest, RegisteringAgainPublishesChangedData) {
  auto provider_side = Open();
  auto client_side = Open();
  ASSERT_TRUE(provider_side && client_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001", 100)).ok());
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));

  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001", 5)).ok());
  EXPECT_TRUE(recorder.WaitFor(
      [](const auto& list) { return list.size() == 1 && list.front().weight == 5; }, kWait));
}

TEST_F(ZooKeeperRegistryTest, ServicesAndNamespacesAreSeparate) {
  auto provider_side = Open();
  ASSERT_TRUE(provider_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  ASSERT_TRUE(provider_side->Register("other.Service", TestProvider("127.0.0.1:7002")).ok());
  RegistryOptions other_namespace = Options();
  other_namespace.namespace_name += "-elsewhere";
  auto elsewhere = Open(other_namespace);
  auto same = Open();
  ASSERT_TRUE(elsewhere && same);

  ProviderListRecorder in_same, in_other_namespace;
  same->Subscribe(kService, in_same.Listener());
  elsewhere->Subscribe(kService, in_other_namespace.Listener());
  EXPECT_TRUE(in_same.WaitForAddresses({"127.0.0.1:7001"}, kWait));
  EXPECT_TRUE(in_other_namespace.WaitForAddresses({}, kWait));
}

}  // namespace
}  // namespace ferry::registry
