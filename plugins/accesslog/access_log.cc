#include "access_log.h"

#include <spdlog/async_logger.h>
#include <spdlog/details/thread_pool.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <mutex>

namespace ferry::accesslog {
namespace {

constexpr size_t kQueuedLines = 8192;

// One writer thread for the whole process, alive while any access log is.
std::shared_ptr<spdlog::details::thread_pool> SharedWriter() {
  static std::mutex mu;
  static std::weak_ptr<spdlog::details::thread_pool> shared;
  std::lock_guard lock(mu);
  std::shared_ptr<spdlog::details::thread_pool> writer = shared.lock();
  if (writer == nullptr) {
    writer = std::make_shared<spdlog::details::thread_pool>(kQueuedLines, 1);
    shared = writer;
  }
  return writer;
}

}  // namespace

Status AccessLog::Open(const std::string& file, std::unique_ptr<AccessLog>* out) {
  spdlog::sink_ptr sink;
  try {
    if (file.empty()) {
      sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    } else {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, /*truncate=*/false);
    }
  } catch (const spdlog::spdlog_ex& e) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  "cannot open access log '" + file + "': " + e.what());
  }
  std::shared_ptr<spdlog::details::thread_pool> writer = SharedWriter();
  auto logger = std::make_shared<spdlog::async_logger>(
      "ferry-accesslog", std::move(sink), writer, spdlog::async_overflow_policy::overrun_oldest);
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%f %v");
  // Flushed by the writer thread after every line, so that `tail -f` shows calls as they end.
  logger->flush_on(spdlog::level::info);
  out->reset(new AccessLog(std::move(writer), std::move(logger)));
  return Status::Ok();
}

AccessLog::AccessLog(std::shared_ptr<spdlog::details::thread_pool> writer,
                     std::shared_ptr<spdlog::logger> logger)
    : writer_(std::move(writer)), logger_(std::move(logger)) {}

void AccessLog::Write(std::string_view side, std::string_view trace_id, std::string_view service,
                      std::string_view method, std::string_view peer, const Status& status,
                      std::chrono::nanoseconds latency) {
  const auto latency_us = std::chrono::duration_cast<std::chrono::microseconds>(latency).count();
  if (trace_id.empty()) trace_id = "-";
  if (status.ok()) {
    logger_->info("{} trace={} call={}/{} peer={} status=OK latency_us={}", side, trace_id, service,
                  method, peer, latency_us);
  } else {
    logger_->info("{} trace={} call={}/{} peer={} status={} latency_us={} error=\"{}\"", side,
                  trace_id, service, method, peer, StatusCodeName(status.code()), latency_us,
                  status.message());
  }
}

}  // namespace ferry::accesslog
