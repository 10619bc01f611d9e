#include "access_log.h"

#include <fmt/format.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace ferry::accesslog {

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
  auto logger = std::make_shared<spdlog::logger>("ferry-accesslog", std::move(sink));
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%f %v");
  out->reset(new AccessLog(AccessLogWriter::Shared(), std::move(logger)));
  return Status::Ok();
}

AccessLog::AccessLog(std::shared_ptr<AccessLogWriter> writer,
                     std::shared_ptr<spdlog::logger> logger)
    : writer_(std::move(writer)), logger_(std::move(logger)) {}

void AccessLog::Write(std::string_view side, const Trace& trace, std::string_view service,
                      std::string_view method, std::string_view peer, const Status& status,
                      std::chrono::nanoseconds latency) {
  const auto at = spdlog::log_clock::now();
  const auto latency_us = std::chrono::duration_cast<std::chrono::microseconds>(latency).count();
  const auto or_dash = [](std::string_view id) { return id.empty() ? std::string_view("-") : id; };
  std::string line =
      fmt::format("{} trace={} span={} parent={} call={}/{} peer={} status={} latency_us={}", side,
                  or_dash(trace.trace_id), or_dash(trace.span_id), or_dash(trace.parent_span_id),
                  service, method, peer, StatusCodeName(status.code()), latency_us);
  if (!status.ok()) line += fmt::format(" error=\"{}\"", status.message());
  writer_->Post(logger_, at, std::move(line));
}

}  // namespace ferry::accesslog
