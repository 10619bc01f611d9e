// The ZooKeeper registry when things go wrong: bad data in znodes, ZooKeeper down and back,
// session expiry, and a leftover node of another session at a provider's path.
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "provider_record.h"
#include "zookeeper_registry_fixture.h"

namespace ferry::registry {
namespace {

using testsupport::Addresses;
using testsupport::ProviderListRecorder;
using testsupport::RawZooKeeperClient;

constexpr char kService[] = "ferry.demo.EchoService";
constexpr auto kRecovery = 15s;  // reconnect after a JVM restart on a busy machine

std::string Record(const ProviderInfo& provider) {
  std::string record;
  EXPECT_TRUE(EncodeProviderRecord(provider, &record).ok());
  return record;
}

TEST_F(ZooKeeperRegistryTest, MalformedZnodesAreSkippedAndValidSiblingsDelivered) {
  RawZooKeeperClient writer(server_->address());
  ASSERT_TRUE(writer.connected());
  ASSERT_EQ(
      writer.Create(ProviderZnode(kService, "127.0.0.1:7101"), "{\"weight\": 100}", ZOO_PERSISTENT),
      ZOK);
  ASSERT_EQ(writer.Create(ProviderZnode(kService, "not-an-address"),
                          Record(TestProvider("127.0.0.1:7102")), ZOO_PERSISTENT),
            ZOK);
  ASSERT_EQ(writer.Create(ProviderZnode(kService, "127.0.0.1:7103"),
                          "ferry-provider 1\nweight=lots\n", ZOO_PERSISTENT),
            ZOK);
  auto provider_side = Open();
  auto client_side = Open();
  ASSERT_TRUE(provider_side && client_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());

  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));
  EXPECT_TRUE(log_.WaitFor("malformed record of provider '127.0.0.1:7101'", kWait));
  EXPECT_TRUE(log_.WaitFor("malformed record of provider 'not-an-address'", kWait));

  // A valid node written by hand joins; a later malformed one does not disturb the others.
  ASSERT_EQ(writer.Create(ProviderZnode(kService, "127.0.0.1:7104"),
                          Record(TestProvider("127.0.0.1:7104")), ZOO_EPHEMERAL),
            ZOK);
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001", "127.0.0.1:7104"}, kWait));
  ASSERT_EQ(writer.Create(ProviderZnode(kService, "127.0.0.1:7105"), "", ZOO_EPHEMERAL), ZOK);
  ASSERT_TRUE(log_.WaitFor("malformed record of provider '127.0.0.1:7105'", kWait));
  EXPECT_EQ(Addresses(client_side->Snapshot(kService)),
            (std::vector<std::string>{"127.0.0.1:7001", "127.0.0.1:7104"}));
}

TEST_F(ZooKeeperRegistryTest, AbsurdWeightsAreSkippedWithAWarningNamingTheNode) {
  RawZooKeeperClient writer(server_->address());
  ASSERT_TRUE(writer.connected());
  for (const auto& [address, weight] :
       {std::pair{"127.0.0.1:7201", "0"}, std::pair{"127.0.0.1:7202", "-3"},
        std::pair{"127.0.0.1:7203", "4000000000"}}) {
    ASSERT_EQ(
        writer.Create(ProviderZnode(kService, address),
                      std::string("ferry-provider 1\nweight=") + weight + "\n", ZOO_EPHEMERAL),
        ZOK);
  }
  ASSERT_EQ(writer.Create(ProviderZnode(kService, "127.0.0.1:7204"),
                          Record(TestProvider("127.0.0.1:7204", 100000)), ZOO_EPHEMERAL),
            ZOK);
  auto client_side = Open();
  ASSERT_TRUE(client_side);
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7204"}, kWait));
  for (const auto& [address, weight] :
       {std::pair{"127.0.0.1:7201", "0"}, std::pair{"127.0.0.1:7202", "-3"},
        std::pair{"127.0.0.1:7203", "4000000000"}}) {
    EXPECT_TRUE(log_.WaitFor("skipping provider node " + ProviderZnode(kService, address) +
                                 ": malformed record of provider '" + address + "': weight " +
                                 weight + " is outside 1..100000",
                             kWait));
  }
  EXPECT_EQ(client_side->Snapshot(kService).front().weight, 100000u);
}

TEST_F(ZooKeeperRegistryTest, CachedListSurvivesAnOutageAndIsReReadAfterRestart) {
  auto provider_side = Open();
  auto client_side = Open(/*empty_protection=*/false);
  ASSERT_TRUE(provider_side && client_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));

  server_->Stop();
  ASSERT_TRUE(log_.WaitFor("lost ZooKeeper", kRecovery, /*count=*/2));  // both registries
  EXPECT_EQ(Addresses(client_side->Snapshot(kService)), std::vector<std::string>{"127.0.0.1:7001"});
  // Accepted while ZooKeeper is down, published once it is back.
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7002")).ok());
  EXPECT_EQ(Addresses(client_side->Snapshot(kService)), std::vector<std::string>{"127.0.0.1:7001"});

  ASSERT_TRUE(server_->Start());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001", "127.0.0.1:7002"}, kRecovery));
}

