#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ferry::server {

// Fixed worker threads behind a bounded lock-free queue. Submitting never blocks and never
// allocates: a full pool refuses at once, so the IO thread can answer OVERLOADED instead of
// stalling every connection it serves.
class BusinessPool {
 public:
  // Intrusive unit of work: the caller's own call object is queued, no std::function per call.
  class Task {
   public:
    virtual ~Task() = default;
    // The task owns itself from here on: it may finish after Run() returns (an asynchronous
    // handler), and deletes itself once it has.
    virtual void Run() = 0;
  };

  // Admits at most `threads + queue_capacity` tasks at once: one running per thread, the rest
  // waiting. A task that goes on asynchronously stops counting once its Run() returns. Counting
  // running tasks too makes the bound independent of how quickly a worker picks up what was just
  // queued. The tasks waiting also hold at most `max_queued_bytes` of requests between them
  // (server.limits.max_queued_bytes), but for one alone, whatever its size: a request larger
  // than the bound must still be servable.
  BusinessPool(size_t threads, size_t queue_capacity, const std::string& thread_name,
               size_t max_queued_bytes = SIZE_MAX);
  ~BusinessPool();  // Stop() + Join()
  BusinessPool(const BusinessPool&) = delete;
  BusinessPool& operator=(const BusinessPool&) = delete;

  // Why TrySubmit() left a task with its caller.
  enum class Refusal : uint8_t {
    kFull,   // threads + queue_capacity tasks admitted already, or the pool is stopping
    kBytes,  // the tasks waiting hold max_queued_bytes of requests already
  };
  // Takes `*task` and returns true, or leaves it with the caller and returns false when full
  // or stopped, saying why in `*refusal` when given; the caller then answers it. `bytes`: what
  // the task holds of its request while it waits (its body), against max_queued_bytes. The
  // pool deletes a task it took and never runs. Any thread.
  bool TrySubmit(std::unique_ptr<Task>* task, size_t bytes = 0, Refusal* refusal = nullptr);
  // What a call refused for `refusal` is answered (OVERLOADED), e.g. "server overloaded:
  // business queue full (capacity 1024)".
  std::string RefusalMessage(Refusal refusal) const;

  // Workers finish the task they are running, then exit; queued tasks are deleted unrun by
  // Join(). Does not wait.
  void Stop();
  // Waits for every worker to exit. Blocks as long as a task is still running.
  void Join();

  size_t queue_capacity() const { return queue_capacity_; }
  // The request bytes of the tasks queued, as of a moment ago.
  size_t queued_bytes() const { return queued_bytes_.load(std::memory_order_relaxed); }
  // Tasks queued and not yet taken by a worker, as of a moment ago: for /metrics.
  size_t queued() const {
    const size_t in = enqueue_pos_.load(std::memory_order_relaxed);
    const size_t out = dequeue_pos_.load(std::memory_order_relaxed);
    return in > out ? in - out : 0;
  }

 private:
  // One slot of Vyukov's bounded MPMC queue: `sequence` says whose turn the slot is.
  struct Cell {
    std::atomic<size_t> sequence;
    Task* task = nullptr;
    size_t bytes = 0;  // counted in queued_bytes_ until the task leaves the cell
  };

  bool TryPush(Task* task, size_t bytes);
  Task* TryPop();
  // TryPop() in its two steps: taking the oldest task's cell, then giving the cell back to
  // producers. A worker may lose its core in between, which the tests reproduce.
  bool Claim(size_t* claimed);
  Task* Release(size_t pos);
  void WorkerLoop();
  void RunAndRetire(Task* task);

  const size_t queue_capacity_;
  const size_t admit_limit_;
  const size_t max_queued_bytes_;
  std::unique_ptr<Cell[]> cells_;
  const size_t cell_count_;
  alignas(64) std::atomic<size_t> enqueue_pos_{0};
  alignas(64) std::atomic<size_t> dequeue_pos_{0};
  alignas(64) std::atomic<size_t> admitted_{0};
  std::atomic<size_t> queued_bytes_{0};
  // Workers with nothing to do sleep on cv_; producers look at sleepers_ so that a busy pool
  // is fed without ever touching mu_.
  alignas(64) std::atomic<size_t> sleepers_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;

  friend class BusinessPoolPeer;  // tests/server/business_pool_test.cc
};

}  // namespace ferry::server
