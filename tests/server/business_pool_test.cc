#include "server/business_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "test_service.h"

namespace ferry::server {

// Plays the pool's one worker step by step: the pool has no threads of its own, so the test
// decides exactly when a task leaves the queue and when its cell is given back.
class BusinessPoolPeer {
 public:
  explicit BusinessPoolPeer(BusinessPool& pool) : pool_(pool) {}
  // Takes the oldest task's cell and keeps it, as a worker that lost its core right after.
  bool Claim(size_t* pos) { return pool_.Claim(pos); }
  // Gives the cell back and runs its task.
  void ReleaseAndRun(size_t pos) { pool_.RunAndRetire(pool_.Release(pos)); }
  // What a worker does with the oldest queued task.
  bool RunNext() {
    BusinessPool::Task* task = pool_.TryPop();
    if (task == nullptr) return false;
    pool_.RunAndRetire(task);
    return true;
  }

 private:
  BusinessPool& pool_;
};

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

// The tasks waiting hold at most max_queued_bytes of requests together, whatever the count
// allows; one alone is queued whatever its size, and bytes leave the count as their task leaves
// the queue.
TEST(BusinessPoolTest, TheTasksWaitingAreBoundedByTheirBytes) {
  Counter runs;
  std::atomic<int> destroyed{0};
  BusinessPool pool(/*threads=*/0, /*queue_capacity=*/8, "test-worker", /*max_queued_bytes=*/1000);
  BusinessPoolPeer worker(pool);
  auto submit = [&](size_t bytes, BusinessPool::Refusal* refusal = nullptr) {
    std::unique_ptr<BusinessPool::Task> task = std::make_unique<CountingTask>(&runs, &destroyed);
    return pool.TrySubmit(&task, bytes, refusal);
  };
  EXPECT_TRUE(submit(600));
  BusinessPool::Refusal refusal = BusinessPool::Refusal::kFull;
  EXPECT_FALSE(submit(600, &refusal));
  EXPECT_EQ(refusal, BusinessPool::Refusal::kBytes);
  EXPECT_EQ(pool.RefusalMessage(refusal),
            "server overloaded: business queue full (600 bytes of requests waiting; "
            "server.limits.max_queued_bytes: 1000)");
  EXPECT_TRUE(submit(400));
  EXPECT_TRUE(submit(0)) << "a task without a body is bounded by the count alone";
  EXPECT_EQ(pool.queued_bytes(), 1000u);
  ASSERT_TRUE(worker.RunNext());  // the 600 leave with their task
  EXPECT_EQ(pool.queued_bytes(), 400u);
  EXPECT_TRUE(submit(600));
  while (worker.RunNext()) {
  }
  EXPECT_EQ(pool.queued_bytes(), 0u);
  EXPECT_TRUE(submit(5000)) << "alone, a task larger than the bound is queued";
  EXPECT_FALSE(submit(1, &refusal));
  EXPECT_EQ(refusal, BusinessPool::Refusal::kBytes);
  while (worker.RunNext()) {
  }
  EXPECT_EQ(runs.value(), 5);
}

// Tasks finish out of order: the pool may count a free slot while the cell the queue hands out
// next is still held by a worker that took its task and has not yet given the cell back. The
// task that got the slot cannot be queued; it must come back to the caller, which answers it
// (OVERLOADED), rather than be lost.
TEST(BusinessPoolTest, ATaskThatFindsTheNextCellStillTakenComesBackToTheCaller) {
  Counter runs;
  std::atomic<int> destroyed{0};
  BusinessPool pool(/*threads=*/0, /*queue_capacity=*/2, "test-worker");
  BusinessPoolPeer worker(pool);
  auto submit = [&](std::unique_ptr<BusinessPool::Task>* task) {
    *task = std::make_unique<CountingTask>(&runs, &destroyed);
    return pool.TrySubmit(task);
  };
  std::unique_ptr<BusinessPool::Task> first, second, third;
  ASSERT_TRUE(submit(&first));
  ASSERT_TRUE(submit(&second));
  size_t stalled = 0;
  ASSERT_TRUE(worker.Claim(&stalled));  // the first task's cell, not given back yet
  ASSERT_TRUE(worker.RunNext());        // the second task, finished first: one slot is free
  ASSERT_EQ(runs.value(), 1);

  EXPECT_FALSE(submit(&third)) << "the queue's next cell is the stalled worker's";
  EXPECT_NE(third, nullptr) << "a refused task stays with the caller";
  third.reset();
  EXPECT_EQ(destroyed.load(), 2);

  worker.ReleaseAndRun(stalled);
  EXPECT_EQ(runs.value(), 2);
  ASSERT_TRUE(submit(&third)) << "room again once the cell is back";
  ASSERT_TRUE(worker.RunNext());
  EXPECT_EQ(runs.value(), 3);
  EXPECT_EQ(destroyed.load(), 4);
}

}  // namespace
}  // namespace ferry::server
