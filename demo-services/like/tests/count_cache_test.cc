// The in-process count cache: bounded staleness (a writer's answer included), a writer's own
// bucket exact, least recently used entries evicted rather than all, misses of a call loaded in
// one batch and a miss being loaded not loaded again.

#include "service/count_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ferry::like {
namespace {

using namespace std::chrono_literals;

ContentCounts Buckets(std::vector<int64_t> buckets) {
  return {.layout = static_cast<uint32_t>(buckets.size()), .buckets = std::move(buckets)};
}

TEST(CountCacheTest, ServesATotalForAtMostMaxAgeThenReloads) {
  auto now = std::chrono::steady_clock::time_point{} + 1h;
  int loads = 0;
  std::vector<int64_t> store = {3, 4};
  CountCache cache(
      1000ms, 16,
      [&](std::span<const int64_t> ids, std::vector<ContentCounts>* out) {
        ++loads;
        out->assign(ids.size(), Buckets(store));
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
  CountCache cache(1000ms, 16, [](std::span<const int64_t> ids, std::vector<ContentCounts>* out) {
    out->assign(ids.size(), Buckets({1, 1, 1}));
    return Status::Ok();
  });
  EXPECT_EQ(cache.UpdateBucket(1, 3, 2, 5), -1);  // nothing cached: the caller loads
  int64_t total = 0;
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(cache.UpdateBucket(1, 3, 2, 5), 7);
  EXPECT_EQ(cache.UpdateBucket(1, 6, 2, 5), -1);  // another layout: a raise, read it again
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(total, 7);
}

// A writer's answer never combines its exact bucket with others older than max_age.
TEST(CountCacheTest, AWritersAnswerNeverUsesBucketsOlderThanMaxAge) {
  auto now = std::chrono::steady_clock::time_point{} + 1h;
  std::vector<int64_t> store = {1, 1, 1};
  CountCache cache(
      1000ms, 16,
      [&](std::span<const int64_t> ids, std::vector<ContentCounts>* out) {
        out->assign(ids.size(), Buckets(store));
        return Status::Ok();
      },
      [&] { return now; });
  int64_t total = 0;
  ASSERT_TRUE(cache.Total(1, &total).ok());
  now += 5s;
  store = {1, 1, 100};
  EXPECT_EQ(cache.UpdateBucket(1, 3, 2, 5), -1);  // too old to answer with: read the total
  store = {1, 1, 5};
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(total, 7);
  EXPECT_EQ(cache.UpdateBucket(1, 3, 0, 4), 10);
}

TEST(CountCacheTest, ZeroMaxAgeAlwaysReads) {
  int loads = 0;
  CountCache cache(0ms, 16, [&](std::span<const int64_t> ids, std::vector<ContentCounts>* out) {
    ++loads;
    out->assign(ids.size(), Buckets({loads}));
    return Status::Ok();
  });
  int64_t total = 0;
  ASSERT_TRUE(cache.Total(1, &total).ok());
  ASSERT_TRUE(cache.Total(1, &total).ok());
  EXPECT_EQ(total, 2);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(CountCacheTest, AFullCacheEvictsTheLeastRecentlyUsedNotEverything) {
  std::vector<int64_t> loaded;
  CountCache cache(60s, 16 * 4, [&](std::span<const int64_t> ids, std::vector<ContentCounts>* out) {
    loaded.insert(loaded.end(), ids.begin(), ids.end());
    out->assign(ids.size(), Buckets({1}));
    return Status::Ok();
  });
  std::vector<int64_t> totals;
  std::vector<int64_t> hot = {7};
  for (int64_t id = 1; id <= 5000; ++id) {
    const int64_t ids[] = {id};
    ASSERT_TRUE(cache.Totals(ids, &totals).ok());
    ASSERT_TRUE(cache.Totals(hot, &totals).ok());  // used all along
  }
  EXPECT_LE(cache.size(), 64u);
  EXPECT_GT(cache.size(), 32u);  // full, not emptied
  EXPECT_EQ(std::count(loaded.begin(), loaded.end(), 7), 1) << "the hot entry stayed";
}

TEST(CountCacheTest, AManyIdsCallLoadsItsMissesInOneBatch) {
  std::vector<size_t> batches;
  CountCache cache(60s, 1000, [&](std::span<const int64_t> ids, std::vector<ContentCounts>* out) {
    batches.push_back(ids.size());
    out->clear();
    for (int64_t id : ids) out->push_back(Buckets({id, 1}));
    return Status::Ok();
  });
  std::vector<int64_t> ids;
  for (int64_t i = 1; i <= 100; ++i) ids.push_back(i);
  std::vector<int64_t> totals;
  ASSERT_TRUE(cache.Totals(ids, &totals).ok());
  ASSERT_EQ(batches, (std::vector<size_t>{100}));
  EXPECT_EQ(totals[41], 43);
  ids.push_back(500);
  ASSERT_TRUE(cache.Totals(ids, &totals).ok());
  EXPECT_EQ(batches, (std::vector<size_t>{100, 1}));  // only the miss
}

// Callers missing the same content while it loads wait for that one load.
TEST(CountCacheTest, MissesOfAContentBeingLoadedWaitForThatLoad) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> loads{0};
  CountCache cache(60s, 1000, [&](std::span<const int64_t> ids, std::vector<ContentCounts>* out) {
    ++loads;
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return release; });
    out->assign(ids.size(), Buckets({9}));
    return Status::Ok();
  });
  std::vector<std::thread> readers;
  std::atomic<int> nines{0};
  for (int i = 0; i < 8; ++i) {
    readers.emplace_back([&] {
      int64_t total = 0;
      if (cache.Total(42, &total).ok() && total == 9) ++nines;
    });
  }
  while (loads.load() == 0) std::this_thread::yield();
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  for (auto& t : readers) t.join();
  EXPECT_EQ(nines.load(), 8);
  EXPECT_EQ(loads.load(), 1);
}

}  // namespace
}  // namespace ferry::like
