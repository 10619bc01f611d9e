#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace ferry {

// Lets whoever started a call give it up: set CallOptions::cancellation, and Cancel() completes
// the call at once with CANCELLED and tells the server to drop it (a cancel frame), whichever
// channel or retry the call is in. A response being read at that moment is read to its end
// first: the call completes then, on the thread reading it (docs/fault-tolerance.md). The async
// forms of generated proxies make one per call and hand it out in their CallHandle. Thread-safe.
class Cancellation {
 public:
  // What a channel runs to give the call up: `fn(target, arg)`, with `target` locked from the
  // weak pointer the channel bound. A plain function and a weak pointer rather than a closure,
  // so that binding a call allocates nothing.
  using CancelFn = void (*)(void* target, uint64_t arg);

  Cancellation() = default;
  Cancellation(const Cancellation&) = delete;
  Cancellation& operator=(const Cancellation&) = delete;

  // Gives the call up through its binding, if any, on this thread; later calls do nothing.
  void Cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

  // For channels: binds the call as it is now (an attempt on a connection, a call with retries),
  // replacing an earlier binding. When the call was cancelled already, gives it up at once, on
  // this thread. A target that is gone by then is a call that ended: nothing happens.
  void Bind(CancelFn fn, std::weak_ptr<void> target, uint64_t arg);

 private:
  struct Binding {
    CancelFn fn = nullptr;
    std::weak_ptr<void> target;
    uint64_t arg = 0;
  };
  void Lock();
  void Unlock() { locked_.store(false, std::memory_order_release); }

  std::atomic<bool> cancelled_{false};
  // A spin lock: held for a few instructions, never across the cancel itself.
  std::atomic<bool> locked_{false};
  Binding binding_;
};

}  // namespace ferry
