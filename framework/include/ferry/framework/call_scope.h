#pragma once

#include <chrono>
#include <string>

namespace ferry {

// What a call being served hands on to the calls its handler makes, so that a downstream call
// never outlives the deadline of the call it serves and stays in the same trace, without the
// handler passing either by hand.
struct CallScope {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::string trace_id;
  std::string span_id;  // of the call being served: the parent of the calls it makes
  bool sampled = true;
};

// The scope of the call this thread is serving, or of the call whose downstream completion it
// is running; null when none. Channels read it at every call (CallMethod), fold its deadline
// and trace id into the call's options, and make it current again while the call's `done` runs,
// so that a continuation on another thread that calls on still belongs to the same call.
const CallScope* CurrentCallScope();

// Makes `scope` (which must outlive it) current on this thread until destroyed; the previous
// one is current again afterwards.
class ScopedCallScope {
 public:
  explicit ScopedCallScope(const CallScope* scope);
  ~ScopedCallScope();
  ScopedCallScope(const ScopedCallScope&) = delete;
  ScopedCallScope& operator=(const ScopedCallScope&) = delete;

 private:
  const CallScope* previous_;
};

}  // namespace ferry
