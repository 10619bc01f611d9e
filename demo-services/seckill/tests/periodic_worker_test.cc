// PeriodicWorker: a step that goes through many items sees Stop() and leaves the rest, so that
// stopping a provider waits for one item, not for a whole pass (the reconciler's pass over
// every open activity took longer than a supervisor's patience).

#include "service/periodic_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;

TEST(PeriodicWorkerTest, StopIsSeenByTheRunningStepBetweenItems) {
  constexpr int kItems = 2000;  // 1 ms each: a pass of 2 s
  std::atomic<int> done{0};
  std::atomic<int> passes{0};
  std::promise<void> started;
  PeriodicWorker worker(1h, [&](const std::stop_token& stop) {
    if (passes.fetch_add(1) == 0) started.set_value();
    for (int i = 0; i < kItems && !stop.stop_requested(); ++i) {
      std::this_thread::sleep_for(1ms);
      done.fetch_add(1);
    }
    return false;
  });
  worker.Start();
  started.get_future().wait();
  worker.Stop();
  EXPECT_LT(done.load(), kItems);
  EXPECT_EQ(passes.load(), 1);
}

TEST(PeriodicWorkerTest, AStepWithMoreToDoRunsAgainAtOnceUntilStopped) {
  std::atomic<int> steps{0};
  std::promise<void> three;
  PeriodicWorker worker(1h, [&](const std::stop_token&) {
    if (steps.fetch_add(1) == 2) three.set_value();
    return steps.load() < 3;  // more to do twice; then the interval (an hour) applies
  });
  worker.Start();
  EXPECT_EQ(three.get_future().wait_for(10s), std::future_status::ready);
  worker.Stop();  // wakes the wait of an hour at once
  EXPECT_EQ(steps.load(), 3);
}

}  // namespace
}  // namespace ferry::seckill
