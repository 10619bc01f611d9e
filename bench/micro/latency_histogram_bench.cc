#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

#include "ferry/bench/latency_histogram.h"

namespace ferry::bench {
namespace {

void BM_LatencyHistogramRecord(benchmark::State& state) {
  LatencyHistogram histogram;
  // Spread over 20 us .. ~2 ms so that the bucket index varies like real latencies do.
  int64_t ns = 20'000;
  for (auto _ : state) {
    histogram.Record(std::chrono::nanoseconds(ns));
    ns = ns < 2'000'000 ? ns + 7'919 : 20'000;
  }
  benchmark::DoNotOptimize(histogram.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LatencyHistogramRecord);

}  // namespace
}  // namespace ferry::bench
