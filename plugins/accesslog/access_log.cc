#include "access_log.h"

#include <fmt/format.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <iterator>

#include "ferry/framework/logging.h"

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
  // Every field but the side and the status may hold what a peer chose: escaped, so that a call
  // is one line whose fields are the ones this wrote.
  const auto field = [](std::string_view key, std::string_view value, std::string* line) {
    line->append(key);
    AppendLogEscaped(value.empty() ? std::string_view("-") : value, line, /*word=*/true);
  };
  std::string line(side);
  field(" trace=", trace.trace_id, &line);
  field(" span=", trace.span_id, &line);
  field(" parent=", trace.parent_span_id, &line);
  line.append(" call=");
  AppendLogEscaped(service, &line, /*word=*/true);
  line.push_back('/');
  AppendLogEscaped(method, &line, /*word=*/true);
  field(" peer=", peer, &line);
  fmt::format_to(std::back_inserter(line), " status={} latency_us={}",
                 StatusCodeName(status.code()), latency_us);
  if (!status.ok()) {
    line.append(" error=\"");
    AppendLogEscaped(status.message(), &line);
    line.push_back('"');
  }
  writer_->Post(logger_, at, std::move(line));
}

}  // namespace ferry::accesslog
