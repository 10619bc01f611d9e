#include "ferry/bench/load_driver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

namespace ferry::bench {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

LoadOptions ShortRun(uint32_t conns, uint32_t depth) {
  LoadOptions options;
  options.target = "127.0.0.1:1";
  options.conns = conns;
  options.depth = depth;
  options.duration_seconds = 0.2;
  return options;
}

// Checks the driver's promise that a slot never has two calls in flight.
class SlotGuard {
 public:
  explicit SlotGuard(size_t slots) : in_flight_(slots) {}
  void Start(uint32_t slot) {
    if (in_flight_[slot].exchange(true)) doubled_ = true;
  }
  void Finish(uint32_t slot) { in_flight_[slot] = false; }
  bool doubled() const { return doubled_; }

 private:
  std::vector<std::atomic<bool>> in_flight_;
  std::atomic<bool> doubled_{false};
};

// Completes every call inside Issue, the way a channel reports a call that fails before sending.
class InlineTransport : public LoadDriver::Transport {
 public:
  InlineTransport(LoadDriver& driver, size_t slots) : driver_(driver), guard_(slots) {}
  void Issue(const LoadDriver::Call& call) override {
    guard_.Start(call.slot);
    guard_.Finish(call.slot);
    driver_.Complete(call, {}, microseconds(10));
  }
  const SlotGuard& guard() const { return guard_; }

 private:
  LoadDriver& driver_;
  SlotGuard guard_;
};

TEST(LoadDriverTest, SynchronousCompletionsLoopInsteadOfRecursing) {
  const LoadOptions options = ShortRun(2, 3);
  LoadDriver driver(options);
  InlineTransport transport(driver, 6);
  std::ostringstream out;
  const LoadSummary summary = driver.Run(transport, LoadReport("test", options, out));
  EXPECT_GT(summary.ok_calls, 1000u);
  EXPECT_EQ(summary.errors, 0u);
  EXPECT_EQ(summary.unfinished_calls, 0u);
  EXPECT_GE(summary.measured_seconds, 0.2);
  EXPECT_EQ(summary.latency.ValueAtPercentile(99), microseconds(10));
  EXPECT_FALSE(transport.guard().doubled());
}

// Completes calls on a thread of its own: every 10th fails, slow calls take 5 ms, others 20 us.
class WorkerTransport : public LoadDriver::Transport {
 public:
  WorkerTransport(LoadDriver& driver, size_t slots)
      : driver_(driver), guard_(slots), worker_([this] { Serve(); }) {}
  ~WorkerTransport() override { Stop(); }

  void Issue(const LoadDriver::Call& call) override {
    guard_.Start(call.slot);
    std::lock_guard lock(mu_);
    queue_.push_back(call);
    ready_.notify_one();
  }

  void Stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      ready_.notify_one();
    }
    if (worker_.joinable()) worker_.join();
  }

  const SlotGuard& guard() const { return guard_; }

 private:
  void Serve() {
    uint64_t n = 0;
    std::unique_lock lock(mu_);
    while (true) {
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      const LoadDriver::Call call = queue_.front();
      queue_.pop_front();
      lock.unlock();
      guard_.Finish(call.slot);
      if (++n % 10 == 0) {
        driver_.Complete(call, "UNAVAILABLE", microseconds(1));
      } else {
        driver_.Complete(call, {}, call.slow ? milliseconds(5) : microseconds(20));
      }
      lock.lock();
    }
  }

  LoadDriver& driver_;
  SlotGuard guard_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<LoadDriver::Call> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

TEST(LoadDriverTest, CountsErrorsByStatusAndKeepsSlowCallsOutOfTheFastTail) {
  LoadOptions options = ShortRun(3, 4);
  options.slow_ratio = 0.5;
  LoadDriver driver(options);
  WorkerTransport transport(driver, 12);
  std::ostringstream out;
  const LoadSummary summary = driver.Run(transport, LoadReport("test", options, out));
  transport.Stop();

  ASSERT_GT(summary.ok_calls, 500u);
  EXPECT_EQ(summary.unfinished_calls, 0u);
  ASSERT_EQ(summary.errors_by_status.size(), 1u);
  EXPECT_EQ(summary.errors_by_status[0].first, "UNAVAILABLE");
  EXPECT_EQ(summary.errors_by_status[0].second, summary.errors);
  EXPECT_GT(summary.errors, summary.ok_calls / 20);

  const uint64_t fast = summary.fast_latency.count();
  EXPECT_GT(fast, summary.ok_calls * 3 / 10);
  EXPECT_LT(fast, summary.ok_calls * 7 / 10);
  EXPECT_EQ(summary.fast_latency.max(), microseconds(20));
  EXPECT_EQ(summary.latency.max(), milliseconds(5));
  EXPECT_FALSE(transport.guard().doubled());
}

// Never completes anything: the run must still end, after the drain timeout.
class SilentTransport : public LoadDriver::Transport {
 public:
  void Issue(const LoadDriver::Call&) override { ++issued; }
  std::atomic<uint32_t> issued{0};
};

TEST(LoadDriverTest, GivesUpOnCallsThatNeverComplete) {
  const LoadOptions options = ShortRun(2, 5);
  LoadDriver driver(options);
  SilentTransport transport;
  std::ostringstream out;
  const LoadSummary summary =
      driver.Run(transport, LoadReport("test", options, out), milliseconds(50));
  EXPECT_EQ(transport.issued, 10u);
  EXPECT_EQ(summary.unfinished_calls, 10u);
  EXPECT_EQ(summary.ok_calls, 0u);
}

TEST(LoadDriverTest, WarmupCallsAreNotMeasured) {
  LoadOptions options = ShortRun(1, 1);
  options.warmup_seconds = 0.2;
  options.duration_seconds = 1.1;
  LoadDriver driver(options);
  InlineTransport transport(driver, 1);
  std::ostringstream out;
  const LoadSummary summary = driver.Run(transport, LoadReport("test", options, out));
  EXPECT_GE(summary.measured_seconds, 1.1);
  EXPECT_LT(summary.measured_seconds, 1.3);
  // One progress line arrives during the measured second.
  EXPECT_NE(out.str().find("] qps="), std::string::npos) << out.str();
}

}  // namespace
}  // namespace ferry::bench
