#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ferry/bench/latency_histogram.h"
#include "ferry/bench/load_report.h"
#include "ferry/bench/single_writer_counter.h"
#include "ferry/codec/status.h"
#include "per_thread.h"

namespace ferry::bench {

// Errors are counted by StatusCode; codes beyond OVERLOADED count as UNKNOWN. The OK slot counts
// OK responses outside the service's contract, reported as BAD_ANSWER.
inline constexpr size_t kStatusCodes = static_cast<size_t>(StatusCode::OVERLOADED) + 1;

inline size_t CodeIndex(StatusCode code) {
  const auto index = static_cast<size_t>(code);
  return index < kStatusCodes ? index : static_cast<size_t>(StatusCode::UNKNOWN);
}

// What one thread records of the calls it completes, for `Kinds` kinds of call with a latency
// each. A command's recorder derives from it to count what else its calls tell; the thread is
// its only writer, so recording takes no lock (PerThread).
template <size_t Kinds = 1>
struct CallRecorder {
  void Answered(size_t kind, std::chrono::nanoseconds took) { latency[kind].Record(took); }
  void Failed(StatusCode code) { errors[CodeIndex(code)].Add(1); }
  void BadAnswer() { errors[static_cast<size_t>(StatusCode::OK)].Add(1); }

  std::array<LatencyHistogram, Kinds> latency;  // answered calls, by kind
  std::array<SingleWriterCounter, kStatusCodes> errors;
  SingleWriterCounter completed;  // calls finished, any outcome
};

// Every thread's CallRecorder part summed.
template <size_t Kinds>
struct CallTotals {
  std::array<LatencyHistogram, Kinds> latency;
  std::array<uint64_t, kStatusCodes> errors{};
  uint64_t completed = 0;

  LatencyHistogram AllLatency() const {
    LatencyHistogram all;
    for (const LatencyHistogram& h : latency) all.Merge(h);
    return all;
  }
};

template <size_t Kinds>
void AddTo(const CallRecorder<Kinds>& recorder, CallTotals<Kinds>* totals) {
  for (size_t i = 0; i < Kinds; ++i) totals->latency[i].Merge(recorder.latency[i]);
  for (size_t i = 0; i < kStatusCodes; ++i) totals->errors[i] += recorder.errors[i].Load();
  totals->completed += recorder.completed.Load();
}

// The figures of one progress line: calls completed since `*last_completed` (updated) over
// `interval` seconds, errors and p99 so far.
template <size_t Kinds>
ProgressSample SampleProgress(const CallTotals<Kinds>& totals, double elapsed, double interval,
                              uint64_t* last_completed) {
  ProgressSample sample;
  sample.elapsed_seconds = elapsed;
  for (uint64_t e : totals.errors) sample.errors += e;
  sample.interval_qps =
      interval > 0 ? static_cast<double>(totals.completed - *last_completed) / interval : 0;
  *last_completed = totals.completed;
  sample.p99 = totals.AllLatency().ValueAtPercentile(99);
  return sample;
}

// A command's recorders' CallRecorder parts summed (R derives from CallRecorder<Kinds>).
template <size_t Kinds, class R>
CallTotals<Kinds> SumCalls(PerThread<R>& recorders) {
  CallTotals<Kinds> totals;
  recorders.ForEach([&](const R& r) { AddTo<Kinds>(r, &totals); });
  return totals;
}

// The errors by status name (OK as BAD_ANSWER), most frequent first, leaving out the codes never
// seen; their sum goes to `*total`.
std::vector<std::pair<std::string, uint64_t>> ErrorsByStatus(
    const std::array<uint64_t, kStatusCodes>& errors, uint64_t* total);

}  // namespace ferry::bench
