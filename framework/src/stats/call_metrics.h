#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <string>
#include <string_view>
#include <utility>

#include "ferry/codec/status.h"
#include "ferry/framework/method_spec.h"
#include "ferry/framework/metrics.h"

namespace ferry::stats {

// The cells of one method's calls, on the server or on the client side (docs/metrics.md):
// calls by status code, their durations, and those in flight. Made once per method and kept
// for the process's life, so that counting a call looks nothing up.
class MethodMetrics {
 public:
  enum class Side { kServer, kClient };

  MethodMetrics(Side side, std::string service, std::string method);

  void Started() { in_flight_->Increment(); }
  void Finished(StatusCode code, std::chrono::nanoseconds duration) {
    in_flight_->Decrement();
    Record(code, duration);
  }
  // A call counted without having been counted in flight (it never started).
  void Record(StatusCode code, std::chrono::nanoseconds duration) {
    const size_t index = static_cast<size_t>(code) < kCodes ? static_cast<size_t>(code) : 0;
    metrics::Counter* counter = by_code_[index].load(std::memory_order_acquire);
    if (counter == nullptr) counter = CounterFor(index);
    counter->Increment();
    duration_->Observe(duration);
  }

  const std::string& service() const { return service_; }
  const std::string& method() const { return method_; }
  metrics::HistogramCounts ReadDurations() const { return duration_->Read(); }
  // Calls answered OK and otherwise, so far.
  uint64_t Calls() const;
  uint64_t Errors() const;

 private:
  static constexpr size_t kCodes = 19;  // StatusCode's values
  metrics::Counter* CounterFor(size_t code);

  const Side side_;
  const std::string service_;
  const std::string method_;
  metrics::Histogram* duration_;
  metrics::UpDownCounter* in_flight_;
  // Made on a code's first call: most methods only ever answer a few.
  std::array<std::atomic<metrics::Counter*>, kCodes> by_code_{};
};

// The process's one MethodMetrics for a method on a side, made on first use.
MethodMetrics& MethodMetricsFor(MethodMetrics::Side side, std::string_view service,
                                std::string_view method);
// The client side's, found from the spec a call carries without a lock once warm.
MethodMetrics& ClientMetricsFor(const MethodSpec& method);

// One client call being counted, from its start to its one completion, carried along with the
// call (a pending call, a cluster call). Empty when the channel does not count calls.
class CallMeter {
 public:
  using Clock = std::chrono::steady_clock;

  CallMeter() = default;
  // Counts the call in flight from `started`.
  CallMeter(MethodMetrics* metrics, Clock::time_point started)
      : metrics_(metrics), started_(started) {
    if (metrics_ != nullptr) metrics_->Started();
  }
  CallMeter(CallMeter&& other) noexcept
      : metrics_(std::exchange(other.metrics_, nullptr)), started_(other.started_) {}
  CallMeter& operator=(CallMeter&& other) noexcept {
    if (this != &other) {
      Finish(StatusCode::CANCELLED);
      metrics_ = std::exchange(other.metrics_, nullptr);
      started_ = other.started_;
    }
    return *this;
  }
  // A call dropped without completing (its channel went) counts as cancelled.
  ~CallMeter() { Finish(StatusCode::CANCELLED); }

  // The call's outcome; later ones are ignored.
  void Finish(StatusCode code) {
    if (metrics_ == nullptr) return;
    std::exchange(metrics_, nullptr)->Finished(code, Clock::now() - started_);
  }

 private:
  MethodMetrics* metrics_ = nullptr;
  Clock::time_point started_{};
};

}  // namespace ferry::stats
