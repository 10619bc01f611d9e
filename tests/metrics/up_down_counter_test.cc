#include "ferry/framework/metrics/up_down_counter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "metrics_test_util.h"

namespace ferry::metrics {
namespace {

TEST(UpDownCounterTest, AddsBothWays) {
  UpDownCounter counter;
  counter.Increment();
  counter.Add(5);
  counter.Add(-3);
  counter.Decrement();
  EXPECT_EQ(counter.Value(), 2);
  counter.Add(-4);
  EXPECT_EQ(counter.Value(), -2);
}

// Calls in flight: every thread enters and leaves, a reader reads throughout. The reader must
// never see a leave without its enter, and the end is exactly zero.
TEST(UpDownCounterTest, MatchedPairsNeverReadNegativeWhileUpdated) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 100'000;
  UpDownCounter in_flight;
  std::atomic<bool> done{false};
  int64_t negative_reads = 0;
  int64_t reads = 0;
  std::jthread reader([&] {
    while (!done.load()) {
      if (in_flight.Value() < 0) ++negative_reads;
      ++reads;
    }
  });
  RunConcurrently(kThreads, [&] {
    for (int i = 0; i < kPerThread; ++i) {
      in_flight.Increment();
      in_flight.Decrement();
    }
  });
  done.store(true);
  reader.join();
  EXPECT_EQ(negative_reads, 0) << "of " << reads << " reads";
  EXPECT_EQ(in_flight.Value(), 0);
}

// An enter on one thread and its leave on another, handed over as calls are.
TEST(UpDownCounterTest, LeaveOnAnotherThreadKeepsTheBalance) {
  constexpr int kCalls = 100'000;
  UpDownCounter in_flight;
  std::atomic<int> entered{0};
  std::jthread leaver([&] {
    for (int left = 0; left < kCalls;) {
      if (entered.load(std::memory_order_acquire) > left) {
        EXPECT_GE(in_flight.Value(), 0);
        in_flight.Decrement();
        ++left;
      }
    }
  });
  for (int i = 0; i < kCalls; ++i) {
    in_flight.Increment();
    entered.store(i + 1, std::memory_order_release);
  }
  leaver.join();
  EXPECT_EQ(in_flight.Value(), 0);
}

}  // namespace
}  // namespace ferry::metrics
