// The hot-path cost of the metrics cells (ferry/framework/metrics.h) against a plain shared
// std::atomic, alone and with two threads updating the same cell, as a server's IO and worker
// threads do. docs/metrics.md quotes the figures.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "ferry/framework/metrics/counter.h"
#include "ferry/framework/metrics/histogram.h"
#include "ferry/framework/metrics/up_down_counter.h"

namespace ferry::metrics {
namespace {

// Shared by the benchmark's threads, as one cell is shared by a server's threads.
alignas(64) std::atomic<uint64_t> g_plain_counter{0};

void BM_PlainAtomicFetchAdd(benchmark::State& state) {
  for (auto _ : state) g_plain_counter.fetch_add(1, std::memory_order_relaxed);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PlainAtomicFetchAdd)->Threads(1)->Threads(2)->UseRealTime();

// The ideal: every thread on a line of its own, nothing shared. With two threads it shows
// whether the machine ran them at once at all; if it did not, no 2-thread figure here can show
// contention.
struct alignas(64) PrivateLine {
  std::atomic<uint64_t> value{0};
};
PrivateLine g_private_lines[2];

void BM_PrivateAtomicFetchAdd(benchmark::State& state) {
  std::atomic<uint64_t>& value = g_private_lines[state.thread_index() % 2].value;
  for (auto _ : state) value.fetch_add(1, std::memory_order_relaxed);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PrivateAtomicFetchAdd)->Threads(1)->Threads(2)->UseRealTime();

void BM_CounterIncrement(benchmark::State& state) {
  static Counter counter;
  for (auto _ : state) counter.Increment();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CounterIncrement)->Threads(1)->Threads(2)->UseRealTime();

// A call entering and leaving: two updates per iteration.
void BM_UpDownCounterPair(benchmark::State& state) {
  static UpDownCounter in_flight;
  for (auto _ : state) {
    in_flight.Increment();
    in_flight.Decrement();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UpDownCounterPair)->Threads(1)->Threads(2)->UseRealTime();

std::vector<int64_t> DefaultBoundsNs() {
  std::vector<int64_t> ns;
  for (double seconds : DefaultLatencyBuckets()) ns.push_back(static_cast<int64_t>(seconds * 1e9));
  return ns;
}

// Durations spread over 20 us .. ~2 ms so that the bucket varies as real latencies do.
int64_t NextDuration(int64_t ns) { return ns < 2'000'000 ? ns + 7'919 : 20'000; }

// The same search and two adds as Histogram::Observe, on one shared set of atomics.
struct PlainAtomicHistogram {
  const std::vector<int64_t> bounds = DefaultBoundsNs();
  alignas(64) std::atomic<uint64_t> buckets[32] = {};
  std::atomic<uint64_t> sum{0};

  void Observe(int64_t ns) {
    const auto bucket = std::lower_bound(bounds.begin(), bounds.end(), ns) - bounds.begin();
    buckets[bucket].fetch_add(1, std::memory_order_relaxed);
    sum.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
  }
};

void BM_PlainAtomicHistogramObserve(benchmark::State& state) {
  static PlainAtomicHistogram histogram;
  int64_t ns = 20'000;
  for (auto _ : state) {
    histogram.Observe(ns);
    ns = NextDuration(ns);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PlainAtomicHistogramObserve)->Threads(1)->Threads(2)->UseRealTime();

void BM_HistogramObserve(benchmark::State& state) {
  static const std::vector<int64_t> bounds = DefaultBoundsNs();
  static Histogram histogram(bounds);
  int64_t ns = 20'000;
  for (auto _ : state) {
    histogram.Observe(std::chrono::nanoseconds(ns));
    ns = NextDuration(ns);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramObserve)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace
}  // namespace ferry::metrics
