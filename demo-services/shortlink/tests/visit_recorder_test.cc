#include "service/visit_recorder.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ferry::shortlink {
namespace {

// A log in memory that refuses its first `refusals` appends, as Redis away would.
class MemoryLog final : public VisitLog {
 public:
  explicit MemoryLog(int refusals = 0) : refusals_(refusals) {}
  Status Append(const std::vector<VisitEvent>& events) override {
    std::lock_guard lock(mu_);
    if (refusals_ > 0) {
      --refusals_;
      return Status(StatusCode::UNAVAILABLE, "log away");
    }
    events_.insert(events_.end(), events.begin(), events.end());
    appended_.notify_all();
    return Status::Ok();
  }
  // Waits (bounded) until `n` events arrived; the events.
  std::vector<VisitEvent> WaitFor(size_t n) {
    std::unique_lock lock(mu_);
    appended_.wait_for(lock, std::chrono::seconds(30), [&] { return events_.size() >= n; });
    return events_;
  }

 private:
  std::mutex mu_;
  std::condition_variable appended_;
  int refusals_;
  std::vector<VisitEvent> events_;
};

Visit VisitOf(const std::string& code, int64_t at_ms) {
  return Visit{.code = code, .at_ms = at_ms, .client_address = "192.0.2.1", .user_agent = "ua"};
}

TEST(VisitRecorderTest, EveryVisitOfManyThreadsIsAppendedOnce) {
  MemoryLog log;
  VisitRecorder recorder(&log, RecorderOptions{.secret = "s", .max_queued = 1'000'000});
  constexpr int kThreads = 4, kEach = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&recorder, t] {
      for (int i = 0; i < kEach; ++i) recorder.Record(VisitOf("c" + std::to_string(t), i));
    });
  }
  for (std::thread& t : threads) t.join();
  const std::vector<VisitEvent> events = log.WaitFor(kThreads * kEach);
  ASSERT_EQ(events.size(), static_cast<size_t>(kThreads * kEach));
  std::set<std::string> ids;
  std::map<std::string, std::set<int64_t>> times;
  for (const VisitEvent& e : events) {
    ids.insert(e.event_id);
    times[e.code].insert(e.at_ms);
  }
  EXPECT_EQ(ids.size(), events.size());  // no event id twice
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(times["c" + std::to_string(t)].size(), kEach + 0u);
  EXPECT_EQ(recorder.appended(), static_cast<uint64_t>(kThreads * kEach));
  EXPECT_EQ(recorder.dropped(), 0u);
}

TEST(VisitRecorderTest, AVisitAfterAnIdleSpellIsWrittenWithoutAnotherOne) {
  MemoryLog log;
  VisitRecorder recorder(&log, RecorderOptions{.secret = "s"});
  for (int round = 1; round <= 5; ++round) {
    recorder.Record(VisitOf("idle", round));
    // Each visit alone reaches the log: the writer, asleep, is woken (or looks by itself).
    ASSERT_EQ(log.WaitFor(round).size(), static_cast<size_t>(round));
  }
}

TEST(VisitRecorderTest, ABatchTheLogRefusedIsRetriedUntilItIsTaken) {
  MemoryLog log(/*refusals=*/3);
  VisitRecorder recorder(&log, RecorderOptions{.secret = "s"});
  for (int i = 0; i < 10; ++i) recorder.Record(VisitOf("r", i));
  EXPECT_EQ(log.WaitFor(10).size(), 10u);
  EXPECT_EQ(recorder.dropped(), 0u);
}

TEST(VisitRecorderTest, VisitsBeyondTheQueueBoundAreDroppedAndCounted) {
  MemoryLog log(/*refusals=*/1'000'000);  // the log never takes anything
  VisitRecorder recorder(&log, RecorderOptions{.secret = "s", .max_queued = 100});
  for (int i = 0; i < 1000; ++i) recorder.Record(VisitOf("q", i));
  EXPECT_EQ(recorder.recorded(), 1000u);
  EXPECT_GE(recorder.dropped(), 900u);  // at most max_queued wait, taken or not
}

}  // namespace
}  // namespace ferry::shortlink
