#include "window_run.h"

#include <algorithm>
#include <string>
#include <thread>

namespace ferry::bench {

WindowRun RunWindow(BoundedLoop& loop, const WindowLimits& limits, const LoadOptions& load,
                    std::ostream& out, const ProgressFn& progress) {
  const LoadReport report(std::string{limits.program}, load, out);
  WindowRun run;
  const Clock::time_point start = Clock::now();
  Clock::time_point deadline = start + Seconds(limits.duration_limit_s);
  // Launching from a thread of its own keeps this one free to print progress and end the run
  // even if every call fails synchronously.
  std::thread launcher([&loop] { loop.Start(); });
  Clock::time_point next_tick = start + std::chrono::seconds(1);
  Clock::time_point last_tick = start;
  uint64_t last_completed = 0;
  bool draining = false;
  while (!loop.WaitUntil(std::min(next_tick, deadline))) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      if (draining) break;  // calls still out after the drain time: given up on
      loop.Stop();
      run.cut_short = true;
      draining = true;
      out << limits.program << ": --duration-limit reached after " << loop.issued() << " of "
          << limits.total << " " << limits.calls << "; waiting for the ones in flight" << std::endl;
      deadline = now + limits.drain;
    }
    if (now >= next_tick) {
      report.PrintProgress(
          progress(SecondsBetween(start, now), SecondsBetween(last_tick, now), &last_completed));
      last_tick = now;
      next_tick += std::chrono::seconds(1);
    }
  }
  run.end = Clock::now();
  run.seconds = SecondsBetween(start, run.end);
  launcher.join();
  return run;
}

}  // namespace ferry::bench
