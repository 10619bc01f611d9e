#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "ferry/bench/load_options.h"
#include "ferry/bench/load_report.h"
#include "ferry/bench/load_summary.h"

namespace ferry::bench {

struct ThreadRecorder;

// Closed-loop load: conns x depth call slots, each issuing its next call the moment the previous
// one completes, until the duration ends. A bench client supplies only the transport.
//
//   LoadDriver driver(options);
//   MyTransport transport(driver, options);        // connects; calls driver.Complete()
//   LoadSummary summary = driver.Run(transport, report);
//   transport.Stop();                              // no Complete() after this
//   report.PrintSummary(summary);
class LoadDriver {
 public:
  using Clock = std::chrono::steady_clock;

  struct Call {
    uint32_t slot;        // 0 .. conns*depth-1; a slot has at most one call in flight
    uint32_t connection;  // slot / depth
    bool slow;            // send to the server's slow method (--slow-ratio)
  };

  class Transport {
   public:
    virtual ~Transport() = default;
    // Starts `call` and arranges for LoadDriver::Complete to be called exactly once for it, from
    // any thread, possibly before Issue returns. Called from the launching thread and from
    // whichever threads call Complete.
    virtual void Issue(const Call& call) = 0;
  };

  explicit LoadDriver(const LoadOptions& options);
  ~LoadDriver();
  LoadDriver(const LoadDriver&) = delete;
  LoadDriver& operator=(const LoadDriver&) = delete;

  // Prints the start line, runs warmup and then the measured duration with a progress line each
  // second, stops issuing, and returns once every call has completed or `drain_timeout` has
  // passed (calls still out are counted as unfinished).
  LoadSummary Run(Transport& transport, const LoadReport& report,
                  std::chrono::milliseconds drain_timeout = std::chrono::seconds(5));

  // Reports the end of `call`. `error` is empty on success, else a status name that outlives
  // the driver ("UNAVAILABLE"). `latency` is measured by the transport from Issue.
  void Complete(const Call& call, std::string_view error, std::chrono::nanoseconds latency);

 private:
  enum class Phase { kWarmup, kMeasure, kStopped };

  ThreadRecorder& ThisThreadRecorder();
  bool PickSlow(ThreadRecorder& recorder);
  void IssuePending(ThreadRecorder& recorder);
  void Retire();
  ProgressSample SampleProgress(double elapsed_seconds, bool warmup, double interval_seconds,
                                LatencyHistogram* scratch);
  LoadSummary Summarize(double measured_seconds);

  const LoadOptions options_;
  const uint64_t id_;  // tells this driver's thread-local recorders from an earlier driver's
  const uint32_t total_slots_;
  const uint64_t slow_threshold_;  // a call is slow when a 64-bit random number is below this
  Transport* transport_ = nullptr;
  std::atomic<Phase> phase_{Phase::kWarmup};

  std::mutex recorders_mu_;
  std::vector<std::unique_ptr<ThreadRecorder>> recorders_;
  uint64_t last_completed_ = 0;  // progress bookkeeping, reporter thread only

  std::atomic<uint32_t> retired_{0};  // slots that stopped for good
  std::mutex drain_mu_;
  std::condition_variable drained_;
};

}  // namespace ferry::bench