TEST_F(ZooKeeperRegistryTest, StoppingWhileZooKeeperIsDownLeavesCleanupToSessionExpiry) {
  RegistryOptions options = Options();
  options.session_timeout = 2s;
  auto provider_side = Open(options);
  auto client_side = Open(/*empty_protection=*/false);
  ASSERT_TRUE(provider_side && client_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));

  server_->Stop();
  ASSERT_TRUE(log_.WaitFor("lost ZooKeeper", kRecovery, /*count=*/2));
  provider_side->Stop();  // cannot unregister, must not hang either
  EXPECT_TRUE(log_.WaitFor("1 providers stay listed until the session expires", kWait));
  ASSERT_TRUE(server_->Start());
  // The restarted server expires the orphaned session, deleting its node.
  EXPECT_TRUE(recorder.WaitForAddresses({}, kRecovery));
}

TEST_F(ZooKeeperRegistryTest, SessionExpiryReRegistersAutomatically) {
  auto provider_side = Open();
  auto client_side = Open(/*empty_protection=*/true);
  ASSERT_TRUE(provider_side && client_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));
  const auto credentials = provider_side->session_credentials();
  ASSERT_TRUE(credentials);

  ASSERT_TRUE(testsupport::ExpireSession(server_->address(), *credentials));
  ASSERT_TRUE(log_.WaitFor("session expired", kRecovery));

  RawZooKeeperClient observer(server_->address());
  ASSERT_TRUE(observer.connected());
  const std::string znode = ProviderZnode(kService, "127.0.0.1:7001");
  Stat stat{};
  const auto deadline = std::chrono::steady_clock::now() + kRecovery;
  while (std::chrono::steady_clock::now() < deadline &&
         !(observer.Get(znode, &stat) == ZOK && stat.ephemeralOwner != credentials->client_id)) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(observer.Get(znode, &stat), ZOK);
  EXPECT_NE(stat.ephemeralOwner, credentials->client_id);
  const auto new_credentials = provider_side->session_credentials();
  ASSERT_TRUE(new_credentials);
  EXPECT_EQ(stat.ephemeralOwner, new_credentials->client_id);
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));
}

TEST_F(ZooKeeperRegistryTest, SubscriberReReadsTheFullListAfterItsSessionExpires) {
  auto provider_side = Open();
  auto client_side = Open();
  ASSERT_TRUE(provider_side && client_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));
  const auto credentials = client_side->session_credentials();
  ASSERT_TRUE(credentials);

  // A provider joins while the subscriber is cut off: only a full re-read can reveal it, since
  // the expired session's watch is gone.
  ASSERT_TRUE(testsupport::ExpireSession(server_->address(), *credentials, [&] {
    EXPECT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7002")).ok());
  }));
  ASSERT_TRUE(log_.WaitFor("session expired", kRecovery));
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001", "127.0.0.1:7002"}, kRecovery));
  // And the new session watches again.
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7003")).ok());
  EXPECT_TRUE(
      recorder.WaitForAddresses({"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"}, kWait));
}

// After an expiry the old session's node may still be there when the new session publishes
// (NodeExists); it would vanish with the old session and take the registration along.
TEST_F(ZooKeeperRegistryTest, LeftoverNodeOfAnotherSessionIsReplaced) {
  const std::string znode = ProviderZnode(kService, "127.0.0.1:7001");
  auto leftover_owner = std::make_unique<RawZooKeeperClient>(server_->address());
  ASSERT_TRUE(leftover_owner->connected());
  ASSERT_EQ(leftover_owner->Create(znode, Record(TestProvider("127.0.0.1:7001", 1)), ZOO_EPHEMERAL),
            ZOK);

  auto provider_side = Open();
  ASSERT_TRUE(provider_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001", 100)).ok());
  EXPECT_TRUE(log_.WaitFor("replacing " + znode, kWait));
  leftover_owner.reset();  // the old session ends

  RawZooKeeperClient observer(server_->address());
  ASSERT_TRUE(observer.connected());
  Stat stat{};
  std::string data;
  ASSERT_EQ(observer.Get(znode, &stat, &data), ZOK);
  EXPECT_EQ(stat.ephemeralOwner, provider_side->session_credentials()->client_id);
  EXPECT_EQ(data, Record(TestProvider("127.0.0.1:7001", 100)));
}

TEST_F(ZooKeeperRegistryTest, UnregisterLeavesANodeThatIsNoLongerOurs) {
  auto provider_side = Open();
  ASSERT_TRUE(provider_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  // A new process took over the address (say, after this one was partitioned away).
  RawZooKeeperClient successor(server_->address());
  ASSERT_TRUE(successor.connected());
  const std::string znode = ProviderZnode(kService, "127.0.0.1:7001");
  ASSERT_EQ(zoo_delete(successor.handle(), znode.c_str(), -1), ZOK);
  ASSERT_EQ(successor.Create(znode, Record(TestProvider("127.0.0.1:7001", 7)), ZOO_EPHEMERAL), ZOK);

  ASSERT_TRUE(provider_side->Unregister(kService, "127.0.0.1:7001").ok());
  Stat stat{};
  ASSERT_EQ(successor.Get(znode, &stat), ZOK);
  EXPECT_EQ(stat.ephemeralOwner, successor.session_id());
}

}  // namespace
}  // namespace ferry::registry
