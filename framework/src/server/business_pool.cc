#include "server/business_pool.h"

#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "stats/framework_metrics.h"

namespace ferry::server {

BusinessPool::BusinessPool(size_t threads, size_t queue_capacity, const std::string& thread_name,
                           size_t max_queued_bytes)
    : queue_capacity_(queue_capacity),
      admit_limit_(threads + queue_capacity),
      max_queued_bytes_(max_queued_bytes),
      cells_(new Cell[threads + queue_capacity]),
      cell_count_(threads + queue_capacity) {
  for (size_t i = 0; i < cell_count_; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this, name = thread_name.substr(0, 12) + std::to_string(i)] {
      pthread_setname_np(pthread_self(), name.c_str());
      WorkerLoop();
    });
  }
}

BusinessPool::~BusinessPool() {
  Stop();
  Join();
}

bool BusinessPool::TrySubmit(std::unique_ptr<Task>* task, size_t bytes, Refusal* refusal) {
  const auto refuse = [&](Refusal why) {
    stats::Server().pool_rejections->Increment();
    if (refusal != nullptr) *refusal = why;
    return false;
  };
  if (stopping_.load(std::memory_order_relaxed)) {
    if (refusal != nullptr) *refusal = Refusal::kFull;
    return false;
  }
  if (admitted_.fetch_add(1, std::memory_order_relaxed) >= admit_limit_) {
    admitted_.fetch_sub(1, std::memory_order_relaxed);
    return refuse(Refusal::kFull);
  }
  // Several IO threads may each see the bytes below the bound at once: it holds to within one
  // request per IO thread, which is what a bound on memory needs.
  const size_t queued = queued_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  if (queued != 0 && bytes > max_queued_bytes_ - std::min(queued, max_queued_bytes_)) {
    queued_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
    admitted_.fetch_sub(1, std::memory_order_relaxed);
    return refuse(Refusal::kBytes);
  }
  // The queue has a cell for every task that can be admitted, but tasks finish out of order:
  // the cell it hands out next may still be held by a worker that took its task and has not
  // yet given the cell back. Refused like a full pool then, rather than lost.
  if (!TryPush(task->get(), bytes)) {
    queued_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
    admitted_.fetch_sub(1, std::memory_order_relaxed);
    return refuse(Refusal::kFull);
  }
  static_cast<void>(task->release());
  // seq_cst pairs with the sleeper's seq_cst increment-then-pop: either it sees our task or we
  // see it asleep, never neither.
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard lock(mu_);
    cv_.notify_one();
  }
  return true;
}

std::string BusinessPool::RefusalMessage(Refusal refusal) const {
  if (refusal == Refusal::kBytes) {
    return "server overloaded: business queue full (" + std::to_string(queued_bytes()) +
           " bytes of requests waiting; server.limits.max_queued_bytes: " +
           std::to_string(max_queued_bytes_) + ")";
  }
  return "server overloaded: business queue full (capacity " + std::to_string(queue_capacity_) +
         ")";
}

// Vyukov's bounded MPMC queue with modulo indexing, so any capacity works, not only powers of 2.
bool BusinessPool::TryPush(Task* task, size_t bytes) {
  size_t pos = enqueue_pos_.load(std::memory_order_relaxed);
  for (;;) {
    Cell& cell = cells_[pos % cell_count_];
    const size_t seq = cell.sequence.load(std::memory_order_acquire);
    const auto diff = static_cast<intptr_t>(seq) - static_cast<intptr_t>(pos);
    if (diff == 0) {
      if (enqueue_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
        cell.task = task;
        cell.bytes = bytes;
        cell.sequence.store(pos + 1, std::memory_order_seq_cst);
        return true;
      }
    } else if (diff < 0) {
      return false;
    } else {
      pos = enqueue_pos_.load(std::memory_order_relaxed);
    }
  }
}

BusinessPool::Task* BusinessPool::TryPop() {
  size_t pos = 0;
  return Claim(&pos) ? Release(pos) : nullptr;
}

bool BusinessPool::Claim(size_t* claimed) {
  size_t pos = dequeue_pos_.load(std::memory_order_relaxed);
  for (;;) {
    Cell& cell = cells_[pos % cell_count_];
    const size_t seq = cell.sequence.load(std::memory_order_seq_cst);
    const auto diff = static_cast<intptr_t>(seq) - static_cast<intptr_t>(pos + 1);
    if (diff == 0) {
      if (dequeue_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
        *claimed = pos;
        return true;
      }
    } else if (diff < 0) {
      // Empty, or the next cell is claimed by a producer still writing it; that producer
      // wakes a sleeper once it has published.
      return false;
    } else {
      pos = dequeue_pos_.load(std::memory_order_relaxed);
    }
  }
}

BusinessPool::Task* BusinessPool::Release(size_t pos) {
  Cell& cell = cells_[pos % cell_count_];
  Task* task = cell.task;
  queued_bytes_.fetch_sub(cell.bytes, std::memory_order_relaxed);
  cell.sequence.store(pos + cell_count_, std::memory_order_release);
  return task;
}

void BusinessPool::RunAndRetire(Task* task) {
  task->Run();
  admitted_.fetch_sub(1, std::memory_order_relaxed);
}

void BusinessPool::WorkerLoop() {
  while (!stopping_.load(std::memory_order_acquire)) {
    if (Task* task = TryPop()) {
      RunAndRetire(task);
      continue;
    }
    Task* task = nullptr;
    {
      std::unique_lock lock(mu_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      while (!stopping_.load(std::memory_order_relaxed) && (task = TryPop()) == nullptr) {
        cv_.wait(lock);
      }
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (task != nullptr) RunAndRetire(task);
  }
}

void BusinessPool::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
}

void BusinessPool::Join() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  while (Task* task = TryPop()) {
    delete task;
    admitted_.fetch_sub(1, std::memory_order_relaxed);
  }
}

}  // namespace ferry::server
