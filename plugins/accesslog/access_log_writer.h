#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ferry::accesslog {

// The background thread that writes the lines of every access log in the process, so that a
// call never waits for a disk. Ours rather than spdlog's async logger: spdlog releases its
// loggers from inside its uninstrumented shared library, which ThreadSanitizer reports as races.
class AccessLogWriter {
 public:
  // Lines waiting beyond this are dropped, and the drop is reported in the log.
  static constexpr size_t kMaxQueuedLines = 8192;

  // The process's writer, started on first use and stopped when its last user lets go.
  static std::shared_ptr<AccessLogWriter> Shared();

  AccessLogWriter();
  // Writes what is queued, then stops.
  ~AccessLogWriter();
  AccessLogWriter(const AccessLogWriter&) = delete;
  AccessLogWriter& operator=(const AccessLogWriter&) = delete;

  // `logger` writes `line`, stamped `at`, soon after; it is flushed once the batch is written.
  void Post(std::shared_ptr<spdlog::logger> logger, spdlog::log_clock::time_point at,
            std::string line);

 private:
  struct Line {
    std::shared_ptr<spdlog::logger> logger;
    spdlog::log_clock::time_point at;
    std::string text;
  };

  void Run();
  static void Write(const std::vector<Line>& batch, size_t dropped);

  std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Line> queued_;
  size_t dropped_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // last: started once everything it uses exists
};

}  // namespace ferry::accesslog
