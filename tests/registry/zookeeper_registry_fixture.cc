#include "zookeeper_registry_fixture.h"

#include "znode_layout.h"

namespace ferry::registry {

testsupport::ZooKeeperServer* ZooKeeperRegistryTest::server_ = nullptr;

void ZooKeeperRegistryTest::SetUpTestSuite() {
  server_ = new testsupport::ZooKeeperServer();
  EXPECT_TRUE(server_->Start());
}

void ZooKeeperRegistryTest::TearDownTestSuite() {
  delete server_;
  server_ = nullptr;
}

void ZooKeeperRegistryTest::SetUp() {
  if (!server_->running()) {
    ASSERT_TRUE(server_->Start());
  }
  namespace_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
}

RegistryOptions ZooKeeperRegistryTest::Options(bool empty_protection) const {
  RegistryOptions options;
  options.url = server_->url();
  options.namespace_name = namespace_;
  options.empty_protection = empty_protection;
  options.session_timeout = 6s;
  return options;
}

std::shared_ptr<ZooKeeperRegistry> ZooKeeperRegistryTest::Open(const RegistryOptions& options) {
  std::shared_ptr<Registry> registry;
  Status status = OpenRegistry(options, &registry);
  EXPECT_TRUE(status.ok()) << status;
  return std::dynamic_pointer_cast<ZooKeeperRegistry>(registry);
}

std::string ZooKeeperRegistryTest::ProviderZnode(const std::string& service,
                                                 const std::string& address) const {
  return ProviderPath(namespace_, service, address);
}

ProviderInfo TestProvider(const std::string& address, uint32_t weight) {
  ProviderInfo provider;
  provider.address = address;
  provider.weight = weight;
  provider.version = "1.2.3";
  provider.group = "blue";
  provider.zone = "az-1";
  provider.start_time_ms = 1732900000123;
  provider.methods = {"Echo", "Delay"};
  return provider;
}

}  // namespace ferry::registry
