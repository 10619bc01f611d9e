#include "ferry/bench/load_report.h"

#include <cmath>
#include <cstdio>
#include <utility>

#include "ferry/bench/result_line.h"

namespace ferry::bench {

uint64_t ToMicros(std::chrono::nanoseconds latency) {
  return latency.count() <= 0 ? 0 : static_cast<uint64_t>((latency.count() + 500) / 1000);
}

LoadReport::LoadReport(std::string program, const LoadOptions& options, std::ostream& out)
    : program_(std::move(program)), options_(options), out_(out) {}

void LoadReport::PrintStart() const {
  out_ << program_ << ": target=" << options_.target << " conns=" << options_.conns
       << " depth=" << options_.depth << " size=" << options_.size
       << " duration=" << options_.duration_seconds << "s warmup=" << options_.warmup_seconds
       << "s threads=" << options_.threads;
  if (options_.slow_ratio > 0) {
    out_ << " slow-ratio=" << options_.slow_ratio << " slow-ms=" << options_.slow_ms;
  }
  out_ << std::endl;
}

void LoadReport::PrintProgress(const ProgressSample& s) const {
  char line[160];
  std::snprintf(line, sizeof line, "[%6.1fs]%s qps=%.0f errors=%llu p99_us=%llu", s.elapsed_seconds,
                s.warmup ? " warmup" : "", s.interval_qps,
                static_cast<unsigned long long>(s.errors),
                static_cast<unsigned long long>(ToMicros(s.p99)));
  out_ << line << std::endl;
}

void LoadReport::PrintSummary(const LoadSummary& s) const {
  const LatencyHistogram& h = s.latency;
  const auto us = [](std::chrono::nanoseconds v) { return ToMicros(v); };
  const auto qps = static_cast<uint64_t>(std::llround(s.qps()));
  out_ << "--- " << program_ << " summary over " << s.measured_seconds << " s\n"
       << "calls: " << s.ok_calls << " ok, " << s.errors << " errors; qps (ok calls): " << qps
       << "\n"
       << "latency us: p50=" << us(h.ValueAtPercentile(50))
       << " p90=" << us(h.ValueAtPercentile(90)) << " p99=" << us(h.ValueAtPercentile(99))
       << " p999=" << us(h.ValueAtPercentile(99.9)) << " min=" << us(h.min())
       << " mean=" << us(h.mean()) << " max=" << us(h.max()) << "\n";
  if (options_.slow_ratio > 0) {
    const LatencyHistogram& f = s.fast_latency;
    out_ << "fast-only latency us (" << f.count() << " calls, " << h.count() - f.count()
         << " slow excluded): p50=" << us(f.ValueAtPercentile(50))
         << " p99=" << us(f.ValueAtPercentile(99)) << " p999=" << us(f.ValueAtPercentile(99.9))
         << "\n";
  }
  if (!s.errors_by_status.empty()) {
    out_ << "errors by status:";
    for (const auto& [status, count] : s.errors_by_status) out_ << " " << status << "=" << count;
    out_ << "\n";
  }
  if (s.unfinished_calls > 0) {
    out_ << "warning: " << s.unfinished_calls
         << " calls never completed (not counted in qps or errors)\n";
  }
  out_ << ResultLine("RESULT")
              .Add("qps", qps)
              .Add("p50_us", us(h.ValueAtPercentile(50)))
              .Add("p90_us", us(h.ValueAtPercentile(90)))
              .Add("p99_us", us(h.ValueAtPercentile(99)))
              .Add("p999_us", us(h.ValueAtPercentile(99.9)))
              .Add("errors", s.errors)
       << std::endl;
}

}  // namespace ferry::bench
