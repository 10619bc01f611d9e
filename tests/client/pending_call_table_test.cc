#include "client/pending_call_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace ferry::client {
namespace {

using std::chrono::milliseconds;

PendingCall CallCounting(std::atomic<int>* completions, Clock::time_point deadline) {
  PendingCall call;
  call.done = [completions](const Status&) { completions->fetch_add(1); };
  call.deadline = deadline;
  return call;
}

TEST(PendingCallTableTest, TakeReturnsAnEntryExactlyOnce) {
  PendingCallTable table;
  std::atomic<int> completions{0};
  table.Insert(7, CallCounting(&completions, Clock::time_point::max()));
  EXPECT_EQ(table.size(), 1u);

  auto taken = table.Take(7);
  ASSERT_TRUE(taken.has_value());
  taken->done(Status::Ok());
  EXPECT_FALSE(table.Take(7).has_value());
  EXPECT_EQ(completions.load(), 1);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.inserted(), 1u);
}

TEST(PendingCallTableTest, TakeOfUnknownIdFindsNothing) {
  PendingCallTable table;
  EXPECT_FALSE(table.Take(42).has_value());
}

TEST(PendingCallTableTest, TakeAllEmptiesEveryShard) {
  PendingCallTable table;
  std::atomic<int> completions{0};
  for (uint64_t id = 1; id <= 100; ++id) {
    table.Insert(id, CallCounting(&completions, Clock::time_point::max()));
  }
  std::vector<PendingCallTable::Entry> all;
  table.TakeAll(&all);
  ASSERT_EQ(all.size(), 100u);
  EXPECT_EQ(table.size(), 0u);
  for (uint64_t id = 1; id <= 100; ++id) EXPECT_FALSE(table.Take(id).has_value());
}

// What a link that ended fails: its calls and any of earlier links, not those of the next one.
TEST(PendingCallTableTest, TakeAdmittedByLeavesTheCallsOfLaterLinks) {
  PendingCallTable table;
  std::atomic<int> completions{0};
  for (uint64_t id = 1; id <= 100; ++id) {
    PendingCall call = CallCounting(&completions, Clock::time_point::max());
    call.link = id % 3;  // links 0, 1 and 2
    table.Insert(id, std::move(call));
  }
  std::vector<PendingCallTable::Entry> ended;
  table.TakeAdmittedBy(1, &ended);
  for (const auto& [id, call] : ended) EXPECT_LE(call.link, 1u) << id;
  EXPECT_EQ(ended.size(), 67u);
  EXPECT_EQ(table.size(), 33u);
  for (uint64_t id = 1; id <= 100; ++id) EXPECT_EQ(table.Take(id).has_value(), id % 3 == 2) << id;
}

TEST(PendingCallTableTest, TakeExpiredTakesOnlyDueCallsAndReportsTheNextDeadline) {
  PendingCallTable table;
  std::atomic<int> completions{0};
  const Clock::time_point now = Clock::now();
  table.Insert(1, CallCounting(&completions, now - milliseconds(5)));
  table.Insert(2, CallCounting(&completions, now));
  table.Insert(3, CallCounting(&completions, now + milliseconds(50)));
  table.Insert(4, CallCounting(&completions, now + milliseconds(20)));

  std::vector<PendingCallTable::Entry> expired;
  EXPECT_EQ(table.TakeExpired(now, &expired), now + milliseconds(20));
  ASSERT_EQ(expired.size(), 2u);
  EXPECT_EQ(expired[0].first + expired[1].first, 3u);  // ids 1 and 2, in either order
  EXPECT_EQ(table.size(), 2u);

  expired.clear();
  EXPECT_EQ(table.TakeExpired(now + milliseconds(20), &expired), now + milliseconds(50));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].first, 4u);

  ASSERT_TRUE(table.Take(3).has_value());
  expired.clear();
  EXPECT_EQ(table.TakeExpired(now + milliseconds(100), &expired), Clock::time_point::max());
  EXPECT_TRUE(expired.empty());
}

TEST(PendingCallTableTest, ARecycledEntryDoesNotKeepTheCallbackAlive) {
  PendingCallTable table;
  auto owned = std::make_shared<int>(1);
  PendingCall call;
  call.done = [owned](const Status&) {};
  table.Insert(1, std::move(call));
  EXPECT_EQ(owned.use_count(), 2);
  EXPECT_TRUE(table.Take(1).has_value());
  EXPECT_EQ(owned.use_count(), 1);
}

// Responders, a timeout sweeper and a final connection-drop race for the same entries, as the
// IO thread, the sweep and a closing link do; every call must complete exactly once.
TEST(PendingCallTableTest, ConcurrentTakersCompleteEveryCallExactlyOnce) {
  constexpr int kInserters = 4;
  constexpr int kCallsPerInserter = 5000;
  constexpr int kCalls = kInserters * kCallsPerInserter;
  PendingCallTable table;
  std::vector<std::atomic<int>> completions(kCalls);
  std::atomic<bool> inserting{true};

  auto complete = [&](PendingCallTable::Entry& entry) { entry.second.done(Status::Ok()); };
  std::vector<std::thread> threads;
  for (int t = 0; t < kInserters; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsPerInserter; ++i) {
        const uint64_t id = static_cast<uint64_t>(t * kCallsPerInserter + i);
        PendingCall call;
        call.done = [&completions, id](const Status&) { completions[id].fetch_add(1); };
        // Every third call is already past its deadline, so the sweeper finds work too.
        call.deadline = id % 3 == 0 ? Clock::now() : Clock::now() + std::chrono::hours(1);
        table.Insert(id, std::move(call));
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      // Each responder walks every id in its own order, several rounds, while inserts go on.
      for (int round = 0; round < 3 && inserting.load(); ++round) {
        for (int i = 0; i < kCalls; ++i) {
          const uint64_t id = static_cast<uint64_t>(t == 0 ? i : kCalls - 1 - i);
          if (auto call = table.Take(id)) call->done(Status::Ok());
        }
      }
    });
  }
  threads.emplace_back([&] {
    std::vector<PendingCallTable::Entry> expired;
    for (int sweep = 0; sweep < 1000 && inserting.load(); ++sweep) {
      table.TakeExpired(Clock::now(), &expired);
      for (auto& entry : expired) complete(entry);
      expired.clear();
    }
  });
  for (int t = 0; t < kInserters; ++t) threads[t].join();
  inserting = false;
  for (size_t t = kInserters; t < threads.size(); ++t) threads[t].join();

  std::vector<PendingCallTable::Entry> rest;
  table.TakeAll(&rest);
  for (auto& entry : rest) complete(entry);
  for (int id = 0; id < kCalls; ++id) ASSERT_EQ(completions[id].load(), 1) << "call " << id;
  EXPECT_EQ(table.inserted(), static_cast<uint64_t>(kCalls));
}

}  // namespace
}  // namespace ferry::client
