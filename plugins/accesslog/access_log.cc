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

void AccessLog::Write(std::string_view side, std::string_view trace_id, std::string_view service,
                      std::string_view method, std::string_view peer, const Status& status,
                      std::chrono::nanoseconds latency) {
  const auto at = spdlog::log_clock::now();
  const auto latency_us = std::chrono::duration_cast<std::chrono::microseconds>(latency).count();
  if (trace_id.empty()) trace_id = "-";
  std::string line =
      status.ok()
          ? fmt::format("{} trace={} call={}/{} peer={} status=OK latency_us={}", side, trace_id,
                        service, method, peer, latency_us)
          : fmt::format("{} trace={} call={}/{} peer={} status={} latency_us={} error=\"{}\"", side,
                        trace_id, service, method, peer, StatusCodeName(status.code()), latency_us,
                        status.message());
  writer_->Post(logger_, at, std::move(line));
}

}  // namespace ferry::accesslog
