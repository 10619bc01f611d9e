#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace ferry::shortlink {

// One redirect, as the statistics will see it.
struct Visit {
  std::string code;
  int64_t at_ms = 0;
  std::string peer;  // "ip:port"
  std::string user_agent;
  std::string referrer;
};

// Where the redirect path hands its visits, without waiting: the place where the statistics
// stream (PV, UV, referrers, bots) will append its events. Record must never block.
class VisitSink {
 public:
  virtual ~VisitSink() = default;
  virtual void Record(Visit visit) = 0;
};

// Until then: counts every visit, dropping none.
class CountingVisitSink final : public VisitSink {
 public:
  void Record(Visit) override { count_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> count_{0};
};

}  // namespace ferry::shortlink
