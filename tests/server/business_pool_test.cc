#include "server/business_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "test_service.h"

namespace ferry::server {
namespace {

using test::Counter;
using test::Gate;

// Counts runs and destructions, so that a test can tell run tasks from dropped ones.
class CountingTask : public BusinessPool::Task {
 public:
  CountingTask(Counter* runs, std::atomic<int>* destroyed, Gate* gate = nullptr)
      : runs_(runs), destroyed_(destroyed), gate_(gate) {}
  ~CountingTask() override { destroyed_->fetch_add(1); }
  // Owns itself once run, as a server call does.
  void Run() override {
    runs_->Increment();
    if (gate_ != nullptr) gate_->WaitOpen();
    delete this;
  }

 private:
  Counter* runs_;
  std::atomic<int>* destroyed_;
  Gate* gate_;
};

TEST(BusinessPoolTest, RunsEverySubmittedTask) {
  Counter runs;
  std::atomic<int> destroyed{0};
  BusinessPool pool(2, 64, "test-worker");
  int submitted = 0;
  for (int i = 0; i < 200; ++i) {
    std::unique_ptr<BusinessPool::Task> task = std::make_unique<CountingTask>(&runs, &destroyed);
    // The queue may be momentarily full; this test is about running, so wait for room.
    for (int attempt = 0; attempt < 10000 && !pool.TrySubmit(&task); ++attempt) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    ASSERT_EQ(task, nullptr) << "task " << i << " never admitted";
    ++submitted;
  }
  ASSERT_TRUE(runs.WaitFor(submitted));
  pool.Stop();
  pool.Join();
  EXPECT_EQ(runs.value(), submitted);
  EXPECT_EQ(destroyed.load(), submitted);
}

TEST(BusinessPoolTest, RefusesAtOnceBeyondThreadsPlusQueue) {
  Counter runs;
  std::atomic<int> destroyed{0};
  Gate gate;
  BusinessPool pool(1, 2, "test-worker");
  auto submit = [&] {
    std::unique_ptr<BusinessPool::Task> task =
        std::make_unique<CountingTask>(&runs, &destroyed, &gate);
    return pool.TrySubmit(&task);
  };
  ASSERT_TRUE(submit());  // runs, blocked on the gate
  ASSERT_TRUE(runs.WaitFor(1));
  EXPECT_TRUE(submit());  // queued
  EXPECT_TRUE(submit());  // queued
  EXPECT_FALSE(submit());
  EXPECT_FALSE(submit());
  // The refused tasks stayed with the caller, which destroyed them.
  EXPECT_EQ(destroyed.load(), 2);
  gate.Open();
  ASSERT_TRUE(runs.WaitFor(3));
}

TEST(BusinessPoolTest, StopDropsQueuedTasksUnrun) {
  Counter runs;
  std::atomic<int> destroyed{0};
  Gate gate;
  BusinessPool pool(1, 4, "test-worker");
  for (int i = 0; i < 3; ++i) {
    std::unique_ptr<BusinessPool::Task> task =
        std::make_unique<CountingTask>(&runs, &destroyed, &gate);
    ASSERT_TRUE(pool.TrySubmit(&task));
  }
  ASSERT_TRUE(runs.WaitFor(1));
  pool.Stop();
  std::unique_ptr<BusinessPool::Task> late = std::make_unique<CountingTask>(&runs, &destroyed);
  EXPECT_FALSE(pool.TrySubmit(&late));
  gate.Open();
  pool.Join();
  EXPECT_EQ(runs.value(), 1);
  EXPECT_EQ(destroyed.load(), 3);  // the one that ran and the two still queued
}

}  // namespace
}  // namespace ferry::server
