#include <gtest/gtest.h>

#include <memory>

#include "ferry/framework/registry.h"
#include "provider_list_recorder.h"

namespace ferry {
namespace {

using namespace std::chrono_literals;
using testsupport::Addresses;
using testsupport::ProviderListRecorder;
using Strings = std::vector<std::string>;

constexpr auto kWait = 2s;

std::shared_ptr<Registry> OpenStatic(const std::string& url) {
  RegistryOptions options;
  options.url = url;
  std::shared_ptr<Registry> registry;
  Status status = OpenRegistry(options, &registry);
  EXPECT_TRUE(status.ok()) << status;
  return registry;
}

ProviderInfo Provider(const std::string& address, uint32_t weight = 100) {
  ProviderInfo provider;
  provider.address = address;
  provider.weight = weight;
  provider.methods = {"Echo"};
  return provider;
}

TEST(StaticRegistryTest, EveryServiceResolvesToTheConfiguredList) {
  auto registry = OpenStatic("static://127.0.0.1:7001,127.0.0.1:7002");
  ASSERT_NE(registry, nullptr);
  for (const char* service : {"ferry.demo.EchoService", "any.Other"}) {
    auto providers = registry->Snapshot(service);
    EXPECT_EQ(Addresses(providers), (Strings{"127.0.0.1:7001", "127.0.0.1:7002"}));
    for (const auto& provider : providers) EXPECT_EQ(provider.weight, 100u);
  }
  ProviderListRecorder recorder;
  registry->Subscribe("any.Other", recorder.Listener());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001", "127.0.0.1:7002"}, kWait));
}

TEST(StaticRegistryTest, RegistrationsChangeOnlyThisProcessesListOfThatService) {
  auto registry = OpenStatic("static://127.0.0.1:7001");
  ASSERT_NE(registry, nullptr);
  ProviderListRecorder recorder;
  registry->Subscribe("svc", recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001"}, kWait));

  ASSERT_TRUE(registry->Register("svc", Provider("127.0.0.1:7003")).ok());
  EXPECT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7001", "127.0.0.1:7003"}, kWait));
  EXPECT_EQ(Addresses(registry->Snapshot("other")), Strings{"127.0.0.1:7001"});

  // Registering a configured address replaces its entry rather than listing it twice.
  ASSERT_TRUE(registry->Register("svc", Provider("127.0.0.1:7001", 5)).ok());
  ASSERT_TRUE(recorder.WaitFor(
      [](const auto& list) { return list.size() == 2 && list[0].weight == 5; }, kWait));

  ASSERT_TRUE(registry->Unregister("svc", "127.0.0.1:7003").ok());
  ASSERT_TRUE(registry->Unregister("svc", "127.0.0.1:7001").ok());
  EXPECT_TRUE(recorder.WaitFor(
      [](const auto& list) { return list.size() == 1 && list[0].weight == 100; }, kWait));
  EXPECT_TRUE(registry->Unregister("svc", "127.0.0.1:9999").ok());  // unknown: no-op
}

TEST(StaticRegistryTest, EmptyListServesOnlyOwnRegistrations) {
  auto registry = OpenStatic("static://");
  ASSERT_NE(registry, nullptr);
  EXPECT_TRUE(registry->Snapshot("svc").empty());
  ProviderListRecorder recorder;
  registry->Subscribe("svc", recorder.Listener());
  ASSERT_TRUE(recorder.WaitForAddresses({}, kWait));
  ASSERT_TRUE(registry->Register("svc", Provider("127.0.0.1:7005")).ok());
  ASSERT_TRUE(recorder.WaitForAddresses({"127.0.0.1:7005"}, kWait));
  // Unregistering is deliberate here, never a registry fault: the list may become empty.
  ASSERT_TRUE(registry->Unregister("svc", "127.0.0.1:7005").ok());
  EXPECT_TRUE(recorder.WaitForAddresses({}, kWait));
}

TEST(StaticRegistryTest, RejectsWhatAZooKeeperRegistryWouldReject) {
  auto registry = OpenStatic("static://127.0.0.1:7001");
  ASSERT_NE(registry, nullptr);
  EXPECT_EQ(registry->Register("a/b", Provider("127.0.0.1:1")).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(registry->Register("svc", Provider("no-port")).code(), StatusCode::INVALID_ARGUMENT);
  ProviderInfo bad_method = Provider("127.0.0.1:1");
  bad_method.methods = {"A,B"};
  EXPECT_EQ(registry->Register("svc", bad_method).code(), StatusCode::INVALID_ARGUMENT);
}

TEST(StaticRegistryTest, StopDropsOwnRegistrations) {
  auto registry = OpenStatic("static://127.0.0.1:7001");
  ASSERT_NE(registry, nullptr);
  ASSERT_TRUE(registry->Register("svc", Provider("127.0.0.1:7002")).ok());
  registry->Stop();
  EXPECT_EQ(Addresses(registry->Snapshot("svc")), Strings{"127.0.0.1:7001"});
}

}  // namespace
}  // namespace ferry
