#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string_view>

#include "bench_clock.h"
#include "bounded_loop.h"
#include "ferry/bench/load_options.h"
#include "ferry/bench/load_report.h"

namespace ferry::bench {

// How long a command's window of calls may run and what its lines call things.
struct WindowLimits {
  std::string_view program;  // "ferry-bench seckill"
  std::string_view calls;    // what the calls are, plural: "purchases"
  uint64_t total = 0;        // calls the loop makes unless cut short
  double duration_limit_s = 60;
  // After --duration-limit no call starts; the ones out get this long to come back.
  Clock::duration drain{};
};

struct WindowRun {
  Clock::time_point end;  // the last call came back, or the drain ran out
  double seconds = 0;     // start to end
  bool cut_short = false;
};

// The progress line's figures at `elapsed` seconds, the last `interval` seconds being new;
// `last_completed` carries the count of the previous line.
using ProgressFn =
    std::function<ProgressSample(double elapsed, double interval, uint64_t* last_completed)>;

// Starts `loop` and waits for it to finish, printing a progress line a second; at the limit it
// stops the loop and waits the drain time more. `load` names the run in the progress lines.
WindowRun RunWindow(BoundedLoop& loop, const WindowLimits& limits, const LoadOptions& load,
                    std::ostream& out, const ProgressFn& progress);

}  // namespace ferry::bench
