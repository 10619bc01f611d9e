// ZooKeeper digest authentication: a provider whose registry URL carries credentials publishes
// nodes that everyone can read and nobody else can change, and never logs its password.
#include <spdlog/common.h>

#include <string>
#include <vector>

#include "znode_layout.h"
#include "zookeeper_registry_fixture.h"

namespace ferry::registry {
namespace {

using testsupport::ProviderListRecorder;
using testsupport::RawZooKeeperClient;

constexpr char kService[] = "ferry.demo.EchoService";
constexpr char kPassword[] = "s3cret-pw";

class ZooKeeperAclTest : public ZooKeeperRegistryTest {
 protected:
  RegistryOptions WithCredentials() const {
    RegistryOptions options = Options();
    options.url = std::string("zookeeper://ferry:") + kPassword + "@" + server_->address();
    return options;
  }

  std::string ProvidersDirectory() const { return ProvidersPath(namespace_, kService); }

  // What a session without credentials may do to an authenticated provider's node: read it,
  // and nothing else.
  void ExpectOnlyReadable(const std::string& node) {
    RawZooKeeperClient anonymous(server_->address());
    ASSERT_TRUE(anonymous.connected());
    zhandle_t* zh = anonymous.handle();
    Stat stat;
    std::string before;
    ASSERT_EQ(anonymous.Get(node, &stat, &before), ZOK);
    EXPECT_EQ(zoo_delete(zh, node.c_str(), -1), ZNOAUTH);
    EXPECT_EQ(zoo_set(zh, node.c_str(), "ferry-provider 1\nweight=1\n", 26, -1), ZNOAUTH);
    EXPECT_EQ(zoo_set_acl(zh, node.c_str(), -1, &ZOO_OPEN_ACL_UNSAFE), ZNOAUTH);
    const std::string directory = ProvidersDirectory();
    EXPECT_EQ(zoo_create(zh, (directory + "/127.0.0.1:7999").c_str(), "", 0, &ZOO_OPEN_ACL_UNSAFE,
                         ZOO_EPHEMERAL, nullptr, 0),
              ZNOAUTH)
        << "nobody else may add a provider";
    EXPECT_EQ(zoo_set_acl(zh, directory.c_str(), -1, &ZOO_OPEN_ACL_UNSAFE), ZNOAUTH);
    std::string after;
    ASSERT_EQ(anonymous.Get(node, &stat, &after), ZOK);
    EXPECT_EQ(after, before);
  }

  void ExpectPasswordNeverLogged() {
    for (const auto level : {spdlog::level::trace, spdlog::level::debug, spdlog::level::info,
                             spdlog::level::warn, spdlog::level::err, spdlog::level::critical}) {
      EXPECT_EQ(log_.Count(level, kPassword), 0u);
    }
  }
};

TEST_F(ZooKeeperAclTest, OthersCanReadButNeitherDeleteNorOverwriteAProvidersNode) {
  auto provider_side = Open(WithCredentials());
  ASSERT_TRUE(provider_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  const std::string node = ProviderZnode(kService, "127.0.0.1:7001");

  // The node's ACL: everyone reads, the digest identity "ferry" does the rest.
  RawZooKeeperClient anonymous(server_->address());
  ASSERT_TRUE(anonymous.connected());
  ACL_vector acl{};
  Stat stat;
  ASSERT_EQ(zoo_get_acl(anonymous.handle(), node.c_str(), &acl, &stat), ZOK);
  ASSERT_EQ(acl.count, 2);
  EXPECT_EQ(std::string(acl.data[0].id.scheme) + ":" + acl.data[0].id.id, "world:anyone");
  EXPECT_EQ(acl.data[0].perms, ZOO_PERM_READ);
  EXPECT_EQ(std::string(acl.data[1].id.scheme), "digest");
  EXPECT_EQ(std::string(acl.data[1].id.id).rfind("ferry:", 0), 0u) << acl.data[1].id.id;
  EXPECT_EQ(acl.data[1].perms, ZOO_PERM_ALL);
  deallocate_ACL_vector(&acl);

  ExpectOnlyReadable(node);

  // A consumer without credentials still discovers it.
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ProviderListRecorder recorder;
  consumer->Subscribe(kService, recorder.Listener());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));

  // The same identity in another session may replace it (a restarted provider does).
  auto successor = Open(WithCredentials());
  ASSERT_TRUE(successor);
  ASSERT_TRUE(successor->Register(kService, TestProvider("127.0.0.1:7001", 7)).ok());
  EXPECT_TRUE(recorder.WaitFor(
      [](const auto& list) { return list.size() == 1 && list.front().weight == 7; }, kWait));
  provider_side->Stop();
  successor->Stop();
  EXPECT_TRUE(recorder.WaitForAddresses({}, kWait)) << "and withdraw it";
  ExpectPasswordNeverLogged();
}

// A consumer without credentials that subscribes first creates the providers directory with the
// open ACL; the first authenticated provider restricts it before it publishes into it.
TEST_F(ZooKeeperAclTest, ADirectoryAConsumerCreatedOpenIsRestrictedByTheProvider) {
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ProviderListRecorder recorder;
  consumer->Subscribe(kService, recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({}, kWait));

  auto provider_side = Open(WithCredentials());
  ASSERT_TRUE(provider_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));
  ExpectOnlyReadable(ProviderZnode(kService, "127.0.0.1:7001"));
  EXPECT_TRUE(log_.WaitFor(ProvidersDirectory() + " let everyone change its children", kWait));
  ExpectPasswordNeverLogged();
}

// Authentication belongs to a connection: after ZooKeeper restarts, the session's new
// connection must authenticate again before the provider can publish into its directory.
TEST_F(ZooKeeperAclTest, TheSessionAuthenticatesAgainAfterAReconnect) {
  auto provider_side = Open(WithCredentials());
  ASSERT_TRUE(provider_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  server_->Stop();
  ASSERT_TRUE(log_.WaitFor("lost ZooKeeper", 15s));
  ASSERT_TRUE(server_->Start());
  ASSERT_TRUE(log_.WaitFor("registry: connected to ZooKeeper", 15s, /*count=*/2));

  const Status registered = provider_side->Register(kService, TestProvider("127.0.0.1:7002"));
  EXPECT_TRUE(registered.ok()) << registered;
  EXPECT_TRUE(provider_side->RegistrationsPublished());
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ProviderListRecorder recorder;
  consumer->Subscribe(kService, recorder.Listener());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001", "127.0.0.1:7002"}, kWait));
  ExpectOnlyReadable(ProviderZnode(kService, "127.0.0.1:7002"));
}

// Without credentials nothing changes: the open ACL, as before.
TEST_F(ZooKeeperAclTest, WithoutCredentialsNodesStayOpen) {
  auto provider_side = Open();
  ASSERT_TRUE(provider_side);
  ASSERT_TRUE(provider_side->Register(kService, TestProvider("127.0.0.1:7001")).ok());
  RawZooKeeperClient anonymous(server_->address());
  ASSERT_TRUE(anonymous.connected());
  EXPECT_EQ(zoo_delete(anonymous.handle(), ProviderZnode(kService, "127.0.0.1:7001").c_str(), -1),
            ZOK);
}

}  // namespace
}  // namespace ferry::registry
