#include "method_buckets.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace ferry::plugins {
namespace {

using namespace std::chrono_literals;

const RateLimit kBurstTwo{.rate = 10, .burst = 2, .description = "10/s, burst 2"};
const RateLimit kBurstOne{.rate = 10, .burst = 1, .description = "10/s, burst 1"};
const RateClock::time_point kStart{};
// What a context the server did not fill says: the memo goes by the name's address.
constexpr uint64_t kNoId = 0;

// Limits Echo to a burst of two and leaves every other method unlimited; counts the questions.
struct EchoOnly {
  std::vector<std::string> asked;
  MethodBuckets::LimitOf Fn() {
    return [this](std::string_view key) -> const RateLimit* {
      asked.emplace_back(key);
      return key == "svc.Echo/Echo" ? &kBurstTwo : nullptr;
    };
  }
};

TEST(MethodBucketsTest, EachMethodHasOneBucketAskedForOnce) {
  EchoOnly limits;
  MethodBuckets buckets(limits.Fn());
  const std::string service = "svc.Echo";
  const std::string method = "Echo";
  EXPECT_TRUE(buckets.TryTake(service, method, kNoId, kStart).ok);
  const MethodBuckets::Taken second = buckets.TryTake(service, method, kNoId, kStart);
  EXPECT_TRUE(second.ok);
  EXPECT_EQ(second.limit, &kBurstTwo);
  EXPECT_EQ(second.method_key, "svc.Echo/Echo");
  const MethodBuckets::Taken third = buckets.TryTake(service, method, kNoId, kStart);
  EXPECT_FALSE(third.ok);
  EXPECT_EQ(third.method_key, "svc.Echo/Echo");
  EXPECT_TRUE(buckets.TryTake(service, method, kNoId, kStart + 100ms).ok);
  EXPECT_EQ(limits.asked, std::vector<std::string>{"svc.Echo/Echo"});
}

TEST(MethodBucketsTest, UnlimitedMethodAlwaysPasses) {
  EchoOnly limits;
  MethodBuckets buckets(limits.Fn());
  for (int i = 0; i < 100; ++i) {
    const MethodBuckets::Taken taken = buckets.TryTake("svc.Echo", "Delay", kNoId, kStart);
    ASSERT_TRUE(taken.ok);
    EXPECT_EQ(taken.limit, nullptr);
  }
}

// The per-thread memo is keyed by the name's address; a different name at the same address
// must still reach its own bucket.
TEST(MethodBucketsTest, NameAtAReusedAddressFindsItsOwnBucket) {
  EchoOnly limits;
  MethodBuckets buckets(limits.Fn());
  std::string method = "Echo";
  EXPECT_TRUE(buckets.TryTake("svc.Echo", method, kNoId, kStart).ok);
  EXPECT_TRUE(buckets.TryTake("svc.Echo", method, kNoId, kStart).ok);
  method.assign("Ping");  // same buffer, another method: unlimited
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(buckets.TryTake("svc.Echo", method, kNoId, kStart).ok);
  method.assign("Echo");
  EXPECT_FALSE(buckets.TryTake("svc.Echo", method, kNoId, kStart).ok);  // Echo's bucket is spent
}

// Two filters (two instances) never share buckets, even for the same name at the same address.
TEST(MethodBucketsTest, InstancesKeepTheirOwnBuckets) {
  const std::string service = "svc.Echo";
  const std::string method = "Echo";
  MethodBuckets first([](std::string_view) { return &kBurstOne; });
  EXPECT_TRUE(first.TryTake(service, method, kNoId, kStart).ok);
  EXPECT_FALSE(first.TryTake(service, method, kNoId, kStart).ok);
  MethodBuckets second([](std::string_view) { return &kBurstOne; });
  EXPECT_TRUE(second.TryTake(service, method, kNoId, kStart).ok);
  EXPECT_FALSE(first.TryTake(service, method, kNoId, kStart).ok);
}

// A server's calls carry their method's id; calls of the same method by id and by name, or
// under another id (a second server of the same service), all take from its one bucket.
TEST(MethodBucketsTest, MethodIdsReachTheBucketOfTheirName) {
  EchoOnly limits;
  MethodBuckets buckets(limits.Fn());
  EXPECT_TRUE(buckets.TryTake("svc.Echo", "Echo", 7, kStart).ok);
  EXPECT_TRUE(buckets.TryTake("svc.Echo", "Echo", 7, kStart).ok);
  EXPECT_FALSE(buckets.TryTake("svc.Echo", "Echo", 7, kStart).ok);
  EXPECT_FALSE(buckets.TryTake("svc.Echo", "Echo", kNoId, kStart).ok);
  EXPECT_FALSE(buckets.TryTake("svc.Echo", "Echo", 8, kStart).ok);
  EXPECT_TRUE(buckets.TryTake("svc.Echo", "Delay", 9, kStart).ok);
  // Ids too large to index directly reach the same buckets through the per-thread memo.
  EXPECT_FALSE(buckets.TryTake("svc.Echo", "Echo", 1'000'000, kStart).ok);
  EXPECT_FALSE(buckets.TryTake("svc.Echo", "Echo", 1'000'000, kStart).ok);
  EXPECT_TRUE(buckets.TryTake("svc.Echo", "Delay", 1'000'001, kStart).ok);
  EXPECT_EQ(limits.asked, (std::vector<std::string>{"svc.Echo/Echo", "svc.Echo/Delay"}));
}

}  // namespace
}  // namespace ferry::plugins
