#include "service_directory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "provider_list_recorder.h"

namespace ferry::registry {
namespace {

using namespace std::chrono_literals;
using testsupport::Addresses;
using testsupport::ProviderListRecorder;

constexpr auto kWait = 2s;

std::vector<ProviderInfo> List(std::initializer_list<const char*> addresses) {
  std::vector<ProviderInfo> providers;
  for (const char* address : addresses) {
    ProviderInfo provider;
    provider.address = address;
    providers.push_back(provider);
  }
  return providers;
}

TEST(ServiceDirectoryTest, FirstListIsDeliveredEvenWhenEmpty) {
  ServiceDirectory directory;
  ProviderListRecorder recorder;
  auto subscription = directory.Subscribe("svc", recorder.Listener());
  EXPECT_TRUE(subscription.first_of_service);
  directory.Update("svc", {});
  EXPECT_TRUE(recorder.WaitForAddresses({}, kWait));
}

TEST(ServiceDirectoryTest, LaterSubscriberGetsTheCachedListAtOnce) {
  ServiceDirectory directory;
  ProviderListRecorder first, second;
  directory.Subscribe("svc", first.Listener());
  directory.Update("svc", List({"a:1", "b:2"}));
  auto subscription = directory.Subscribe("svc", second.Listener());
  EXPECT_FALSE(subscription.first_of_service);
  EXPECT_TRUE(second.WaitForAddresses({"a:1", "b:2"}, kWait));
  EXPECT_EQ(Addresses(directory.Snapshot("svc")), (std::vector<std::string>{"a:1", "b:2"}));
}

TEST(ServiceDirectoryTest, UnchangedListIsNotRedelivered) {
  ServiceDirectory directory;
  ProviderListRecorder recorder;
  directory.Subscribe("svc", recorder.Listener());
  directory.Update("svc", List({"a:1"}));
  directory.Update("svc", List({"a:1"}));
  directory.Update("svc", List({"a:1", "b:2"}));
  // Deliveries are ordered: once the third list is in, a second copy of the first would be too.
  ASSERT_TRUE(recorder.WaitForAddresses({"a:1", "b:2"}, kWait));
  EXPECT_EQ(recorder.calls(), 2u);
}

TEST(ServiceDirectoryTest, EmptyProtectionKeepsTheLastNonEmptyList) {
  ServiceDirectory directory;
  directory.set_empty_protection(true);
  ProviderListRecorder recorder;
  directory.Subscribe("svc", recorder.Listener());
  directory.Update("svc", List({"a:1"}));
  directory.Update("svc", {});
  EXPECT_EQ(Addresses(directory.Snapshot("svc")), std::vector<std::string>{"a:1"});
  directory.Update("svc", List({"b:2"}));  // a real change still goes through
  ASSERT_TRUE(recorder.WaitForAddresses({"b:2"}, kWait));
  EXPECT_EQ(recorder.calls(), 2u);  // a:1, then b:2; never the empty list
}

TEST(ServiceDirectoryTest, WithoutEmptyProtectionAnEmptyListIsApplied) {
  ServiceDirectory directory;
  directory.set_empty_protection(false);
  ProviderListRecorder recorder;
  directory.Subscribe("svc", recorder.Listener());
  directory.Update("svc", List({"a:1"}));
  directory.Update("svc", {});
  EXPECT_TRUE(recorder.WaitForAddresses({}, kWait));
  EXPECT_TRUE(directory.Snapshot("svc").empty());
}

TEST(ServiceDirectoryTest, LastUnsubscribeDropsTheServiceAndLateUpdatesAreIgnored) {
  ServiceDirectory directory;
  ProviderListRecorder recorder;
  const uint64_t a = directory.Subscribe("svc", recorder.Listener()).id;
  const uint64_t b = directory.Subscribe("svc", recorder.Listener()).id;
  directory.Update("svc", List({"a:1"}));
  EXPECT_EQ(directory.Unsubscribe(a), std::nullopt);
  EXPECT_EQ(directory.Unsubscribe(b), std::optional<std::string>("svc"));
  EXPECT_EQ(directory.Unsubscribe(b), std::nullopt);  // unknown id: no-op
  EXPECT_FALSE(directory.HasSubscribers("svc"));
  directory.Update("svc", List({"c:3"}));
  EXPECT_TRUE(directory.Snapshot("svc").empty());
}

TEST(ServiceDirectoryTest, UnsubscribeWaitsForARunningListenerAndStopsLaterCalls) {
  ServiceDirectory directory;
  std::atomic<bool> running{false}, finished{false};
  std::atomic<int> calls{0};
  const uint64_t id = directory
                          .Subscribe("svc",
                                     [&](const std::vector<ProviderInfo>&) {
                                       ++calls;
                                       running = true;
                                       std::this_thread::sleep_for(200ms);
                                       finished = true;
                                     })
                          .id;
  directory.Update("svc", List({"a:1"}));
  for (int i = 0; i < 200 && !running; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(running);
  directory.Unsubscribe(id);
  EXPECT_TRUE(finished);
  directory.Update("svc", List({"b:2"}));
  directory.Stop();  // runs whatever was queued
  EXPECT_EQ(calls, 1);
}

TEST(ServiceDirectoryTest, ListenerMayUnsubscribeItself) {
  ServiceDirectory directory;
  std::atomic<uint64_t> id{0};
  std::atomic<int> calls{0};
  id = directory
           .Subscribe("svc",
                      [&](const std::vector<ProviderInfo>&) {
                        ++calls;
                        directory.Unsubscribe(id);
                      })
           .id;
  directory.Update("svc", List({"a:1"}));
  directory.Update("svc", List({"b:2"}));
  directory.Stop();
  EXPECT_EQ(calls, 1);
}

TEST(ServiceDirectoryTest, ListenerIsNeverCalledConcurrentlyWithItself) {
  ServiceDirectory directory;
  std::atomic<int> inside{0}, overlaps{0}, calls{0};
  directory.Subscribe("svc", [&](const std::vector<ProviderInfo>&) {
    if (++inside > 1) ++overlaps;
    std::this_thread::sleep_for(1ms);
    --inside;
    ++calls;
  });
  std::vector<std::thread> updaters;
  for (int t = 0; t < 4; ++t) {
    updaters.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        directory.Update("svc", List({t % 2 == 0 ? "a:1" : "b:2"}));
      }
    });
  }
  for (auto& updater : updaters) updater.join();
  directory.Stop();
  EXPECT_GT(calls, 0);
  EXPECT_EQ(overlaps, 0);
}

}  // namespace
}  // namespace ferry::registry
