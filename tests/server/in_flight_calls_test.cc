#include "server/in_flight_calls.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace ferry::server {
namespace {

TEST(InFlightCallsTest, FindsEachCallByItsIdUntilItLeaves) {
  InFlightCalls calls;
  EXPECT_EQ(calls.Find(1), nullptr);
  std::vector<InFlightEntry> entries(1000);
  for (uint64_t i = 0; i < entries.size(); ++i) calls.Insert(&entries[i], i * 7 + 1);
  EXPECT_EQ(calls.size(), entries.size());
  for (uint64_t i = 0; i < entries.size(); ++i) EXPECT_EQ(calls.Find(i * 7 + 1), &entries[i]);
  EXPECT_EQ(calls.Find(2), nullptr);
  for (uint64_t i = 0; i < entries.size(); i += 2) calls.Erase(&entries[i]);
  for (uint64_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(calls.Find(i * 7 + 1), i % 2 == 0 ? nullptr : &entries[i]);
  }
  std::set<InFlightEntry*> visited;
  calls.ForEach([&](InFlightEntry* call) { visited.insert(call); });
  EXPECT_EQ(visited.size(), entries.size() / 2);
  for (uint64_t i = 1; i < entries.size(); i += 2) calls.Erase(&entries[i]);
  EXPECT_TRUE(calls.empty());
}

TEST(InFlightCallsTest, TheLatestOfCallsSharingAnIdIsFoundFirstAcrossGrowth) {
  InFlightCalls calls;
  InFlightEntry first;
  InFlightEntry second;
  calls.Insert(&first, 42);
  calls.Insert(&second, 42);
  std::vector<InFlightEntry> others(100);  // makes the table grow, several times
  for (uint64_t i = 0; i < others.size(); ++i) calls.Insert(&others[i], 1000 + i);
  EXPECT_EQ(calls.Find(42), &second);
  calls.Erase(&second);
  EXPECT_EQ(calls.Find(42), &first);
  calls.Erase(&first);
  EXPECT_EQ(calls.Find(42), nullptr);
}

// Ids a peer picks to share the low bits of a plain table's bucket index still spread: a
// cancel frame for any id walks a short chain, not every call in flight.
TEST(InFlightCallsTest, IdsAimedAtOneBucketSpreadOverAll) {
  InFlightCalls calls;
  std::vector<InFlightEntry> entries(50000);
  for (uint64_t i = 0; i < entries.size(); ++i) calls.Insert(&entries[i], i << 20);
  // Balls into bins: at this load the longest chain is about ln n / ln ln n, near 8.
  EXPECT_LT(calls.LongestChain(), 32u);
  for (uint64_t i = 0; i < entries.size(); ++i) ASSERT_EQ(calls.Find(i << 20), &entries[i]);
}

}  // namespace
}  // namespace ferry::server
