#include "ferry/storage/sharded_lru.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace ferry::storage {
namespace {

TEST(ShardedLruTest, AFullCacheDropsItsLeastRecentlyUsedEntriesNotAll) {
  ShardedLru<int, std::string> lru(16 * 100);  // 100 per shard
  for (int k = 0; k < 5000; ++k) lru.Put(k, std::to_string(k));
  // Bounded: no shard holds more than its share, and no shard was emptied when it filled.
  EXPECT_LE(lru.size(), 1600u);
  EXPECT_GE(lru.size(), 1500u);  // 5000 keys spread over 16 shards fill each of them
  // The newest keys are all there; the oldest are gone.
  for (int k = 4950; k < 5000; ++k) {
    ASSERT_EQ(lru.Get(k), std::to_string(k)) << k;
  }
  EXPECT_FALSE(lru.Get(0).has_value());
}

TEST(ShardedLruTest, ReadingAnEntryKeepsItWhileNewerOnesComeAndGo) {
  ShardedLru<int, int> lru(16 * 4);  // 4 per shard
  lru.Put(7, 70);
  for (int k = 1000; k < 1000 + 16 * 40; ++k) {
    lru.Put(k, k);
    ASSERT_EQ(lru.Get(7), 70) << "evicted after key " << k;  // used, so never the oldest
  }
}

TEST(ShardedLruTest, UpdateSeesTheEntryAndItsResultIsKeptOrErased) {
  ShardedLru<std::string, int> lru(64);
  lru.Update("a", [](std::optional<int>& slot) {
    EXPECT_FALSE(slot.has_value());
    slot = 1;
  });
  lru.Update("a", [](std::optional<int>& slot) {
    ASSERT_EQ(slot, 1);
    *slot += 1;
  });
  EXPECT_EQ(lru.Get("a"), 2);
  lru.Update("a", [](std::optional<int>& slot) { slot.reset(); });
  EXPECT_FALSE(lru.Get("a").has_value());
  EXPECT_EQ(lru.size(), 0u);
  // An update that leaves nothing where there was nothing stores nothing.
  lru.Update("b", [](std::optional<int>&) {});
  EXPECT_EQ(lru.size(), 0u);
}

TEST(ShardedLruTest, ConcurrentWritersAndReadersStayWithinTheBound) {
  ShardedLru<int, int> lru(16 * 50);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&lru, t] {
      for (int i = 0; i < 20000; ++i) {
        const int key = t * 100000 + i;
        lru.Put(key, i);
        const std::optional<int> got = lru.Get(key - 10);
        if (got) {
          EXPECT_EQ(*got, i - 10);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_LE(lru.size(), 16u * 50u);
}

}  // namespace
}  // namespace ferry::storage
