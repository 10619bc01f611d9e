// A ZooKeeper that is not up when a registry starts: by default (registry.startup: wait) the
// registry starts anyway, keeps what it is asked to do and does it once ZooKeeper answers; with
// failfast it refuses to start.
#include <string>
#include <thread>

#include "zookeeper_registry_fixture.h"

namespace ferry::registry {
namespace {

using testsupport::ProviderListRecorder;

constexpr char kService[] = "ferry.demo.EchoService";
constexpr auto kRecovery = 30s;  // a JVM's start on a busy machine, then the client's retry

// Bounded: RegistrationsPublished() changes on the registry's worker, with no event to wait on.
bool WaitPublished(const Registry& registry, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!registry.RegistrationsPublished()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

TEST_F(ZooKeeperRegistryTest, ByDefaultStartGoesOnWithoutZooKeeperAndCatchesUpWhenItAppears) {
  testsupport::ZooKeeperServer late;
  const uint16_t port = late.ChoosePort();  // nothing listens there yet
  RegistryOptions options = Options();
  options.url = "zookeeper://127.0.0.1:" + std::to_string(port);
  options.connect_timeout = 300ms;
  ASSERT_EQ(options.startup, RegistryOptions::Startup::kWait) << "the default";

  auto provider_side = Open(options);
  auto client_side = Open(options);
  ASSERT_TRUE(provider_side && client_side);
  EXPECT_TRUE(log_.WaitFor("registry: no ZooKeeper session with 127.0.0.1:" + std::to_string(port) +
                               " within 300 ms; starting without it",
                           kWait));
  const Status health = client_side->Health();
  EXPECT_EQ(health.code(), StatusCode::UNAVAILABLE);
  EXPECT_EQ(health.message(),
            "registry " + options.url + " is unreachable: no ZooKeeper session since start");

  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  EXPECT_FALSE(provider_side->RegistrationsPublished()) << "accepted, not yet published";
  ProviderListRecorder recorder;
  client_side->Subscribe(kService, recorder.Listener());
  EXPECT_EQ(recorder.calls(), 0u) << "no list is known yet";

  ASSERT_TRUE(late.Start());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kRecovery));
  EXPECT_TRUE(WaitPublished(*provider_side, kRecovery));
  EXPECT_TRUE(client_side->Health().ok()) << client_side->Health();
}

TEST_F(ZooKeeperRegistryTest, WithFailFastAnUnreachableZooKeeperFailsStart) {
  RegistryOptions options;
  options.url = "zookeeper://127.0.0.1:1";  // nothing listens on port 1
  options.connect_timeout = 500ms;
  options.startup = RegistryOptions::Startup::kFailFast;
  std::shared_ptr<Registry> registry;
  Status status = OpenRegistry(options, &registry);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE) << status;
  EXPECT_EQ(status.message(),
            "no ZooKeeper session with 127.0.0.1:1 within 500 ms (registry.startup: failfast)");
  EXPECT_EQ(registry, nullptr);
}

TEST_F(ZooKeeperRegistryTest, RegistrationsPublishedFollowsRegisterAndUnregister) {
  auto provider_side = Open();
  ASSERT_TRUE(provider_side);
  EXPECT_TRUE(provider_side->RegistrationsPublished()) << "nothing to publish";
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  EXPECT_TRUE(provider_side->RegistrationsPublished());
  EXPECT_TRUE(provider_side->Health().ok());
  ASSERT_TRUE(provider_side->Unregister(kService, "127.0.0.1:7001").ok());
  EXPECT_TRUE(provider_side->RegistrationsPublished());
}

}  // namespace
}  // namespace ferry::registry
