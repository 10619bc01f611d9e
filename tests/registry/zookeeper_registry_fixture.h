#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "ferry/framework/registry.h"
#include "log_capture.h"
#include "provider_list_recorder.h"
#include "zookeeper_registry.h"
#include "zookeeper_server.h"

namespace ferry::registry {

using namespace std::chrono_literals;

// Registries against one real ZooKeeper server per test process (started once, restarted by
// the tests that stop it). Each test works in a namespace of its own.
class ZooKeeperRegistryTest : public ::testing::Test {
 protected:
  static constexpr auto kWait = 2s;  // what the issue allows for joins and leaves

  static void SetUpTestSuite();
  static void TearDownTestSuite();
  void SetUp() override;

  // This test's namespace on the shared server; a 6 s session outlives a server restart.
  RegistryOptions Options(bool empty_protection = false) const;
  std::shared_ptr<ZooKeeperRegistry> Open(const RegistryOptions& options);
  std::shared_ptr<ZooKeeperRegistry> Open(bool empty_protection = false) {
    return Open(Options(empty_protection));
  }
  std::string ProviderZnode(const std::string& service, const std::string& address) const;

  static testsupport::ZooKeeperServer* server_;
  testsupport::LogCapture log_;
  std::string namespace_;
};

// A provider with every field set, so round trips are checked field by field.
ProviderInfo TestProvider(const std::string& address, uint32_t weight = 100);

}  // namespace ferry::registry
