#include "replay_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace ferry::plugins {
namespace {

using namespace std::chrono_literals;
using Outcome = ReplayCache::Outcome;

constexpr int64_t kNow = 1'700'000'000'000;

// Distinct fingerprints that spread over every shard, as MACs do.
uint64_t Fingerprint(uint64_t i) { return (i + 1) * 0x9E3779B97F4A7C15ULL; }

TEST(ReplayCacheTest, ATokenIsFreshOnceAndReplayedAfter) {
  ReplayCache cache(100, 5s);
  EXPECT_EQ(cache.Record(Fingerprint(1), kNow, kNow), Outcome::kFresh);
  EXPECT_EQ(cache.Record(Fingerprint(2), kNow, kNow), Outcome::kFresh);
  EXPECT_EQ(cache.Record(Fingerprint(1), kNow, kNow + 4000), Outcome::kReplayed);
  EXPECT_EQ(cache.Record(Fingerprint(2), kNow, kNow), Outcome::kReplayed);
}

TEST(ReplayCacheTest, WhenFullItRefusesRatherThanForgetsALiveToken) {
  ReplayCache cache(3, 5s);
  int fresh = 0;
  for (uint64_t i = 0; i < 10; ++i) {
    const Outcome outcome = cache.Record(Fingerprint(i), kNow, kNow);
    EXPECT_NE(outcome, Outcome::kReplayed);
    fresh += outcome == Outcome::kFresh ? 1 : 0;
  }
  EXPECT_LE(fresh, 3);
  // Every token it took is still known as seen.
  int replayed = 0;
  for (uint64_t i = 0; i < 10; ++i) {
    replayed += cache.Record(Fingerprint(i), kNow, kNow) == Outcome::kReplayed ? 1 : 0;
  }
  EXPECT_EQ(replayed, fresh);
}

TEST(ReplayCacheTest, RoomComesBackOnceTheTokensHaveExpired) {
  ReplayCache cache(1, 5s);
  EXPECT_EQ(cache.Record(Fingerprint(1), kNow, kNow), Outcome::kFresh);
  EXPECT_EQ(cache.Record(Fingerprint(2), kNow, kNow), Outcome::kFull);
  EXPECT_EQ(cache.Record(Fingerprint(2), kNow + 4000, kNow + 4000), Outcome::kFull);
  // The first token's time is more than the skew behind the clock: a server refuses it as
  // expired now, so the cache need not hold it any more.
  const int64_t later = kNow + 5000 + 1250 + 1;
  EXPECT_EQ(cache.Record(Fingerprint(2), later, later), Outcome::kFresh);
}

TEST(ReplayCacheTest, AClockThatWentBackFarFailsClosed) {
  ReplayCache cache(100, 4s);
  // Of one shard: the same high bits.
  constexpr uint64_t kShard = uint64_t{7} << 32;
  EXPECT_EQ(cache.Record(kShard | 1, kNow, kNow), Outcome::kFresh);
  // A token sixteen generations (of a second) older than one held, in the same slot.
  EXPECT_EQ(cache.Record(kShard | 2, kNow - 16'000, kNow - 16'000), Outcome::kFull);
}

TEST(ReplayCacheTest, ConcurrentRecordsOfOneTokenAcceptItOnce) {
  ReplayCache cache(100000, 5s);
  constexpr int kTokens = 2000;
  std::atomic<int> fresh{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (uint64_t i = 0; i < kTokens; ++i) {
        if (cache.Record(Fingerprint(i), kNow, kNow) == Outcome::kFresh) ++fresh;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(fresh.load(), kTokens);
}

}  // namespace
}  // namespace ferry::plugins
