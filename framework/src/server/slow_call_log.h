#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "ferry/framework/server.h"
#include "thread_annotations.h"

namespace ferry::server {

// The most recent calls slower than server.slow_call_ms: logged as they end, and kept for the
// status page. Only slow calls take its lock.
class SlowCallLog {
 public:
  static constexpr size_t kKept = 32;

  void Record(SlowCall call);
  std::vector<SlowCall> Recent() const;  // newest first

 private:
  mutable Mutex mu_;
  std::deque<SlowCall> calls_ FERRY_GUARDED_BY(mu_);
};

}  // namespace ferry::server
