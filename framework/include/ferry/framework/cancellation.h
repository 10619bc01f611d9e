#pragma once

#include <functional>
#include <mutex>

namespace ferry {

// Lets whoever started a call give it up: set CallOptions::cancellation, and Cancel() completes
// the call at once with CANCELLED and tells the server to drop it (a cancel frame), whichever
// channel or retry the call is in. The async forms of generated proxies make one per call and
// hand it out in their CallHandle. Thread-safe.
class Cancellation {
 public:
  Cancellation() = default;
  Cancellation(const Cancellation&) = delete;
  Cancellation& operator=(const Cancellation&) = delete;

  // Runs the call's hook, if any, on this thread; later calls do nothing.
  void Cancel();
  bool cancelled() const;

  // For channels. `hook` runs once, on the thread that calls Cancel(), or at once on this thread
  // when the call was cancelled already. It replaces an earlier hook: the call moved on (a
  // retry's new attempt). The hook must not call back into this object.
  void OnCancel(std::function<void()> hook);
  // Forgets the hook: the call completed. Releases what the hook holds.
  void Clear();

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::function<void()> hook_;
};

}  // namespace ferry
