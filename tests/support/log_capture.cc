#include "log_capture.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ferry::testsupport {
namespace {

class CapturingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  size_t size() const {
    std::lock_guard lock(lines_mu_);
    return lines_.size();
  }

  bool WaitFor(size_t start, std::string_view needle, std::chrono::milliseconds timeout,
               size_t count) const {
    std::unique_lock lock(lines_mu_);
    return logged_.wait_for(lock, timeout, [&] {
      size_t found = 0;
      for (size_t i = start; i < lines_.size(); ++i) {
        if (lines_[i].second.find(needle) != std::string::npos) ++found;
      }
      return found >= count;
    });
  }

  size_t Count(size_t start, spdlog::level::level_enum level, std::string_view needle) const {
    std::lock_guard lock(lines_mu_);
    size_t found = 0;
    for (size_t i = start; i < lines_.size(); ++i) {
      if (lines_[i].first == level && lines_[i].second.find(needle) != std::string::npos) ++found;
    }
    return found;
  }

  std::vector<std::string> Messages(size_t start, std::string_view needle) const {
    std::lock_guard lock(lines_mu_);
    std::vector<std::string> found;
    for (size_t i = start; i < lines_.size(); ++i) {
      if (lines_[i].second.find(needle) != std::string::npos) found.push_back(lines_[i].second);
    }
    return found;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    {
      std::lock_guard lock(lines_mu_);
      lines_.emplace_back(msg.level, std::string(msg.payload.data(), msg.payload.size()));
    }
    logged_.notify_all();
  }
  void flush_() override {}

 private:
  mutable std::mutex lines_mu_;
  mutable std::condition_variable logged_;
  std::vector<std::pair<spdlog::level::level_enum, std::string>> lines_;
};

CapturingSink& Sink() {
  static CapturingSink* sink = [] {
    auto capturing = std::make_shared<CapturingSink>();
    auto logger = spdlog::get("ferry");
    if (logger) {
      logger->sinks().push_back(capturing);
    } else {
      logger = std::make_shared<spdlog::logger>(
          "ferry", spdlog::sinks_init_list{std::make_shared<spdlog::sinks::stderr_color_sink_mt>(),
                                           capturing});
      spdlog::register_logger(logger);
    }
    return capturing.get();  // the logger keeps it alive for the process
  }();
  return *sink;
}

}  // namespace

LogCapture::LogCapture() : start_(Sink().size()) {}

bool LogCapture::WaitFor(std::string_view needle, std::chrono::milliseconds timeout,
                         size_t count) const {
  return Sink().WaitFor(start_, needle, timeout, count);
}

size_t LogCapture::Count(spdlog::level::level_enum level, std::string_view needle) const {
  return Sink().Count(start_, level, needle);
}

std::vector<std::string> LogCapture::Messages(std::string_view needle) const {
  return Sink().Messages(start_, needle);
}

}  // namespace ferry::testsupport
