#include "ferry/bench/load_driver.h"

#include <algorithm>
#include <limits>
#include <thread>

#include "thread_recorder.h"

namespace ferry::bench {
namespace {

std::atomic<uint64_t> next_driver_id{1};

uint64_t SlowThreshold(double ratio) {
  if (ratio <= 0) return 0;
  if (ratio >= 1) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(ratio * 18446744073709551616.0);  // ratio * 2^64
}

LoadDriver::Clock::duration Seconds(double seconds) {
  return std::chrono::duration_cast<LoadDriver::Clock::duration>(
      std::chrono::duration<double>(seconds));
}

double SecondsBetween(LoadDriver::Clock::time_point from, LoadDriver::Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

LoadDriver::LoadDriver(const LoadOptions& options)
    : options_(options),
      id_(next_driver_id.fetch_add(1)),
      total_slots_(options.conns * options.depth),
      slow_threshold_(SlowThreshold(options.slow_ratio)) {}

LoadDriver::~LoadDriver() = default;

ThreadRecorder& LoadDriver::ThisThreadRecorder() {
  struct Cache {
    uint64_t driver_id = 0;
    ThreadRecorder* recorder = nullptr;
  };
  thread_local Cache cache;
  if (cache.driver_id == id_) return *cache.recorder;
  std::lock_guard lock(recorders_mu_);
  recorders_.push_back(std::make_unique<ThreadRecorder>(id_ << 32 | recorders_.size()));
  cache = {id_, recorders_.back().get()};
  return *cache.recorder;
}

bool LoadDriver::PickSlow(ThreadRecorder& recorder) {
  return slow_threshold_ != 0 && recorder.NextRandom() < slow_threshold_;
}

void LoadDriver::IssuePending(ThreadRecorder& r) {
  r.issuing = true;
  while (!r.pending.empty()) {
    const uint32_t slot = r.pending.back();
    r.pending.pop_back();
    if (phase_.load(std::memory_order_relaxed) == Phase::kStopped) {
      Retire();
      continue;
    }
    transport_->Issue(Call{slot, slot / options_.depth, PickSlow(r)});
  }
  r.issuing = false;
}

void LoadDriver::Retire() {
  if (retired_.fetch_add(1, std::memory_order_acq_rel) + 1 == total_slots_) {
    std::lock_guard lock(drain_mu_);
    drained_.notify_all();
  }
}

void LoadDriver::Complete(const Call& call, std::string_view error,
                          std::chrono::nanoseconds latency) {
  ThreadRecorder& r = ThisThreadRecorder();
  r.completed.Add(1);
  switch (phase_.load(std::memory_order_relaxed)) {
    case Phase::kWarmup:
      break;
    case Phase::kMeasure:
      if (error.empty()) {
        r.latency.Record(latency);
        if (slow_threshold_ != 0 && !call.slow) r.fast_latency.Record(latency);
      } else {
        r.errors.Add(1);
        r.errors_by_status.Add(error);
      }
      break;
    case Phase::kStopped:
      Retire();
      return;
  }
  r.pending.push_back(call.slot);
  if (!r.issuing) IssuePending(r);
}

LoadSummary LoadDriver::Run(Transport& transport, const LoadReport& report,
                            std::chrono::milliseconds drain_timeout) {
  transport_ = &transport;
  report.PrintStart();
  const Clock::time_point start = Clock::now();
  const Clock::time_point warmup_end = start + Seconds(options_.warmup_seconds);
  phase_.store(options_.warmup_seconds > 0 ? Phase::kWarmup : Phase::kMeasure);

  // Launching from a thread of its own keeps this one free to end the run even if every call
  // fails synchronously and the launcher never gets out of its issuing loop until then.
  std::thread launcher([this] {
    ThreadRecorder& r = ThisThreadRecorder();
    for (uint32_t slot = total_slots_; slot-- > 0;) r.pending.push_back(slot);
    IssuePending(r);
  });

  // The measured window starts when the phase flips, which may be a little after warmup_end.
  Clock::time_point measure_start = start;
  Clock::time_point end = start + Seconds(options_.duration_seconds);
  Clock::time_point last_tick = start;
  Clock::time_point next_tick = start + std::chrono::seconds(1);
  LatencyHistogram scratch;
  while (true) {
    const Phase phase = phase_.load();
    std::this_thread::sleep_until(std::min(next_tick, phase == Phase::kWarmup ? warmup_end : end));
    const Clock::time_point now = Clock::now();
    if (phase == Phase::kWarmup && now >= warmup_end) {
      phase_.store(Phase::kMeasure);
      measure_start = now;
      end = now + Seconds(options_.duration_seconds);
    } else if (phase == Phase::kMeasure && now >= end) {
      phase_.store(Phase::kStopped);
      break;
    }
    if (now >= next_tick) {
      report.PrintProgress(SampleProgress(SecondsBetween(start, now), phase == Phase::kWarmup,
                                          SecondsBetween(last_tick, now), &scratch));
      last_tick = now;
      next_tick += std::chrono::seconds(1);
    }
  }
  const Clock::time_point stop = Clock::now();

  {
    std::unique_lock lock(drain_mu_);
    drained_.wait_until(lock, stop + drain_timeout, [this] {
      return retired_.load(std::memory_order_acquire) == total_slots_;
    });
  }
  launcher.join();
  return Summarize(SecondsBetween(measure_start, stop));
}

ProgressSample LoadDriver::SampleProgress(double elapsed_seconds, bool warmup,
                                          double interval_seconds, LatencyHistogram* scratch) {
  ProgressSample sample;
  sample.elapsed_seconds = elapsed_seconds;
  sample.warmup = warmup;
  uint64_t completed = 0;
  scratch->Reset();
  {
    std::lock_guard lock(recorders_mu_);
    for (const auto& r : recorders_) {
      completed += r->completed.Load();
      sample.errors += r->errors.Load();
      scratch->Merge(r->latency);
    }
  }
  sample.interval_qps = interval_seconds > 0
                            ? static_cast<double>(completed - last_completed_) / interval_seconds
                            : 0;
  last_completed_ = completed;
  sample.p99 = scratch->ValueAtPercentile(99);
  return sample;
}

LoadSummary LoadDriver::Summarize(double measured_seconds) {
  LoadSummary summary;
  summary.measured_seconds = measured_seconds;
  std::lock_guard lock(recorders_mu_);
  for (const auto& r : recorders_) {
    summary.latency.Merge(r->latency);
    summary.fast_latency.Merge(r->fast_latency);
    summary.errors += r->errors.Load();
    r->errors_by_status.ForEach([&](std::string_view status, uint64_t count) {
      auto it = std::find_if(summary.errors_by_status.begin(), summary.errors_by_status.end(),
                             [&](const auto& entry) { return entry.first == status; });
      if (it == summary.errors_by_status.end()) {
        summary.errors_by_status.emplace_back(status, count);
      } else {
        it->second += count;
      }
    });
  }
  std::sort(summary.errors_by_status.begin(), summary.errors_by_status.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  summary.ok_calls = summary.latency.count();
  summary.unfinished_calls = total_slots_ - retired_.load(std::memory_order_acquire);
  return summary;
}

}  // namespace ferry::bench
