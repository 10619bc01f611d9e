#pragma once

#include <atomic>

namespace ferry::metrics {

// A value that is set (a backlog length read from elsewhere, a configured limit, a timestamp).
// One atomic: Set is a store, Add a compare-and-swap loop, so it is meant for values that change
// now and then or from one thread; a count that many threads move up and down on every call is
// an UpDownCounter. On a cache line of its own, so that it does not slow its neighbours.
class alignas(64) Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

}  // namespace ferry::metrics
