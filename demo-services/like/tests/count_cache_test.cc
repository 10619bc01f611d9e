// The in-process count cache: bounded staleness, and a writer's own bucket always exact.

#include "service/count_cache.h"

#include <gtest/gtest.h>

namespace ferry::like {
namespace {

using namespace std::chrono_literals;

TEST(CountCacheTest, ServesATotalForAtMostMaxAgeThenReloads) {
  auto now = std::chrono::steady_clock::time_point{} + 1h;
  int loads = 0;
  std::vector<int64_t> store = {3, 4};
  CountCache cache(
      1000ms, 16,
      [&](int64_t, std::vector<int64_t>* buckets) {
        ++loads;
        *buckets = store;
        return Status::Ok();
      },
      [&] { return now; });
  int64_t total = 0;
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(total, 7);
  store = {10, 10};
  now += 999ms;
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(total, 7);  // within max_age: the cached total
  EXPECT_EQ(loads, 1);
  now += 1ms;
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(total, 20);
  EXPECT_EQ(loads, 2);
}

TEST(CountCacheTest, AWritersBucketReplacesItsCachedCount) {
  CountCache cache(1000ms, 16, [](int64_t, std::vector<int64_t>* buckets) {
    *buckets = {1, 1, 1};
    return Status::Ok();
  });
  EXPECT_EQ(cache.UpdateBucket(1, 2, 5), -1);  // nothing cached: the caller loads
  int64_t total = 0;
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(cache.UpdateBucket(1, 2, 5), 7);
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(total, 7);
}

TEST(CountCacheTest, ZeroMaxAgeAlwaysReads) {
  int loads = 0;
  CountCache cache(0ms, 16, [&](int64_t, std::vector<int64_t>* buckets) {
    *buckets = {++loads};
    return Status::Ok();
  });
  int64_t total = 0;
  ASSERT_TRUE(cache.Total(1, &total).ok());
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(total, 2);
}

}  // namespace
}  // namespace ferry::like
