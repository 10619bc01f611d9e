#include "access_log_writer.h"

#include <string_view>
#include <utility>

namespace ferry::accesslog {

std::shared_ptr<AccessLogWriter> AccessLogWriter::Shared() {
  static std::mutex mu;
  static std::weak_ptr<AccessLogWriter> shared;
  std::lock_guard lock(mu);
  std::shared_ptr<AccessLogWriter> writer = shared.lock();
  if (writer == nullptr) {
    writer = std::make_shared<AccessLogWriter>();
    shared = writer;
  }
  return writer;
}

AccessLogWriter::AccessLogWriter() : thread_([this] { Run(); }) {}

AccessLogWriter::~AccessLogWriter() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void AccessLogWriter::Post(std::shared_ptr<spdlog::logger> logger, spdlog::log_clock::time_point at,
                           std::string line) {
  {
    std::lock_guard lock(mu_);
    if (queued_.size() >= kMaxQueuedLines) {
      ++dropped_;
      return;
    }
    queued_.push_back(Line{std::move(logger), at, std::move(line)});
  }
  wake_.notify_one();
}

void AccessLogWriter::Run() {
  // Two batches swapped back and forth, so that steady logging allocates no new vectors.
  std::vector<Line> batch;
  for (;;) {
    size_t dropped = 0;
    bool stopping = false;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return !queued_.empty() || stopping_; });
      batch.swap(queued_);
      std::swap(dropped, dropped_);
      stopping = stopping_;
    }
    Write(batch, dropped);
    batch.clear();
    if (stopping) return;
  }
}

void AccessLogWriter::Write(const std::vector<Line>& batch, size_t dropped) {
  if (batch.empty()) return;
  if (dropped > 0) {
    batch.front().logger->log(
        batch.front().at, {}, spdlog::level::warn,
        "accesslog: " + std::to_string(dropped) + " lines dropped while the writer was behind");
  }
  for (const Line& line : batch) {
    line.logger->log(line.at, {}, spdlog::level::info, std::string_view(line.text));
  }
  const spdlog::logger* flushed = nullptr;
  for (const Line& line : batch) {
    if (line.logger.get() != flushed) line.logger->flush();
    flushed = line.logger.get();
  }
}

}  // namespace ferry::accesslog
